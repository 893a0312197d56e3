"""Signals, timeouts and leftovers, with real processes: every verb stops at once and leaves nothing.

Each command runs as a real ``python -m torchparity`` process with its own TMPDIR, so that every
temporary folder it makes, and every agent it starts (the agent's launcher lives under TMPDIR), can
be looked for afterwards with ``ps`` and ``git worktree list``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git, write
from torchparity.store import Store

pytestmark = pytest.mark.slow

HANG = """
import os
import time
import unittest


class TestHang(unittest.TestCase):
    def test_hang(self):
        with open({pidfile!r}, "w") as fh:
            fh.write(str(os.getpid()))
        time.sleep(60)


if __name__ == "__main__":
    unittest.main()
"""

SETSID_GRANDCHILD = """
import os
import subprocess
import sys
import time
import unittest


class TestEscapes(unittest.TestCase):
    def test_escapes_the_group(self):
        child = subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(600)"])
        time.sleep(0.5)  # it has called setsid() by now
        with open({pidfile!r}, "w") as fh:
            fh.write(str(child.pid))
        time.sleep(600)


if __name__ == "__main__":
    unittest.main()
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def _env(tmp: Path) -> dict[str, str]:
    return dict(os.environ, TMPDIR=str(tmp))


def _as_background_job() -> None:
    """What a shell does to a job it starts with ``&`` in a script: SIGINT ignored from the start."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start(
    tmp_path: Path, *args: str, cwd: Path | None = None, background: bool = False
) -> subprocess.Popen[str]:
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "torchparity", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp),
        cwd=cwd or tmp_path,
        preexec_fn=_as_background_job if background else None,
    )


def _wait_for(pidfile: Path, proc: subprocess.Popen[str], seconds: float = 90) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pidfile.exists() and pidfile.read_text().strip():
            return int(pidfile.read_text())
        if proc.poll() is not None:
            raise AssertionError(f"exited early ({proc.returncode}): {proc.communicate()}")
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the test never started")


def _stop(proc: subprocess.Popen[str], sig: int) -> tuple[float, str]:
    started = time.monotonic()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"{signal.Signals(sig).name} did not stop it within 30 s") from None
    return time.monotonic() - started, err


def _leftovers(tmp_path: Path) -> tuple[list[str], list[str]]:
    """(temporary folders other than the agent's cache, processes started from the TMPDIR) now.

    torch's own per-user compiler cache (``torchinductor_<user>``, made by ``import torch._dynamo``,
    which the warm worker preloads and every torch ``TestCase`` imports) is torch's, not a leftover."""
    tmp = tmp_path / "tmp"
    folders = sorted(
        p.name
        for p in tmp.iterdir()
        if not p.name.startswith(("torchparity-agent-", "torchinductor_"))
    )
    ps = subprocess.run(
        ["ps", "-eo", "pid=,stat=,args="], capture_output=True, text=True, check=True
    ).stdout
    procs = [
        ln.strip() for ln in ps.splitlines() if str(tmp) in ln and " Z" not in f" {ln.split()[1]}"
    ]
    return folders, procs


def _repo(make_repo, files: dict[str, str], refs: tuple[str, ...] = ("master",)) -> Path:
    return make_repo({ref: files for ref in refs})


