"""``torchparity dashboard``: writes the page, reads --plan, says what it wrote; bad input is exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.dashboard.conftest import PLAN
from tests.dashboard.dashboard_fixtures import build_store
from tests.store.evidence import sql
from torchparity.cli import main


def test_the_verb_writes_the_page_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build_store(tmp_path)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    out = tmp_path / "site"
    argv = ["dashboard", "--store", str(tmp_path / "store"), "--out", str(out), "--plan", str(plan)]
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert (
        f"dashboard: {out / 'index.html'} (4 API(s), 6 branch x product column(s), 5 run(s))"
        in said
    )
    html = (out / "index.html").read_text()
    assert "Plan: 11950 API(s)" in html and len(list((out / "evidence").iterdir())) == 6
    assert (
        main([*argv, "--no-logs", "--title", "Ascend/pytorch"]) == 0
    )  # rerun over the same folder
    assert "<h1>Ascend/pytorch</h1>" in (out / "index.html").read_text()


def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build_store(tmp_path)
    store = str(tmp_path / "store")
    bad = tmp_path / "plan.json"
    bad.write_text('{"states": {"missing": "many"}}')
    assert (
        main(["dashboard", "--store", store, "--out", str(tmp_path / "o"), "--plan", str(bad)]) == 2
    )
    assert "ERROR: --plan" in capsys.readouterr().err
    afile = tmp_path / "afile"
    afile.write_text("")
    assert main(["dashboard", "--store", store, "--out", str(afile)]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_help_lists_the_verb(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "  dashboard " in capsys.readouterr().out


def test_a_store_edited_behind_its_back_is_exit_3_and_no_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The FAIL target's row pointed at a PASS target's log and record: tampering, as for ``runs``."""
    store, ids = build_store(tmp_path)
    a2, a3 = store.targets(ids[0])[:2]
    sql(
        store,
        "UPDATE targets SET result='PASS', log_sha=?, record_sha=? WHERE id=?",
        (a2.log_sha, a2.record_sha, a3.id),
    )
    out = tmp_path / "site"
    assert main(["dashboard", "--store", str(tmp_path / "store"), "--out", str(out)]) == 3
    assert f"run {ids[0]}" in capsys.readouterr().err
    assert not (out / "index.html").exists()
