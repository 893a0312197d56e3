"""The page as written: one file that fetches nothing, its cells linking logs that lie beside it
(their bytes the stored evidence), emulated cells marked, every fact escaped."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from tests.dashboard.conftest import PLAN
from tests.dashboard.dashboard_fixtures import build_store
from torchparity.dashboard import collect, plan_summary, render_page, write_dashboard
from torchparity.dashboard.model import (
    ApiRow,
    Burndown,
    Cell,
    Column,
    Dashboard,
    Evidence,
)

TD = re.compile(
    r'<td class="cell [^"]*" data-state="([^"]*)" data-emulated="([^"]*)"[^>]*>(.*?)</td>', re.S
)


def _written(tmp_path: Path, **kw: object) -> tuple[Path, str]:
    store, _ = build_store(tmp_path)
    page = write_dashboard(
        collect(store, plan=plan_summary(PLAN, "plan.json")), tmp_path / "out", store, **kw
    )  # type: ignore[arg-type]
    return page, page.read_text()


def test_the_page_fetches_nothing_and_says_so(tmp_path: Path) -> None:
    _, html = _written(tmp_path)
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not re.search(r'(?:src|href)\s*=\s*"(?:https?:)?//', html)
    assert "<link" not in html and not re.search(r"<script[^>]*\bsrc=", html)


def test_each_cell_links_its_log_beside_the_page(tmp_path: Path) -> None:
    page, html = _written(tmp_path)
    hrefs = re.findall(r'href="(evidence/[0-9a-f]{64}\.txt)"', html)
    assert len(hrefs) == 9  # one per cell with evidence
    for href in set(hrefs):
        data = (page.parent / href).read_bytes()
        assert hashlib.sha256(data).hexdigest() == Path(href).stem
        assert b"RESULT=" in data
    assert "torchparity show 5 --target master@a3" in html  # in the cell's title


def test_without_logs_a_cell_names_its_show_command_and_sha(tmp_path: Path) -> None:
    page, html = _written(tmp_path, logs=False)
    assert not (page.parent / "evidence").exists()
    assert "evidence/" not in re.sub(
        r"<p class=\"muted\">A cell's log.*?</p>", "", html, flags=re.S
    )
    assert "<code>torchparity show 3 --target master@emu</code>" in html


def test_an_emulated_cell_is_marked_as_emulated(tmp_path: Path) -> None:
    _, html = _written(tmp_path)
    cells = TD.findall(html)
    emulated = [(state, body) for state, emu, body in cells if emu]
    assert [s for s, _ in emulated] == ["PASS", "MISMATCH"]
    assert all('<span class="badge">emulated npu</span>' in body for _, body in emulated)
    assert all("emulated" not in body for _, emu, body in cells if not emu)
    assert "emu<span" not in html and "emu (environment)</span>" in html  # header: not a product


def test_the_plan_and_the_burndown_are_in_the_page(tmp_path: Path) -> None:
    _, html = _written(tmp_path)
    assert "Plan: 11950 API(s)" in html
    assert '<td class="api">torch.fft</td>' in html
    assert html.count("<polyline") == 6
    assert "master · emu (emulated): 1" in html  # the key, with each series' last count
    assert 'stroke-dasharray="6 4"' in html  # emulated series are dashed


def test_every_fact_is_escaped() -> None:
    col = Column("<b>ref</b>", 'A2" onmouseover="x', True)
    ev = Evidence(1, "u", "<i>label</i>", "env", "ab" * 32, 0.0)
    dash = Dashboard(
        store="<store>",
        columns=(col,),
        rows=(ApiRow("torch.<script>alert(1)</script>", (Cell("PASS", "", ev),)),),
        burndown=Burndown((), ()),
        runs=1,
        newest=0.0,
    )
    html = render_page(dash, title="<title>")
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>ref" not in html and 'onmouseover="x' not in html and "<i>label" not in html
    assert "&lt;title&gt;" in html and "&lt;store&gt;" in html
