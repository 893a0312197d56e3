"""Import once, before the warm worker forks, what every test job would import anyway.

A test file built on torch's ``TestCase`` imports torch's test framework
(``torch.testing._internal.common_utils``, directly or through the backend's testing module), and
``TestCase.run`` imports ``torch._dynamo`` in every test: seconds per job when each forked child
pays them again. ``preload`` imports them in the worker, then forks stay cheap.

Three rules keep a job's run what ``python FILE`` would give:

* the device is not initialised: every watched device runtime is checked before and after each
  import (CUDA's availability check goes through NVML while importing, as torch allows, so that it
  does not poison the fork); an import that initialises one is reported and the controller restarts
  the worker without it;
* torch's test framework is preloaded only where it reads its command line when ``run_tests`` runs
  (``parse_cmd_line_args``), not when it is imported (older torch read the worker's argv at import);
* what importing the test framework changes that a test can see (it freezes ``torch.backends``
  flags, wraps TorchScript calls, binds ``__main__``) is undone in the worker and done again in the
  job at the moment the test's own code first imports the framework, or a module that imports it, as
  a fresh interpreter would do it then (``Replay``). A plain unittest file never sees it.
"""

from __future__ import annotations

import builtins
import os
import sys
import threading
import time
from types import ModuleType
from typing import Any, Iterable, Mapping, Sequence

from .protocol import Json, TorchModule

TORCH_TESTING = "torch.testing._internal.common_utils"
#: torch's availability check that does not initialise the CUDA driver in the worker
NVML_CHECK = "PYTORCH_NVML_BASED_CUDA_CHECK"


def _watched_devices(torch: TorchModule, device_type: str) -> list[str]:
    out: list[str] = []
    for name in (device_type, "cuda", "xpu"):
        if name and name != "cpu" and name not in out:
            out.append(name)
    return out


def _initialised(torch: TorchModule, devices: Sequence[str]) -> list[str]:
    from . import backend

    return [d for d in devices if backend.device_initialized(torch, d)]


def reads_argv_late() -> bool:
    """Whether torch's test framework parses the command line in ``run_tests`` (not at import)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(TORCH_TESTING)
    except (ImportError, ValueError):
        return False
    if spec is None or not spec.origin:
        return False
    try:
        with open(spec.origin, "rb") as fh:
            return b"def parse_cmd_line_args(" in fh.read()
    except OSError:
        return False


class _ImportGraph(object):
    """Which module's code imported which, while preloading (``builtins.__import__`` wrapped)."""

    def __init__(self) -> None:
        self.edges: dict[str, set[str]] = {}  # importer -> absolute names it imported
        self._original: Any = None

    def __enter__(self) -> _ImportGraph:
        original = self._original = builtins.__import__
        edges = self.edges

        def traced(
            name: str,
            globals: Mapping[str, Any] | None = None,
            locals: Mapping[str, Any] | None = None,
            fromlist: Sequence[str] | None = (),
            level: int = 0,
        ) -> ModuleType:
            importer = (globals or {}).get("__name__") or ""
            target = _absolute(name, globals, level)
            if importer and target:
                got = edges.setdefault(importer, set())
                got.add(target)
                for item in fromlist or ():
                    if item != "*":
                        got.add(target + "." + item)
            return original(name, globals, locals, fromlist, level)

        builtins.__import__ = traced
        return self

    def __exit__(self, *exc: object) -> None:
        builtins.__import__ = self._original

    def reaching(self, goal: str) -> set[str]:
        """Every module whose imports lead to ``goal`` (``goal`` included)."""
        reverse: dict[str, set[str]] = {}
        for importer, targets in self.edges.items():
            for t in targets:
                reverse.setdefault(t, set()).add(importer)
        out, todo = {goal}, [goal]
        while todo:
            for importer in reverse.get(todo.pop(), ()):
                if importer not in out:
                    out.add(importer)
                    todo.append(importer)
        return out


def _absolute(name: str, globals: Mapping[str, Any] | None, level: int) -> str:
    if not level:
        return name
    package = (globals or {}).get("__package__") or ""
    bits = package.rsplit(".", level - 1)
    if len(bits) < level:
        return ""
    base = bits[0]
    return "%s.%s" % (base, name) if name else base


