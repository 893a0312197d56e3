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
from torchparity.verify.pipeline import EMULATED_BLOCKER

# the real end-to-end tests here are marked slow; the others answer the agent from recordings of the
# real one (the `agent` fixture, tests/fakeagent.py)


def test_verify_runs_the_official_tests_as_a_stage(agent, tmp_path: Path) -> None:
    repo = make_backend(tmp_path)
    store, out = tmp_path / "store", tmp_path / "out"
    code = main(
        [
            "verify",
            files.API,
            "--repo",
            str(repo),
            "--python",
            sys.executable,
            "--store",
            str(store),
            "--test-file",
            files.OWN,
            "--out",
            str(out),
        ]
    )
    run = read_run(Store(store), 1)
    assert run.verify is not None and "upstream" in run.verify.stages
    up = run.upstream
    assert up is not None
    (t,) = up.targets
    assert t.label == run.targets[0].record.label  # the collect target it belongs to
    statuses = {x.id or x.test: x.status for x in t.tests}
    assert statuses["__main__.TestPlain.test_plain_clone"] == "passed"
    assert (
        statuses[f"{files.NEEDS_FIXTURE}::TestNeedsFixture::test_set_grad_enabled_clone_cases"]
        == "not_started"
    )
    assert all(x.rechecked == "" for x in t.tests) and not t.stale  # no recheck asked
    # one official test passed, one that applies here could not start: no pass of the official tests
    assert t.result == "PARTIAL" and [x.test for x in t.missed] == [
        f"{files.NEEDS_FIXTURE}::TestNeedsFixture::test_set_grad_enabled_clone_cases"
    ]
    assert any("1 official test(s) that apply here did not start" in n for n in run.verify.notes)
    # the collect target's evidence log carries the section, before its verdict
    log = run.targets[0].log
    assert log.index("===== UPSTREAM TESTS =====") < log.index("\nRESULT=")
    assert "UPSTREAM_TEST=__main__.TestPlain.test_plain_clone:passed" in log
    assert "## PyTorch 官方用例" in (out / "pr.zh.md").read_text()
    assert code == 0, run.verify.blockers


@pytest.mark.slow
def test_verify_on_the_emulated_npu_runs_them_there_and_a_stale_entry_is_a_note(
    tmp_path: Path,
) -> None:
    repo = make_backend(tmp_path)
    store = tmp_path / "store"
    code = main(
        [
            "verify",
            files.API,
            "--repo",
            str(repo),
            "--python",
            sys.executable,
            "--store",
            str(store),
            "--test-file",
            files.OWN,
            "--emulate",
            "npu",
            "--device",
            "npu",
            "--recheck-disabled",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    run = read_run(Store(store), 1)
    assert run.verify is not None and run.upstream is not None
    (t,) = run.upstream.targets
    assert (t.device, t.emulated) == ("npu", "npu")
    statuses = {x.id or x.test: x.status for x in t.tests}
    assert (
        statuses["__main__.TestGradModeClonePRIVATEUSE1.test_set_grad_enabled_clone_npu"]
        == "passed"
    )
    # not a failure; the test whose fixture module the repo lacks did not start: partly run
    assert [e.key for e in t.stale] == [files.STALE_KEY_NPU] and t.result == "PARTIAL"
    # CPU kernels passing under the emulation: said as a note, no stale-entry blocker; the run's only
    # blocker is that every target was emulated (a dry run)
    assert any(files.STALE_KEY_NPU in n and "recheck it on hardware" in n for n in run.verify.notes)
    assert [b.split(":")[0] for b in run.verify.blockers] == [EMULATED_BLOCKER] and code == 1
    log = run.targets[0].log
    assert "UPSTREAM_DEVICE=npu (emulated on CPU)" in log and "PYTHONPATH=" in log
