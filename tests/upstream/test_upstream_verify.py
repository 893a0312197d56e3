"""The upstream stage inside ``verify``: its record in the run, its section in each target's evidence
log, its part in the PR description (the fixture backend repo of tests/upstream/files.py, real torch)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.upstream import files
from tests.upstream.files import make_backend
from torchparity.cli import main
from torchparity.store import Store, read_run

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow


def test_verify_runs_the_official_tests_as_a_stage(tmp_path: Path) -> None:
    repo = make_backend(tmp_path)
    store, out = tmp_path / "store", tmp_path / "out"
    code = main(["verify", files.API, "--repo", str(repo), "--python", sys.executable, "--store", str(store),
                 "--test-file", files.OWN, "--out", str(out)])
    run = read_run(Store(store), 1)
    assert run.verify is not None and "upstream" in run.verify.stages
    up = run.upstream
    assert up is not None
    (t,) = up.targets
    assert t.label == run.targets[0].record.label  # the collect target it belongs to
    statuses = {x.id or x.test: x.status for x in t.tests}
    assert statuses["__main__.TestPlain.test_plain_clone"] == "passed"
    assert statuses[f"{files.NEEDS_FIXTURE}::TestNeedsFixture::test_set_grad_enabled_clone_cases"] == "not_started"
    assert all(x.rechecked == "" for x in t.tests) and t.result == "PASS" and not t.stale  # no recheck asked
    # the collect target's evidence log carries the section, before its verdict
    log = run.targets[0].log
    assert log.index("===== UPSTREAM TESTS =====") < log.index("\nRESULT=")
    assert "UPSTREAM_TEST=__main__.TestPlain.test_plain_clone:passed" in log
    assert "## PyTorch 官方用例" in (out / "pr.zh.md").read_text()
    assert code == 0, run.verify.blockers
