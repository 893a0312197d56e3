"""``agent/facts/isolate.py``: a function run in a forked child gives its result back, and nothing else.

Real forks, no mocks: what the child changes (a module global, torch's mode, the
current folder) stays in it; a child that raises, aborts, is killed or hangs is
reported as ``ChildFailed`` with why; the scratch folder is removed.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from torchparity.agent.facts import isolate
from torchparity.agent.facts.isolate import (
    ChildFailed,
    fork_safe,
    in_child,
    isolated_facts,
    run_isolated,
)

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

STATE = {"value": 1}


def _change_and_return() -> dict[str, object]:
    STATE["value"] = 99
    return {"value": STATE["value"], "cwd": os.getcwd(), "pid": os.getpid()}


def test_the_result_comes_back_and_the_change_stays_in_the_child() -> None:
    got = in_child(_change_and_return)
    assert got["value"] == 99
    assert STATE["value"] == 1
    assert got["pid"] != os.getpid()
    assert os.path.basename(str(got["cwd"])).startswith("torchparity-child-")
    assert not os.path.exists(str(got["cwd"]))  # the scratch folder the parent made is gone


def test_arguments_reach_the_child() -> None:
    assert in_child(lambda a, b=0: [a, b, a + b], (2,), {"b": 5}) == [2, 5, 7]


def test_a_large_result_comes_back_whole() -> None:
    got = in_child(lambda: "x" * 3_000_000)
    assert len(got) == 3_000_000


def _raise() -> None:
    raise ValueError("bad argument 7")


def test_what_the_child_raised_is_reported() -> None:
    with pytest.raises(ChildFailed, match="ValueError: bad argument 7") as info:
        in_child(_raise)
    assert info.value.status == "exit status 1"
    assert info.value.raised  # its error came back: a retry would raise it again


def test_a_child_that_aborts_is_reported_by_its_signal() -> None:
    with pytest.raises(ChildFailed, match="ended without a result") as info:
        in_child(os.abort)
    assert info.value.status == "killed by signal SIGABRT"
    assert not info.value.raised


def test_a_child_that_exits_without_a_result_is_reported_by_its_status() -> None:
    with pytest.raises(ChildFailed, match="exit status 3"):
        in_child(os._exit, (3,))


def test_a_child_that_hangs_is_killed_at_its_timeout() -> None:
    t0 = time.monotonic()
    with pytest.raises(ChildFailed, match="did not finish") as info:
        in_child(time.sleep, (30,), timeout=1.0)
    assert info.value.status == "timeout"
    assert time.monotonic() - t0 < 10


def test_an_interrupted_wait_kills_the_child_and_removes_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # a temporary folder of the test's own: other processes' children come and go in the shared one
    monkeypatch.setattr(isolate.tempfile, "tempdir", str(tmp_path))
    before = set(os.listdir(isolate.tempfile.gettempdir()))
    old = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            in_child(time.sleep, (30,), timeout=60.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.monotonic() - t0 < 10  # the hung child was killed, not waited for
    left = {
        n
        for n in set(os.listdir(isolate.tempfile.gettempdir())) - before
        if n.startswith("torchparity-child-")
    }
    assert not left


def test_a_result_that_cannot_be_sent_is_reported() -> None:
    with pytest.raises(ChildFailed, match="cannot be sent back"):
        in_child(lambda: lambda: 1)  # a lambda does not pickle


@pytest.mark.slow
def test_torch_runs_with_one_thread_in_the_child_and_its_mode_stays_there() -> None:
    torch = pytest.importorskip("torch")
    before = torch.is_grad_enabled()

    def job() -> tuple[int, bool]:
        torch.set_grad_enabled(not before)
        return torch.get_num_threads(), torch.is_grad_enabled()

    threads, inside = in_child(job)
    assert threads == 1 and inside is (not before)
    assert torch.is_grad_enabled() is before


@pytest.mark.slow
def test_fork_safe_on_the_cpu_and_run_isolated_runs_here_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    torch = pytest.importorskip("torch")
    assert fork_safe("cpu") is True
    assert run_isolated(os.getpid) != os.getpid()
    # a started device runtime: no fork, the function runs in this process
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    assert fork_safe("cuda") is False and fork_safe("") is False
    assert run_isolated(os.getpid, device_type="cuda") == os.getpid()


@pytest.mark.slow
def test_an_emulated_backend_is_fork_safe(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    npu = type(sys)("torch_npu_runtime")
    npu.is_initialized = lambda: True  # type: ignore[attr-defined]
    monkeypatch.setattr(torch, "npu", npu, raising=False)
    assert fork_safe("npu") is False
    backend = type(sys)("torch_npu")
    backend.__emulated__ = "cpu"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch_npu", backend)
    assert fork_safe("npu") is True


def test_isolated_facts_turns_a_crash_into_a_reason() -> None:
    assert isolated_facts("call", len, ("abc",)) == 3
    crashed = isolated_facts("call", os.abort)
    assert crashed["found"] is False
    assert (
        "measuring the call facts failed" in crashed["problem"] and "SIGABRT" in crashed["problem"]
    )


def test_the_module_names_no_signal_it_cannot_name() -> None:
    assert isolate._status_text(signal.SIGKILL) == "killed by signal SIGKILL"


@pytest.mark.slow
def test_isolated_facts_sends_what_json_cannot_hold_as_its_text() -> None:
    torch = pytest.importorskip("torch")
    got = isolated_facts("call", lambda: {"dtype": torch.float32, "fn": len, "n": (1, 2)})
    assert got == {"dtype": "torch.float32", "fn": str(len), "n": [1, 2]}
