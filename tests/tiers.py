"""The fast tier's promise, enforced: a fast test imports no torch and starts no interpreter.

``TierGuard`` watches the two ways a test could break that promise:

- an import of ``torch`` (or ``torch_npu``) in the pytest process, caught by a finder placed first on
  ``sys.meta_path``;
- a new interpreter started through ``subprocess``, ``multiprocessing`` (spawn), ``os.posix_spawn`` or
  ``os.system``, caught where every one of them ends: ``_posixsubprocess.fork_exec``, ``os.posix_spawn``
  and ``os.system``.

A caught attempt is refused (``TierViolation``) and remembered, so that a test that swallows the
error still fails at its end. Programs that are not interpreters (git, sh running git) run freely.
"""

from __future__ import annotations

import _posixsubprocess
import importlib.abc
import os
import re
import subprocess
import sys
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import Any

import pytest

#: modules whose import means "this test needs torch in-process": the slow tier's business
HEAVY_MODULES = ("torch", "torch_npu")

_PYTHON_NAME = re.compile(r"^(python|pypy)[\d.]*m?$")


class TierViolation(RuntimeError):
    """A fast test did what only a slow test may do."""


def _text(arg: Any) -> str:
    if isinstance(arg, bytes):
        return arg.decode("utf-8", "replace")
    return os.fspath(arg) if isinstance(arg, os.PathLike) else str(arg)


def _shebang_names_python(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            first = fh.readline(256)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def is_interpreter(argv: Sequence[Any], executables: Iterable[Any] = ()) -> bool:
    """Whether a command starts a Python interpreter: a python binary anywhere in its argv (``env -u X
    python f.py`` too) or as the executable, or an executable script whose ``#!`` line names python."""
    words = [_text(a) for a in argv]
    paths = [_text(e) for e in executables] + [w for w in words[:1] if os.sep in w]
    if any(_PYTHON_NAME.match(os.path.basename(w)) for w in words + paths):
        return True
    return any(os.path.isfile(p) and _shebang_names_python(p) for p in paths)


def command_runs_python(command: str) -> bool:
    """Whether a shell command line (``os.system``) starts a Python interpreter."""
    return any(_PYTHON_NAME.match(os.path.basename(word)) for word in command.split())


class _HeavyImportFinder(importlib.abc.MetaPathFinder):
    def __init__(self, guard: TierGuard) -> None:
        self.guard = guard

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        if self.guard.active and fullname.split(".")[0] in HEAVY_MODULES:
            self.guard.refuse(f"import {fullname}")
        return None


class TierGuard:
    """Refuses torch imports and interpreter starts while ``active``; ``violations`` says what was tried."""

    def __init__(self) -> None:
        self.active = False
        self.violations: list[str] = []
        self._finder = _HeavyImportFinder(self)
        self._saved: list[tuple[Any, str, Callable[..., Any]]] = []

    def refuse(self, what: str) -> None:
        self.violations.append(what)
        raise TierViolation(
            f"a fast test must not {what}: mark the test slow (@pytest.mark.slow) or answer the agent "
            "through the fake runner (torchparity.exec.fake)"
        )

    def install(self) -> None:
        if self._saved:
            return
        sys.meta_path.insert(0, self._finder)
        guard = self

        def guarded_fork_exec(real: Callable[..., Any]) -> Callable[..., Any]:
            def fork_exec(args: Any, executables: Any, *rest: Any, **kw: Any) -> Any:
                if guard.active and is_interpreter(list(args or ()), list(executables or ())):
                    guard.refuse(f"start an interpreter: {' '.join(_text(a) for a in args)}")
                return real(args, executables, *rest, **kw)

            return fork_exec

        real_spawn = os.posix_spawn

        def posix_spawn(path: Any, argv: Any, *rest: Any, **kw: Any) -> Any:
            if guard.active and is_interpreter(list(argv), [path]):
                guard.refuse(f"start an interpreter: {' '.join(_text(a) for a in argv)}")
            return real_spawn(path, argv, *rest, **kw)

        real_system = os.system

        def system(command: str) -> int:
            if guard.active and command_runs_python(command):
                guard.refuse(f"start an interpreter: {command}")
            return real_system(command)

        # subprocess holds its own reference to fork_exec (``_fork_exec``); multiprocessing looks it up
        patches: list[tuple[Any, str, Callable[..., Any]]] = [
            (_posixsubprocess, "fork_exec", guarded_fork_exec(_posixsubprocess.fork_exec)),
            (os, "posix_spawn", posix_spawn),
            (os, "system", system),
        ]
        if getattr(subprocess, "_fork_exec", None) is not None:
            patches.append((subprocess, "_fork_exec", guarded_fork_exec(subprocess._fork_exec)))
        for owner, name, new in patches:
            self._saved.append((owner, name, getattr(owner, name)))
            setattr(owner, name, new)

    def uninstall(self) -> None:
        for owner, name, old in reversed(self._saved):
            setattr(owner, name, old)
        self._saved.clear()
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)

    def start(self) -> None:
        self.violations.clear()
        self.active = True

    def stop(self) -> list[str]:
        self.active = False
        return list(self.violations)


def heavy_modules_loaded() -> list[str]:
    return [name for name in HEAVY_MODULES if name in sys.modules]


__all__ = [
    "HEAVY_MODULES",
    "TierGuard",
    "TierViolation",
    "command_runs_python",
    "heavy_modules_loaded",
    "is_interpreter",
]


class FastTierPlugin:
    """The pytest side: every test not marked ``slow`` runs under an active ``TierGuard`` (its fixtures'
    setup and teardown included), and one that tried what the guard refuses fails, even if it caught the
    refusal."""

    def __init__(self) -> None:
        self.guard = TierGuard()

    def pytest_configure(self, config: Any) -> None:
        self.guard.install()
        # a run of the fast tier (the default ``-m 'not slow'``) collects no module that imports torch
        self.fast_run = (config.getoption("markexpr", "") or "").strip() == "not slow"
        # recording the real agent's answers for the fake runner (tests/fakeagent.py) is the slow way
        self.recording = bool(os.environ.get("TORCHPARITY_RECORD_AGENT"))

    def pytest_collectstart(self, collector: Any) -> None:
        if self.fast_run and isinstance(collector, pytest.Module):
            self.guard.start()

    def pytest_collectreport(self, report: Any) -> None:
        if self.fast_run:
            self.guard.stop()

    def pytest_unconfigure(self, config: Any) -> None:
        self.guard.uninstall()

    @staticmethod
    def _fast(item: Any) -> bool:
        return item.get_closest_marker("slow") is None

    def pytest_runtest_setup(self, item: Any) -> None:
        if self._fast(item) and not self.recording:
            self.guard.start()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: Any, nextitem: Any) -> Generator[None, None, None]:
        try:
            yield  # the fixtures' teardown, still guarded
        finally:
            violations = self.guard.stop() if self._fast(item) and not self.recording else []
        if violations:
            raise TierViolation(
                f"{item.nodeid} is in the fast tier but tried to {'; '.join(violations)}: mark it slow "
                "(@pytest.mark.slow) or answer the agent through the fake runner (torchparity.exec.fake)"
            )
