"""One process at a time writes a run: every verb that writes one holds its lock from before any work.

The second of two ``verify --resume R`` (or ``batch --resume R``) started while the first works is refused
with one line (exit 2) before it does anything: no agent job, no reopened run, no task state recorded. A
run whose writer died (its lock free) is resumed, even when the process id it names runs again.

The first resume runs in this process over the recorded agent (``tests/fakeagent.py``); the second is
started from inside the first's test run (the fake agent's ``run_file`` job), so the two overlap exactly.
Each ``torchparity`` call opens its own store, so it holds its own lock, as a process of its own would.
"""

from __future__ import annotations

import fcntl
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakeagent import RecordedAgent, load
from torchparity.cli import main
from torchparity.exec.fake import Answer, answering
from torchparity.exec.runners import Job
from torchparity.records.base import open_envelope
from torchparity.records.batch import BatchTaskState
from torchparity.store import Store

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
RUN_FILE = next(r.answer for r in load("verify_seed_api") if r.op == "run_file")


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _interrupted(argv: list[str]) -> None:
    """``torchparity ARGV`` stopped by Ctrl-C during its test run: its run is left incomplete."""

    def ctrl_c(job: Job) -> Answer:
        if threading.current_thread() is threading.main_thread():
            raise KeyboardInterrupt
        os.kill(
            os.getpid(), signal.SIGINT
        )  # targets and tasks run in threads: Ctrl-C reaches the main one
        time.sleep(0.5)  # while it stops everything
        raise KeyboardInterrupt

    with answering(RecordedAgent.of("verify_seed_api", run_file=ctrl_c)):
        assert main(argv) == 130


@pytest.fixture
def creator_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process that started the run is gone (as after a SIGKILL): its pid is no longer alive."""
    monkeypatch.setattr("torchparity.store.db._alive", lambda pid: False)


def _second_resume_during_the_first(
    verb: str, run: str
) -> tuple[int, dict[str, Any], RecordedAgent]:
    """``VERB --resume RUN`` and, while its test runs, the same again: (first's exit code, what the second
    did, the first's agent)."""
    second: dict[str, Any] = {}

    def run_file(job: Job) -> Answer:
        if not second:
            second["jobs_before"] = len(agent.asked)
            second["code"] = main([verb, "--resume", run])
            second["jobs_after"] = len(agent.asked)
        return RUN_FILE

    agent = RecordedAgent.of("verify_seed_api", run_file=run_file)
    with answering(agent):
        first = main([verb, "--resume", run])
    return first, second, agent


def _one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("ERROR:")]
    assert len(lines) == 1, err
    return lines[0]


def test_a_second_verify_resume_is_refused_before_any_work_and_the_first_finishes(
    creator_gone: None, capsys: pytest.CaptureFixture[str]
) -> None:
    _interrupted(["verify", API, "--python", sys.executable])
    assert Store(".torchparity").run(1).status == "incomplete"
    capsys.readouterr()
    first, second, _agent = _second_resume_during_the_first("verify", "1")
    err = capsys.readouterr().err
    assert second["code"] == 2, err
    assert second["jobs_after"] == second["jobs_before"]  # the second asked the agent nothing
    line = _one_error_line(err)
    assert "run 1 is" in line and ("being worked on" in line or "still running" in line), line
    assert first == 0, (
        err
    )  # the holder was not disturbed: no sealed run under it, no crash (exit 4)
    row = Store(".torchparity").run(1)
    assert (row.status, row.result) == ("complete", "PASS")


def _batch_states(store: Store, run_id: int) -> list[tuple[str, str]]:
    states = [
        open_envelope(doc, BatchTaskState)
        for kind, _k, doc in store.records(run_id)
        if kind == BatchTaskState.KIND
    ]
    return [(st.status, st.result or "") for st in states]


