"""The dashboard in a real browser (headless chromium): the page loads from a file with no network,
typing in the filter and choosing a state hide the rows they should, a click on a header sorts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dashboard.browser import Browser
from tests.dashboard.dashboard_fixtures import CLONE, RELU, TENSOR_CLONE, ZERO_GRAD

#: a browser's start and a page per test: seconds, and more on a cold start (the slow tier)
pytestmark = pytest.mark.slow

SHOWN_ROWS = (
    "Array.from(document.querySelectorAll('#grid tbody tr'))"
    ".filter(r => !r.hidden && r.offsetParent !== null).map(r => r.dataset.api)"
)
ALL_ROWS = "Array.from(document.querySelectorAll('#grid tbody tr')).map(r => r.dataset.api)"


def _open(chromium: Browser, page: Path) -> None:
    chromium.open(page.as_uri())


def test_the_page_loads_from_its_file_and_fetches_nothing(chromium: Browser, page: Path) -> None:
    _open(chromium, page)
    assert chromium.evaluate(SHOWN_ROWS) == [CLONE, RELU, ZERO_GRAD, TENSOR_CLONE]
    assert chromium.evaluate("document.getElementById('shown').textContent") == "4 of 4"
    assert chromium.evaluate("performance.getEntriesByType('resource').length") == 0
    # the burndown is drawn without a script: one line per series, in the page as it came
    assert chromium.evaluate("document.querySelectorAll('#burndown polyline').length") == 6


def test_typing_in_the_filter_shows_the_matching_apis(chromium: Browser, page: Path) -> None:
    _open(chromium, page)
    chromium.type("#filter", "GRAD")
    assert chromium.evaluate(SHOWN_ROWS) == [CLONE, ZERO_GRAD]
    assert chromium.evaluate("document.getElementById('shown').textContent") == "2 of 4"
    chromium.type("#filter", " clone")  # every word must match
    assert chromium.evaluate(SHOWN_ROWS) == [CLONE]
    chromium.type("#filter", "x")
    assert chromium.evaluate(SHOWN_ROWS) == []
    assert chromium.evaluate("document.getElementById('shown').textContent") == "0 of 4"


def test_the_state_filter_shows_the_apis_with_a_cell_in_that_state(
    chromium: Browser, page: Path
) -> None:
    _open(chromium, page)
    chromium.select("#state", "emulated")
    assert chromium.evaluate(SHOWN_ROWS) == [RELU]
    chromium.select("#state", "NONE_RAN")
    assert chromium.evaluate(SHOWN_ROWS) == [ZERO_GRAD]
    chromium.select("#state", "PASS")
    chromium.type("#filter", "torch.")
    assert chromium.evaluate(SHOWN_ROWS) == [CLONE, RELU, ZERO_GRAD, TENSOR_CLONE]
    chromium.type("#filter", "nn")  # "torch.nn": the text and the state together
    assert chromium.evaluate(SHOWN_ROWS) == [RELU]


def test_a_click_on_a_header_sorts_and_a_second_click_reverses(
    chromium: Browser, page: Path
) -> None:
    _open(chromium, page)
    chromium.click("#grid thead th:nth-child(2) button")  # hardware PASS: 0, 0, 2, 3
    assert chromium.evaluate(ALL_ROWS) == [RELU, TENSOR_CLONE, ZERO_GRAD, CLONE]
    assert chromium.evaluate("document.querySelector('#grid thead th:nth-child(2)').ariaSort") == (
        "ascending"
    )
    chromium.click("#grid thead th:nth-child(2) button")
    assert chromium.evaluate(ALL_ROWS) == [CLONE, ZERO_GRAD, TENSOR_CLONE, RELU]
    # a state column sorts worst first: NONE_RAN, PASS, then the APIs with no evidence there
    chromium.click('#grid thead th[data-column="v2.7.1 · Atlas A2"] button')
    assert chromium.evaluate(ALL_ROWS) == [ZERO_GRAD, CLONE, RELU, TENSOR_CLONE]


def test_a_sort_keeps_the_filter(chromium: Browser, page: Path) -> None:
    _open(chromium, page)
    chromium.type("#filter", "clone")
    chromium.click("#grid thead th:nth-child(1) button")
    chromium.click("#grid thead th:nth-child(1) button")  # API, descending
    assert chromium.evaluate(SHOWN_ROWS) == [TENSOR_CLONE, CLONE]