class Replay(object):
    """What importing torch's test framework changed, undone in the worker and done again in a job
    when its code first imports a module in ``triggers``."""

    def __init__(self, torch: TorchModule, triggers: Iterable[str], main_module: Any) -> None:
        self.torch = torch
        self.triggers = frozenset(triggers)
        self.main_module = main_module
        self.changes: list[tuple[Any, str, Any, Any]] = []  # (owner, attribute, before, after)
        self._original: Any = None

    def watch(self) -> list[tuple[Any, str, Any]]:
        """The attributes to compare before and after the import: (owner, name, value)."""
        t = self.torch
        spots = []
        freeze = getattr(t.backends, "disable_global_flags", None)
        if freeze is not None:  # the flag lives in the globals its functions read
            spots.append((freeze.__globals__, "__allow_nonbracketed_mutation_flag"))
        for cls_name in ("ScriptFunction", "ScriptMethod"):
            cls = getattr(t._C, cls_name, None)
            if cls is not None:
                spots.append((cls, "__call__"))
        return [(owner, name, _get(owner, name)) for owner, name in spots]

    def record(self, watched: list[tuple[Any, str, Any]]) -> None:
        for owner, name, before in watched:
            after = _get(owner, name)
            if after is not before and after != before:
                self.changes.append((owner, name, before, after))
                _set(owner, name, before)  # the worker and every job start as a fresh interpreter

    def arm(self) -> None:
        """In a job: do the changes again at the first import of a trigger (a no-op otherwise)."""
        original = self._original = builtins.__import__
        replay = self

        def watching(
            name: str,
            globals: Mapping[str, Any] | None = None,
            locals: Mapping[str, Any] | None = None,
            fromlist: Sequence[str] | None = (),
            level: int = 0,
        ) -> ModuleType:
            target = _absolute(name, globals, level)
            if target in replay.triggers or any(
                target + "." + item in replay.triggers for item in fromlist or ()
            ):
                replay.fire()
            return original(name, globals, locals, fromlist, level)

        builtins.__import__ = watching

    def fire(self) -> None:
        if self._original is not None:
            builtins.__import__ = self._original
            self._original = None
        for owner, name, _before, after in self.changes:
            _set(owner, name, after)
        main = sys.modules.get("__main__")
        for mod_name in self.triggers:
            mod: Any = sys.modules.get(mod_name)
            if mod is not None and getattr(mod, "__main__", None) is self.main_module:
                mod.__main__ = main


_MISSING = object()


def _get(owner: Any, name: str) -> Any:
    if isinstance(owner, dict):
        return owner.get(name, _MISSING)
    if isinstance(owner, type):
        return owner.__dict__.get(name, _MISSING)
    return getattr(owner, name, _MISSING)


def _set(owner: Any, name: str, value: Any) -> None:
    if isinstance(owner, dict):
        if value is _MISSING:
            owner.pop(name, None)
        else:
            owner[name] = value
    elif value is _MISSING:
        try:
            delattr(owner, name)
        except AttributeError:
            pass
    else:
        setattr(owner, name, value)


def _states(device_type: str) -> dict[str, Any]:
    """The registry's states now (those this torch has)."""
    from . import state

    try:
        specs, _ = state.usable(state.registry(device_type or "cpu"))
        return state.snapshot(specs)
    except Exception:
        return {}


def preload(
    torch: TorchModule, modules: Sequence[str], device_type: str
) -> tuple[list[Json], Replay | None]:
    """Import ``modules`` (in order) in this process; returns (report, replay or None).

    ``report``: one dict per module: name, status (imported | skipped | failed), seconds, why;
    ``initialised`` names the devices a module's import initialised (the worker must not fork then).
    """
    devices = _watched_devices(torch, device_type)
    report: list[Json] = []
    graph = _ImportGraph()
    replay = None
    late = None
    saved = os.environ.get(NVML_CHECK)
    os.environ[NVML_CHECK] = "1"
    threads = threading.active_count()
    states = _states(device_type)
    try:
        for name in modules:
            entry: Json = {"module": name, "status": "imported", "seconds": 0.0, "why": ""}
            report.append(entry)
            if name in sys.modules:
                entry["why"] = "already imported"
                continue
            testing = name == TORCH_TESTING or name.split(".")[0] != "torch"
            if testing:
                if late is None:
                    late = reads_argv_late()
                if not late:
                    entry.update(
                        status="skipped",
                        why="this torch's test framework reads the command line "
                        "when imported (no parse_cmd_line_args)",
                    )
                    continue
            before = set(_initialised(torch, devices))
            watched = Replay(torch, (), None).watch() if TORCH_TESTING not in sys.modules else None
            started = time.monotonic()
            try:
                with graph:
                    __import__(name)
            except BaseException as exc:  # a missing optional module is not the worker's failure
                entry.update(status="failed", why="%s: %s" % (type(exc).__name__, exc))
            entry["seconds"] = round(time.monotonic() - started, 4)
            if watched is not None and TORCH_TESTING in sys.modules:
                replay = Replay(torch, graph.reaching(TORCH_TESTING), sys.modules.get("__main__"))
                replay.record(watched)
            now = [d for d in _initialised(torch, devices) if d not in before]
            if now:
                entry["initialised"] = now
    finally:
        if saved is None:
            os.environ.pop(NVML_CHECK, None)
        else:
            os.environ[NVML_CHECK] = saved
    if replay is not None:  # modules that imported the framework later (the backend's) trigger it
        replay.triggers = frozenset(replay.triggers | graph.reaching(TORCH_TESTING))
    warnings = []
    changed = sorted(k for k, v in _states(device_type).items() if states.get(k) != v)
    if changed:
        warnings.append(("(state)", "the imports changed %s" % ", ".join(changed)))
    added = threading.active_count() - threads
    if added > 0:
        warnings.append(("(threads)", "the imports started %d thread(s) before the fork" % added))
    report += [{"module": m, "status": "warning", "seconds": 0.0, "why": w} for m, w in warnings]
    return report, replay
