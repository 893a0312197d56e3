"""Two ``batch --resume R`` (or ``verify --resume R``) started at once, as two real processes, after the
run's controller was killed with SIGKILL: one takes the run and finishes it; the other is refused with one
line (exit 2) before any work. Nothing collides: no task is recorded as failed, no worktree is left, and
the run ends complete and PASS."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.batch.fixtures import PY, backend_repo, tasks_file
from tests.batch.test_batch_resume import _finished, _wait_gone
from tests.conftest import git
from torchparity.store import Store

pytestmark = pytest.mark.slow


def _killed_mid_run(cmd: list[str], env: dict[str, str], cwd: Path, store: Path) -> None:
    proc = subprocess.Popen(
        cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 300
        while not _finished(store) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert proc.poll() is None and _finished(store)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _both_at_once(
    argv: list[str], env: dict[str, str], cwd: Path
) -> list[subprocess.CompletedProcess[str]]:
    procs = [
        subprocess.Popen(
            argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=600)
        out.append(subprocess.CompletedProcess(argv, p.returncode, stdout, stderr))
    return out


@pytest.mark.parametrize("verb", ["batch", "verify"])
def test_two_resumes_at_once_one_finishes_the_other_is_refused_untouched(
    tmp_path: Path, make_repo, verb: str
) -> None:
    repo = backend_repo(make_repo, {"main": PY})
    store, marker = tmp_path / "store", tmp_path / "marker.txt"
    env = dict(os.environ, TORCHPARITY_TEST_MARKER=str(marker), TORCHPARITY_TEST_SLEEP="2")
    if verb == "batch":
        tasks = tasks_file(tmp_path / "tasks.txt", ["torch.add", "torch.sub"])
        cmd = [
            PY,
            "-m",
            "torchparity",
            "batch",
            str(tasks),
            "--repo",
            str(repo),
            "--store",
            str(store),
            "--out",
            str(tmp_path / "out"),
            "--jobs",
            "1",
        ]
    else:
        cmd = [
            PY,
            "-m",
            "torchparity",
            "verify",
            "torch.add",
            "--repo",
            str(repo),
            "--store",
            str(store),
            "--out",
            str(tmp_path / "out"),
        ]
    _killed_mid_run(cmd, dict(env, TORCHPARITY_TEST_SLEEP_V2_11_0="30"), tmp_path, store)
    assert _wait_gone(marker, 60) == []
    run = next(r for r in Store(store).runs() if r.kind == verb)
    assert run.status == "running" and run.orphaned

    results = _both_at_once(
        [PY, "-m", "torchparity", verb, "--resume", str(run.id), "--store", str(store)],
        env,
        tmp_path,
    )
    codes = sorted(r.returncode for r in results)
    assert codes == [0, 2], [(r.returncode, r.stderr[-2000:]) for r in results]
    refused = next(r for r in results if r.returncode == 2)
    errors = [ln for ln in refused.stderr.splitlines() if ln.startswith("ERROR:")]
    assert len(errors) == 1 and f"run {run.id} is" in errors[0], refused.stderr
    assert (
        "being worked on by another torchparity process" in errors[0]
        or "still running" in errors[0]
    )
    assert "FAILED TO RUN" not in refused.stderr + refused.stdout

    st = Store(store)
    row = st.run(run.id)
    assert (row.status, row.result) == ("complete", "PASS")
    verifies = [r for r in st.runs() if r.kind == "verify"]
    assert {t.result for r in verifies for t in st.targets(r.id)} == {"PASS"}
    assert git(repo, "worktree", "list").count("\n") == 0
    assert _wait_gone(marker, 30) == []
