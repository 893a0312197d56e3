"""Runners owned above a single collector: one set per environment for a whole verify or batch.

A ``RunnerPool`` lends the runner an environment's jobs run on. The collector
asks it once per target (``runner_for``); resolve and the scaffold's facts ask
it for the first environment's runner, so ``import torch`` is paid once per
environment and per worker for everything the owner runs, not once per stage,
task or collector. After each target the pool may amend or redo it
(``finish_target``): the Ray pool notes the node a target ran on, and redoes a
target once elsewhere when its node was lost.

``LocalPool`` runs on this machine: ``workers`` warm workers (or fresh
interpreters) per (interpreter, device, emulation), lent round-robin; a warm worker runs one
job at a time per lane, so ``workers`` > 1 lets targets of one environment run at once, and
``lanes`` forked copies of one worker do the same without another ``import torch``. A warm worker
preloads ``preload`` (torch's test framework and compiler by default) before forking;
``warm`` starts one in the background (verify does it before its own imports).
"""

from __future__ import annotations

import itertools
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from ..emulated import runner_settings
from .interrupt import temp_dir
from .runners import Runner, default_lanes, make_runner


class EnvLike(Protocol):
    """What a pool reads of an environment (``collect.EnvSpec``)."""

    @property
    def name(self) -> str: ...

    @property
    def python(self) -> str: ...

    @property
    def emulated(self) -> str:
        """An emulated backend the environment runs with ("" when none)."""
        ...


class TargetLike(Protocol):
    """What a pool reads of a target (``collect.Target``)."""

    @property
    def label(self) -> str: ...

    @property
    def ref(self) -> str: ...

    @property
    def commit(self) -> str: ...

    @property
    def overlay(self) -> tuple[tuple[str, bytes], ...]: ...


R = TypeVar("R")


class RunnerPool(Protocol):
    def runner_for(self, env: EnvLike, device: str, target: TargetLike | None = None) -> Runner:
        """The runner for ``env`` on ``device`` (``target``: the target it is lent for, None for resolve)."""
        ...

    def finish_target(self, target: TargetLike, record: R, again: Callable[[TargetLike], R]) -> R:
        """``record`` of ``target`` as it is kept: amended, or redone once with ``again``."""
        ...

    def kill(self) -> None:
        """Stop every runner now (an interrupt): their jobs end, their processes go."""
        ...

    def close(self) -> None:
        """Shut every runner down and remove their logs."""
        ...


class LocalPool:
    """Warm workers (or fresh interpreters) on this machine, ``workers`` per (interpreter, device, emulation)."""

    def __init__(
        self,
        mode: str,
        backend_module: str,
        *,
        workers: int = 1,
        allow_cpu_fallback: bool = False,
        preload: Sequence[str] | None = None,
        lanes: int | None = None,
    ) -> None:
        self.mode = mode
        self.backend_module = backend_module
        self.allow_cpu_fallback = allow_cpu_fallback
        self.workers = max(1, workers)
        self.preload = None if preload is None else tuple(preload)
        self.lanes = default_lanes() if lanes is None else max(1, lanes)
        self._runners: dict[tuple[str, str, str], list[Runner]] = {}
        self._turn: dict[tuple[str, str, str], itertools.count[int]] = {}
        self._lock = threading.Lock()
        self._logs: Path | None = None
        #: workers started so far (each one paid interpreter start + import torch once)
        self.started = 0

    def runner_for(self, env: EnvLike, device: str, target: TargetLike | None = None) -> Runner:
        key = (env.python, device, env.emulated)
        with self._lock:
            slots = self._runners.setdefault(key, [])
            turn = next(self._turn.setdefault(key, itertools.count()))
            if len(slots) < self.workers and turn >= len(slots):
                if self._logs is None:
                    self._logs = temp_dir("workers")  # pruned with its run should the run be killed
                logs = self._logs / f"{len(self._runners)}-{len(slots)}"
                run = runner_settings(env.emulated, self.backend_module, device)
                slots.append(
                    make_runner(
                        self.mode,
                        env.python,
                        run.backend_module,
                        run.device,
                        logs,
                        self.allow_cpu_fallback,
                        run.environ,
                        preload=self.preload,
                        lanes=self.lanes,
                    )
                )
                self.started += 1
            return slots[turn % len(slots)]

    def warm(self, env: EnvLike, device: str) -> None:
        warm = getattr(self.runner_for(env, device), "warm", None)
        if warm is not None:
            warm()

    def finish_target(self, target: TargetLike, record: R, again: Callable[[TargetLike], R]) -> R:
        return record

    def kill(self) -> None:
        with self._lock:
            runners = [r for slots in self._runners.values() for r in slots]
        for r in runners:
            kill = getattr(r, "kill", None)
            if kill is not None:
                kill()

    def close(self) -> None:
        with self._lock:
            runners = [r for slots in self._runners.values() for r in slots]
            self._runners, self._turn = {}, {}
            logs, self._logs = self._logs, None
        for r in runners:
            r.close()
        if logs is not None:
            shutil.rmtree(logs, ignore_errors=True)


def preload_for(backend_module: str, testcase_import: str = "") -> tuple[str, ...]:
    """What a warm worker preloads for a backend: torch's test framework and compiler, and the
    backend's testing module (the module of the config's ``testcase_import``, when it is the
    backend's: ``from torch_npu.testing.testcase import TestCase`` gives ``torch_npu.testing.testcase``)."""
    from .runners import DEFAULT_PRELOAD

    words = testcase_import.split()
    module = words[1] if len(words) >= 2 and words[0] in ("from", "import") else ""
    if backend_module and module.split(".")[0] == backend_module.split(".")[0]:
        return (
            module,
            *DEFAULT_PRELOAD,
        )  # first: what it imports of torch's is then seen as its own
    return DEFAULT_PRELOAD


__all__ = ["EnvLike", "LocalPool", "RunnerPool", "TargetLike", "preload_for"]
