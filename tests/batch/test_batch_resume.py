"""A batch whose controller is killed with SIGKILL mid-job, then resumed: every job the marker
file counts ran as many times as it had to, nothing finished ran again, nothing is missing, and
no worktree or process is left."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.batch.fixtures import PY, backend_repo, tasks_file
from tests.conftest import git
from torchparity.store import Store

pytestmark = pytest.mark.slow


def _finished(store: Path) -> set[tuple[int, str]]:
    db = store / "store.sqlite"
    if not db.exists():
        return set()
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        rows = con.execute(
            "SELECT run_id, label FROM targets WHERE result IN ('PASS','FAIL','ERROR')"
        ).fetchall()
    except sqlite3.OperationalError:
        return set()
    finally:
        con.close()
    return {(r, label) for r, label in rows}


def _marker_of(pid: int) -> str | None:
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    for item in env:
        if item.startswith(b"TORCHPARITY_TEST_MARKER="):
            return item.split(b"=", 1)[1].decode()
    return None


def _ours(marker: Path) -> list[int]:
    """Processes started for this test (they carry its marker path in their environment)."""
    return [
        int(p)
        for p in os.listdir("/proc")
        if p.isdigit() and int(p) != os.getpid() and _marker_of(int(p)) == str(marker)
    ]


def _runs(marker: Path) -> Counter[tuple[str, str]]:
    lines = marker.read_text().split("\n") if marker.exists() else []
    return Counter(tuple(ln.split()[:2]) for ln in lines if ln.strip())  # type: ignore[misc]


def _wait_gone(marker: Path, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = _ours(marker)
        if not left:
            return []
        time.sleep(0.2)
    return _ours(marker)


def test_sigkill_mid_batch_then_resume_redoes_nothing_finished(tmp_path, make_repo):
    repo = backend_repo(make_repo, {"main": PY})
    tasks = tasks_file(tmp_path / "tasks.txt", ["torch.add", "torch.sub", "torch.mul"])
    store, out, marker = tmp_path / "store", tmp_path / "out", tmp_path / "marker.txt"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(
        os.environ,
        TMPDIR=str(tmp),
        TORCHPARITY_TEST_MARKER=str(marker),
        TORCHPARITY_TEST_SLEEP="1.5",
    )
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
        str(out),
        "--jobs",
        "1",
    ]
    proc = subprocess.Popen(
        cmd, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 300
        while len(_finished(store)) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        assert (
            len(_finished(store)) >= 3
        )  # the first task (2 targets) is done, the second under way
        time.sleep(0.5)  # into the next target's jobs
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    done_before = _finished(store)
    # the workers the killed controller started end on their own (their controller's pipe is gone)
    assert _wait_gone(marker, 60) == []
    runs_before = _runs(marker)
    st = Store(store)
    batch = next(r for r in st.runs() if r.kind == "batch")
    assert batch.status == "running" and batch.orphaned
    labels_before = {(run_id, label) for run_id, label in done_before}
    assert len(labels_before) < 6  # killed mid-batch: something was left to do

    res = subprocess.run(
        [PY, "-m", "torchparity", "batch", "--resume", batch.uid[:12], "--store", str(store)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    runs_after = _runs(marker)
    st = Store(store)
    batch = st.run(batch.id)
    assert (batch.status, batch.result) == ("complete", "PASS")
    verifies = [r for r in st.runs() if r.kind == "verify"]
    assert len(verifies) == 3  # a task's interrupted verify run is continued, not started again
    targets = {(r.id, t.label): t.result for r in verifies for t in st.targets(r.id)}
    assert len(targets) == 6 and set(targets.values()) == {"PASS"}  # nothing missing
    # nothing finished runs twice: the targets stored before the kill were not run after it
    ref_of = {}
    for r in verifies:
        api = r.argv[r.argv.index("--task") + 1]
        for t in st.targets(r.id):
            ref_of[(r.id, t.label)] = (api, t.ref)
    for key in done_before:
        assert runs_after[ref_of[key]] == runs_before[ref_of[key]], ref_of[key]
    # every target ran its file the same number of times (full run + trace) in the session that finished it
    # (with parallel lanes every unfinished target may have started before the kill: then none is counted here)
    per_target = {
        runs_after[ref_of[k]]
        for k in targets
        if k not in done_before and runs_before[ref_of[k]] == 0
    }
    assert len(per_target) <= 1 and all(n >= 2 for n in per_target), per_target
    # a target cut short by the kill is run again whole, once: its file ran at least once more after the kill
    for k in targets:
        if k not in done_before:
            assert runs_after[ref_of[k]] > runs_before[ref_of[k]], ref_of[k]
    assert set(runs_after) == {
        (a, ref) for a in ("torch.add", "torch.sub", "torch.mul") for ref in ("master", "v2.11.0")
    }
    # nothing left behind: no worktree (the killed controller's checkouts were removed), no process
    assert git(repo, "worktree", "list").count("\n") == 0
    assert not list(tmp.glob("torchparity-batch-*"))
    assert _wait_gone(marker, 30) == []
    assert "kept from before the resume" in res.stderr


def test_verify_resume_after_sigkill_keeps_the_finished_target(tmp_path, make_repo):
    repo = backend_repo(make_repo, {"main": PY})
    store, marker = tmp_path / "store", tmp_path / "marker.txt"
    env = dict(os.environ, TORCHPARITY_TEST_MARKER=str(marker), TORCHPARITY_TEST_SLEEP="2")
    # the targets run side by side (lanes): v2.11.0's test takes longer, so master finishes first
    first = dict(env, TORCHPARITY_TEST_SLEEP_V2_11_0="30")
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
    proc = subprocess.Popen(
        cmd, env=first, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 300
        while not _finished(store) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert proc.poll() is None and len(_finished(store)) == 1
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _wait_gone(marker, 60) == []
    ((run_id, label),) = _finished(store)
    before = _runs(marker)
    res = subprocess.run(
        [PY, "-m", "torchparity", "verify", "--resume", str(run_id), "--store", str(store)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    st = Store(store)
    assert [r.kind for r in st.runs()] == ["verify"]  # the same run, continued
    assert {t.label: t.result for t in st.targets(run_id)} == {
        "master@main": "PASS",
        "v2.11.0@main": "PASS",
    }
    after = _runs(marker)
    kept = ("torch.add", label.split("@")[0])
    assert after[kept] == before[kept]  # the finished target did not run again
    other = ("torch.add", "v2.11.0" if kept[1] == "master" else "master")
    assert after[other] > before[other]
    assert _wait_gone(marker, 30) == []
    # (a killed verify's own per-target worktree is not removed by its resume: that is the cleanup of
    # dead runs' leftovers at the start of any verb; a batch's checkouts are, checked in the test above)


def test_ctrl_c_mid_batch_closes_it_incomplete_and_resume_finishes_it(tmp_path, make_repo):
    repo = backend_repo(make_repo, {"main": PY})
    tasks = tasks_file(tmp_path / "tasks.txt", ["torch.add", "torch.sub"])
    store, marker = tmp_path / "store", tmp_path / "marker.txt"
    env = dict(os.environ, TORCHPARITY_TEST_MARKER=str(marker), TORCHPARITY_TEST_SLEEP="1.5")
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
    proc = subprocess.Popen(
        cmd, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 300
        while not _finished(store) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, out + err
    st = Store(store)
    batch = next(r for r in st.runs() if r.kind == "batch")
    assert (batch.status, batch.result) == ("incomplete", "INCOMPLETE")
    assert f"torchparity batch --resume {batch.uid[:12]}" in err
    assert _wait_gone(marker, 30) == []  # the workers and their jobs were stopped, not left running
    assert git(repo, "worktree", "list").count("\n") == 0
    done_before = _finished(store)
    runs_before = _runs(marker)
    res = subprocess.run(
        [PY, "-m", "torchparity", "batch", "--resume", batch.uid[:12], "--store", str(store)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    st = Store(store)
    assert st.run(batch.id).status == "complete"
    verifies = [r for r in st.runs() if r.kind == "verify"]
    assert sorted(t.result for r in verifies for t in st.targets(r.id)) == ["PASS"] * 4
    runs_after = _runs(marker)
    for run_id, label in done_before:
        row = st.run(run_id)
        key = (row.argv[row.argv.index("--task") + 1], label.split("@")[0])
        assert runs_after[key] == runs_before[key], key