def test_a_second_batch_resume_is_refused_before_any_work_and_the_first_finishes(
    creator_gone: None, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("tasks.txt").write_text(API + "\n")
    _interrupted(["batch", "tasks.txt", "--python", sys.executable, "--jobs", "1"])
    st = Store(".torchparity")
    batch = next(r for r in st.runs() if r.kind == "batch")
    assert batch.status == "incomplete"
    capsys.readouterr()
    first, second, _agent = _second_resume_during_the_first("batch", str(batch.id))
    err = capsys.readouterr().err
    assert second["code"] == 2, err
    assert second["jobs_after"] == second["jobs_before"]
    assert (
        "FAILED TO RUN" not in err
    )  # the second recorded no task state (a failure would be final)
    line = _one_error_line(err)
    assert f"run {batch.id} is" in line, line
    assert first == 0, err
    st = Store(".torchparity")
    assert (st.run(batch.id).status, st.run(batch.id).result) == ("complete", "PASS")
    assert _batch_states(st, batch.id)[-1] == ("done", "PASS")
    assert all(status != "failed" for status, _ in _batch_states(st, batch.id))


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Any]:
    """Hold run N's lock as another torchparity process does (an flock on its lock file, pid 4242 in it)."""
    fds: list[int] = []

    def hold(run_id: int) -> None:
        path = tmp_path / ".torchparity" / "locks" / f"run-{run_id}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(fd, 0)
        os.write(fd, b"4242")
        fds.append(fd)

    yield hold
    for fd in fds:
        os.close(fd)


@pytest.mark.parametrize("verb", ["verify", "batch"])
def test_a_run_another_process_holds_is_refused_naming_it_and_left_untouched(
    verb: str, held: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    if verb == "verify":
        _interrupted(["verify", API, "--python", sys.executable])
        run_id = 1
    else:
        Path("tasks.txt").write_text(API + "\n")
        _interrupted(["batch", "tasks.txt", "--python", sys.executable, "--jobs", "1"])
        run_id = next(r.id for r in Store(".torchparity").runs() if r.kind == "batch")
    before = Store(".torchparity").run(run_id)
    held(run_id)
    capsys.readouterr()
    agent = RecordedAgent.of("verify_seed_api")
    with answering(agent):
        code = main([verb, "--resume", str(run_id)])
    err = capsys.readouterr().err
    assert code == 2, err
    line = _one_error_line(err)
    assert f"run {run_id} is being worked on by another torchparity process (pid 4242" in line, line
    assert agent.asked == []  # refused before any work
    assert Store(".torchparity").run(run_id) == before  # not reopened, not sealed again


def test_a_run_whose_writer_died_is_resumed_even_when_its_pid_runs_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A resume that died after reopening the run leaves it 'running', naming a pid that is alive again
    (here: this process; in a container every run may be pid 1). Its lock is free: the next resume
    takes it and finishes it."""
    _interrupted(["verify", API, "--python", sys.executable])
    dead = Store(".torchparity")
    dead.reopen_run(1)
    del dead  # the writer is gone: its open files close, its lock with them
    gc.collect()
    row = Store(".torchparity").run(1)
    assert row.status == "running" and row.summary["pid"] == os.getpid()
    capsys.readouterr()
    with answering(RecordedAgent.of("verify_seed_api")):
        code = main(["verify", "--resume", "1"])
    assert code == 0, capsys.readouterr().err
    row = Store(".torchparity").run(1)
    assert (row.status, row.result) == ("complete", "PASS")


def test_a_running_run_is_orphaned_exactly_when_its_lock_is_free() -> None:
    _interrupted(["verify", API, "--python", sys.executable])
    writer = Store(".torchparity")
    writer.reopen_run(1)
    assert not Store(".torchparity").run(1).orphaned  # its pid is alive, and so is its writer
    del writer
    gc.collect()
    assert (
        Store(".torchparity").run(1).orphaned
    )  # its pid is alive (this process), its writer is not
