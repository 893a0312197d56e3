"""A runner that answers the agent's jobs from a handler in this process: no interpreter, no torch.

The model is httpx's ``MockTransport``: a handler takes a ``Job`` and gives its answer, and every part
that makes runners (verify, batch, resolve, scaffold, upstream) talks to the handler instead of an
interpreter while ``answering(handler)`` is active::

    def handler(job: Job) -> Answer:
        if job.op == "probe":
            return Answer({"facts": [["torch_version", "2.13.0"]], "device_type": "cpu"})
        return Answer({"exit_code": 0, "tests": [...]})

    with answering(handler) as runners:
        verify(...)
    assert [job.op for job in runners[0].jobs] == ["probe", "run_file"]

It is the seam below which the real runners (``WarmWorker``, ``FreshRunner``, Ray) start interpreters;
tests of the logic above it run in milliseconds. Evidence made through it says so in its ``how``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .runners import Job, JobResult, Runner

#: how a fake runner's evidence says it was made
HOW = "fake runner: answered in the test process by a handler (no interpreter started)"


@dataclass(frozen=True)
class Answer:
    """What the agent would have answered: its result, what it printed, how it ended."""

    result: Mapping[str, Any] = field(default_factory=dict)
    output: str = ""
    status: str = "OK"
    exit_code: int | None = None
    signal: int | None = None
    duration: float = 0.0


Handler = Callable[[Job], "Answer | JobResult | Mapping[str, Any]"]


_CURRENT = threading.local()


def current_runner() -> FakeRunner | None:
    """The fake runner whose job the calling handler answers (its ``python`` tells environments apart)."""
    return getattr(_CURRENT, "runner", None)


class FakeRunner:
    """A ``Runner`` whose jobs are answered by ``handler``; ``jobs`` keeps every job it was given."""

    mode = "fake"

    def __init__(
        self,
        handler: Handler,
        python: str = "python-fake",
        *,
        backend_module: str = "",
        device: str = "cpu",
        log_dir: Path | None = None,
    ) -> None:
        self.handler = handler
        self.python = python
        self.backend_module = backend_module
        self.device = device
        self.log_dir = log_dir
        self.jobs: list[Job] = []
        self.closed = False
        self.restarts = 0

    def run(self, job: Job) -> JobResult:
        if self.closed:
            raise RuntimeError("a closed FakeRunner was given a job")
        self.jobs.append(job)
        _CURRENT.runner = self
        try:
            answer = self.handler(job)
        finally:
            _CURRENT.runner = None
        if isinstance(answer, JobResult):
            result = answer
        else:
            if not isinstance(answer, Answer):
                answer = Answer(result=answer)
            exit_code = answer.exit_code
            if exit_code is None and answer.status == "OK":
                exit_code = int(answer.result.get("exit_code", 0) or 0)
            result = JobResult(
                op=job.op,
                status=answer.status,
                exit_code=exit_code,
                signal=answer.signal,
                duration=answer.duration,
                output=answer.output,
                result=dict(answer.result),
                how=HOW,
            )
        job.output.parent.mkdir(parents=True, exist_ok=True)
        job.output.write_text(result.output, encoding="utf-8")
        return result

    def close(self) -> None:
        self.closed = True

    def kill(self) -> None:
        self.closed = True

    def kill_now(self) -> None:
        self.closed = True


class _Installed:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.handler: Handler | None = None
        self.wrap: Callable[[Any], Any] | None = None
        self.runners: list[Any] = []


_INSTALLED = _Installed()


def installed_runner(
    python: str, backend_module: str, device: str, log_dir: Path, real: Callable[[], Runner]
) -> Runner | None:
    """What ``make_runner`` hands out while ``answering`` (a fake runner) or ``wrapping`` (the real
    runner, wrapped) is active; None otherwise."""
    with _INSTALLED.lock:
        if _INSTALLED.handler is not None:
            runner: Runner = FakeRunner(
                _INSTALLED.handler,
                python,
                backend_module=backend_module,
                device=device,
                log_dir=log_dir,
            )
        elif _INSTALLED.wrap is not None:
            runner = _INSTALLED.wrap(real())
        else:
            return None
        _INSTALLED.runners.append(runner)
        return runner


@contextmanager
def wrapping(wrap: Callable[[Any], Any]) -> Iterator[list[Any]]:
    """While active, every runner made in this process is ``wrap(real runner)`` (a recorder of the real
    agent's answers, for one)."""
    with _INSTALLED.lock:
        if _INSTALLED.handler is not None or _INSTALLED.wrap is not None:
            raise RuntimeError("a fake agent or a wrapper is already active")
        _INSTALLED.wrap = wrap
        made: list[Any] = []
        _INSTALLED.runners = made
    try:
        yield made
    finally:
        with _INSTALLED.lock:
            _INSTALLED.wrap = None
            _INSTALLED.runners = []


@contextmanager
def answering(handler: Handler) -> Iterator[list[Any]]:
    """While active, every runner made in this process is a ``FakeRunner`` over ``handler``; yields the
    list of runners made, in order."""
    with _INSTALLED.lock:
        if _INSTALLED.handler is not None or _INSTALLED.wrap is not None:
            raise RuntimeError("answering() is already active: one fake agent at a time")
        _INSTALLED.handler = handler
        made: list[Any] = []
        _INSTALLED.runners = made
    try:
        yield made
    finally:
        with _INSTALLED.lock:
            _INSTALLED.handler = None
            _INSTALLED.runners = []


__all__ = [
    "HOW",
    "Answer",
    "FakeRunner",
    "Handler",
    "answering",
    "current_runner",
    "installed_runner",
    "wrapping",
]