@pytest.mark.parametrize("launched", ["foreground", "background"])
@pytest.mark.parametrize("verb", ["run", "verify"])
@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_sigint_during_a_60s_test_exits_within_5s_leaving_nothing(
    tmp_path, make_repo, python_with_torch, verb, mode, launched
):
    """Also when started as a script's background job (SIGINT inherited as ignored): a signal stops it."""
    pidfile = tmp_path / "test.pid"
    repo = _repo(make_repo, {"test/test_hang.py": HANG.format(pidfile=str(pidfile))})
    store = str(tmp_path / "store")
    fresh = ["--fresh"] if mode == "fresh" else []
    if verb == "run":
        args = [
            "run",
            "test/test_hang.py",
            "--repo",
            str(repo),
            "--python",
            python_with_torch,
            "--store",
            store,
        ]
    else:
        args = [
            "verify",
            "torch.add",
            "--repo",
            str(repo),
            "--test-file",
            "test/test_hang.py",
            "--python",
            python_with_torch,
            "--store",
            store,
            "--out",
            str(tmp_path / "out"),
        ]
    proc = _start(tmp_path, *args, *fresh, background=launched == "background")
    test_pid = _wait_for(pidfile, proc)
    took, err = _stop(proc, signal.SIGINT)
    assert proc.returncode == 130, err
    assert took < 5, f"{took:.1f}s: {err}"
    assert "interrupted" in err
    assert git(repo, "worktree", "list").count("\n") == 0  # only the main checkout
    assert not _alive(test_pid)
    assert _leftovers(tmp_path) == ([], [])
    run = Store(store).run(1)
    assert run.status == "incomplete" and run.result == "INCOMPLETE"


def _hanging_python(tmp_path: Path, python: str, pidfile: Path) -> str:
    """An interpreter that hangs 60 s at start (a slow backend import), writing its pid first."""
    site = tmp_path / "hang_site"
    write(
        site / "sitecustomize.py",
        f"""
        import os, time
        with open({str(pidfile)!r}, "w") as fh:
            fh.write(str(os.getpid()))
        time.sleep(60)
    """,
    )
    wrapper = tmp_path / "hanging-python"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {python} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


@pytest.mark.parametrize(
    "verb",
    [
        ["resolve", "torch.add"],
        ["trace", "torch.add"],
        ["scaffold", "torch.add", "--dry-run"],
    ],
)
def test_sigterm_on_agent_verbs_exits_at_once_leaving_nothing(tmp_path, python_with_torch, verb):
    pidfile = tmp_path / "agent.pid"
    python = _hanging_python(tmp_path, python_with_torch, pidfile)
    proc = _start(tmp_path, *verb, "--python", python)
    agent_pid = _wait_for(pidfile, proc)
    took, err = _stop(proc, signal.SIGTERM)
    assert proc.returncode == 130, err
    assert took < 5, f"{took:.1f}s: {err}"
    assert not _alive(agent_pid)
    assert _leftovers(tmp_path) == ([], [])


@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_a_trace_job_that_hangs_is_stopped_by_sigterm(tmp_path, python_with_torch, mode):
    pidfile = tmp_path / "job.pid"
    setup = f"open({str(pidfile)!r}, 'w').write(str(__import__('os').getpid()))"
    proc = _start(
        tmp_path,
        "trace",
        "--setup",
        setup,
        "--call",
        "__import__('time').sleep(60)",
        "--python",
        python_with_torch,
        *(["--fresh"] if mode == "fresh" else []),
    )
    job_pid = _wait_for(pidfile, proc)
    took, err = _stop(proc, signal.SIGTERM)
    assert proc.returncode == 130 and took < 5, err
    assert not _alive(job_pid)
    assert _leftovers(tmp_path) == ([], [])


@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_a_setsid_grandchild_is_killed_at_the_timeout(tmp_path, make_repo, python_with_torch, mode):
    pidfile = tmp_path / "grandchild.pid"
    repo = _repo(make_repo, {"test/test_escape.py": SETSID_GRANDCHILD.format(pidfile=str(pidfile))})
    proc = _start(
        tmp_path,
        "run",
        "test/test_escape.py",
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--timeout",
        "12",
        "--store",
        str(tmp_path / "store"),
        *(["--fresh"] if mode == "fresh" else []),
    )
    grandchild = _wait_for(pidfile, proc)
    assert os.getsid(grandchild) == grandchild  # it left the test's process group and session
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(grandchild):
        time.sleep(0.05)
    assert not _alive(grandchild)
    st = Store(tmp_path / "store")
    log = st.blobs.read(st.targets(1)[0].log_sha).decode()
    assert "FULL_TEST_STATUS=TIMEOUT signal=SIGKILL" in log
    assert "PROCESS_TRACKING=" in log and "/proc" in log


