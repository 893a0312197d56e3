"""Fixtures of the dashboard tests: the fixture store, its page, and a headless chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dashboard.browser import Browser, find_chromium
from tests.dashboard.dashboard_fixtures import build_store
from torchparity.dashboard import collect, plan_summary, write_dashboard
from torchparity.store import Store

PLAN = {
    "states": {"documented": 3300, "missing": 6500, "unsupported": 2150},
    "modules": {
        "torch": {"documented": 900, "missing": 1200, "unsupported": 400},
        "torch.nn": {"states": {"documented": 120, "missing": 40}, "ranked": True},
        "torch.fft": 12,
    },
    "version": "2.13.0",
}


@pytest.fixture
def fixture_store(tmp_path: Path) -> Store:
    return build_store(tmp_path)[0]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture store's dashboard, with the plan, written once for a module's tests."""
    root = tmp_path_factory.mktemp("dashboard")
    store, _ = build_store(root)
    dash = collect(store, plan=plan_summary(PLAN, "plan.json"))
    return write_dashboard(dash, root / "out", store)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """One headless chromium for a module's tests; skipped where none is installed, unless
    ``TORCHPARITY_REQUIRE_CHROMIUM`` is set (CI installs it: there a missing browser fails)."""
    binary = find_chromium()
    if binary is None:
        if os.environ.get("TORCHPARITY_REQUIRE_CHROMIUM"):
            pytest.fail("no chromium on PATH, and TORCHPARITY_REQUIRE_CHROMIUM is set")
        pytest.skip("no chromium on PATH (apt-get install chromium): the browser tests need one")
    browser = Browser(binary)
    try:
        yield browser
    finally:
        browser.close()