def test_a_queued_target_never_starts_after_the_signal(tmp_path, make_repo, python_with_torch):
    pidfile = tmp_path / "test.pid"
    repo = _repo(
        make_repo, {"test/test_hang.py": HANG.format(pidfile=str(pidfile))}, refs=("master", "v2")
    )
    store = str(tmp_path / "store")
    proc = _start(
        tmp_path,
        "run",
        "test/test_hang.py",
        "--repo",
        str(repo),
        "--ref",
        "master",
        "--ref",
        "v2",
        "--python",
        python_with_torch,
        "--jobs",
        "1",
        "--store",
        store,
    )
    _wait_for(pidfile, proc)
    took, err = _stop(proc, signal.SIGINT)
    assert proc.returncode == 130 and took < 5, err
    # the second target was queued: it has no row, no worktree, no worker
    assert [t.label for t in Store(store).targets(1)] == [f"master@{python_with_torch}"]
    assert git(repo, "worktree", "list").count("\n") == 0
    assert _leftovers(tmp_path) == ([], [])


@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_leftovers_of_a_killed_run_are_pruned_at_the_next_start(
    tmp_path, make_repo, python_with_torch, mode
):
    pidfile = tmp_path / "test.pid"
    repo = _repo(make_repo, {"test/test_hang.py": HANG.format(pidfile=str(pidfile))})
    store = str(tmp_path / "store")
    proc = _start(
        tmp_path,
        "run",
        "test/test_hang.py",
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--store",
        store,
        *(["--fresh"] if mode == "fresh" else []),
    )
    test_pid = _wait_for(pidfile, proc)
    proc.kill()  # SIGKILL: no handler runs, nothing is cleaned up
    proc.communicate(timeout=30)
    folders, _ = _leftovers(tmp_path)
    assert any(f.startswith("torchparity-wt-") for f in folders)  # the dead run's checkout folder
    # the checkout holds the test file as it ran (a sparse checkout: git has no worktree to forget)
    assert list((tmp_path / "tmp").glob("torchparity-wt-*/*/test/test_hang.py"))
    nxt = _start(tmp_path, "runs", "--store", store)  # any verb: the next start prunes
    nxt.communicate(timeout=60)
    assert nxt.returncode == 0
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(test_pid):
        time.sleep(0.05)
    assert not _alive(test_pid)
    assert _leftovers(tmp_path) == ([], [])
    assert git(repo, "worktree", "list").count("\n") == 0


def test_two_resumes_of_one_run_at_once_are_refused_naming_the_holder(
    tmp_path, make_repo, python_with_torch
):
    pidfile = tmp_path / "test.pid"
    marker = tmp_path / "hang-while-this-exists"
    marker.write_text("")
    text = HANG.format(pidfile=str(pidfile)).replace(
        "        time.sleep(60)",
        f"        if os.path.exists({str(marker)!r}):\n            time.sleep(60)",
    )
    repo = _repo(make_repo, {"test/t.py": text})
    store = str(tmp_path / "store")
    first = _start(
        tmp_path,
        "run",
        "test/t.py",
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--store",
        store,
    )
    _wait_for(pidfile, first)
    _stop(first, signal.SIGINT)
    assert first.returncode == 130
    pidfile.unlink()
    resume = _start(tmp_path, "run", "--resume", "1", "--store", store)
    _wait_for(pidfile, resume)  # the first resume is running the (hanging) test again
    second = _start(tmp_path, "run", "--resume", "1", "--store", store)
    _, err = second.communicate(timeout=60)
    assert second.returncode == 2, err
    assert f"pid {resume.pid}" in err and "run 1 is being worked on" in err
    _stop(resume, signal.SIGINT)
    marker.unlink()
    done = _start(tmp_path, "run", "--resume", "1", "--store", store)
    _, err = done.communicate(timeout=120)
    assert done.returncode == 0, err
    assert len(Store(store).runs()) == 1
