"""Run a test file the way ``python FILE ARGS`` runs it, and the isolation probe.

* ``run_as_main``: the file runs as ``__main__`` with its own argv and its folder first on
  ``sys.path``; its ``if __name__ == "__main__"`` entry decides how (unittest.main, torch's
  run_tests, pytest.main). While it runs, every test method is wrapped by a state snapshot before
  and after (leak detection): ``unittest.TestCase.run`` for unittest-style tests, a pytest plugin
  for pytest-style ones. Nothing is restored between tests, so the results are exactly those of a
  plain run. Each test's outcome comes from the agent's own result object, which unittest is given
  in place of the runner's, and from a pytest plugin (``results.py``), never from the text the run
  prints; the tests a runner was given are listed before it runs, so that those that never ran are
  named.
* ``isolation``: the selected tests run once from every start value of one state, as the community's
  isolation probe does.
"""

from __future__ import annotations

import fnmatch
import importlib.abc
import importlib.util
import os
import runpy
import sys
import traceback
import unittest
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any, Callable, Iterator, Sequence, TypeVar

from . import results as results_mod
from . import state as state_mod
from .protocol import Json
from .state import Specs

T = TypeVar("T")


class LeakRecorder(object):
    def __init__(self, specs: Specs) -> None:
        self.specs = specs
        self.leaks: list[Json] = []  # [{"test": id, "state": name, "before": v, "after": v}]
        self.tests_seen = 0

    def around(self, test_id: str, fn: Callable[[], T]) -> T:
        before = state_mod.snapshot(self.specs)
        try:
            return fn()
        finally:
            self.compare(test_id, before)

    def compare(self, test_id: str, before: Json) -> None:
        """One more test ran: each state whose value is not the one it had ``before`` leaked."""
        self.tests_seen += 1
        after = state_mod.snapshot(self.specs)
        for name in sorted(before):
            if before[name] != after.get(name):
                leak = {"test": test_id, "state": name, "before": before[name]}
                self.leaks.append(dict(leak, after=after.get(name)))

    def answer(self, code: int, results: results_mod.RunnerResults) -> Json:
        """A run's answer: its exit code, the leaks, and each test's outcome as its runner said."""
        return {
            "exit_code": code,
            "leaks": self.leaks,
            "tests_seen": self.tests_seen,
            "tests": list(results.tests.values()),
            "runner": results.to_json(),
        }


def _install_unittest_hook(recorder: LeakRecorder) -> Callable[[], None]:
    original = unittest.TestCase.run

    def run(self: unittest.TestCase, result: Any = None) -> Any:
        return recorder.around(self.id(), lambda: original(self, result))

    unittest.TestCase.run = run  # type: ignore[method-assign]
    return lambda: setattr(unittest.TestCase, "run", original)


def _pytest_plugin(pytest: Any, recorder: LeakRecorder) -> object:
    class LeakPlugin(object):
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> Iterator[None]:
            before = state_mod.snapshot(recorder.specs)
            yield
            recorder.compare(item.nodeid, before)

    return LeakPlugin()


def _patch_pytest_main(
    pytest: Any, recorder: LeakRecorder, results: results_mod.RunnerResults
) -> Any:
    original = pytest.main

    def main(args: Any = None, plugins: Any = None, **kwargs: Any) -> Any:
        plugins = list(plugins or []) + [
            _pytest_plugin(pytest, recorder),
            results_mod.PytestResults(results),
        ]
        return original(args, plugins, **kwargs)

    pytest.main = main
    return original


class _PytestWatcher(importlib.abc.MetaPathFinder):
    """Patches ``pytest.main`` when (and only when) the test file imports pytest."""

    def __init__(self, recorder: LeakRecorder, results: results_mod.RunnerResults) -> None:
        self.recorder = recorder
        self.results = results
        self.original_main: Any = None

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != "pytest":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("pytest")
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        watcher = self
        exec_module = loader.exec_module

        def patched_exec(module: ModuleType) -> None:
            exec_module(module)
            watcher.original_main = _patch_pytest_main(module, watcher.recorder, watcher.results)

        loader.exec_module = patched_exec  # type: ignore[method-assign]
        return spec


def _install_pytest_hook(
    recorder: LeakRecorder, results: results_mod.RunnerResults
) -> Callable[[], None]:
    """Add the leak and results plugins to every ``pytest.main`` call the file makes."""
    pytest = sys.modules.get("pytest")
    if pytest is not None:
        original = _patch_pytest_main(pytest, recorder, results)
        return lambda: setattr(pytest, "main", original)
    watcher = _PytestWatcher(recorder, results)
    sys.meta_path.insert(0, watcher)

    def undo() -> None:
        if watcher in sys.meta_path:
            sys.meta_path.remove(watcher)
        mod: Any = sys.modules.get("pytest")
        if mod is not None and watcher.original_main is not None:
            mod.main = watcher.original_main

    return undo


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):  # bool included: unittest.main exits with a bool
        return int(code)
    sys.stderr.write("%s\n" % (code,))
    return 1


def run_as_main(path: str, argv: Sequence[str], specs: Specs, module: bool = False) -> Json:
    """Run ``path`` as ``__main__`` (``python FILE ARGV``), or with ``module`` as ``python -m unittest
    MODULE.SELECTOR ... -v`` from the file's folder: a file whose main block runs no tests (it says
    to run it through another file) has its tests run by unittest's own command line.

    Returns {"exit_code", "leaks", "tests_seen", "tests", "runner"}: ``tests`` holds each test's
    outcome as its runner reported it, ``runner`` how many runner sessions started and finished.
    """
    recorder = LeakRecorder(specs)
    results = results_mod.RunnerResults()
    undo = [
        _install_unittest_hook(recorder),
        _install_pytest_hook(recorder, results),
        results_mod.install_unittest(results),
    ]
    sys.path[0] = os.path.dirname(os.path.abspath(path))
    if module:
        name = os.path.splitext(os.path.basename(path))[0]
        sys.argv = ["python -m unittest"] + [
            a if a.startswith("-") else "%s.%s" % (name, a) for a in argv
        ]
    else:
        sys.argv = [path] + list(argv)
    try:
        try:
            if module:
                runpy.run_module("unittest", run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(path, run_name="__main__")
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc.code)
        except BaseException:
            traceback.print_exc()
            code = 1
    finally:
        for fn in reversed(undo):  # the last hook installed wraps the ones before it
            fn()
        sys.stdout.flush()
        sys.stderr.flush()
    return recorder.answer(code, results)


# -- isolation probe -------------------------------------------------------------------


def _matches(test_id: str, pattern: str) -> bool:
    if "*" in pattern:
        return fnmatch.fnmatchcase(test_id, pattern)
    return pattern in test_id


def _iter_tests(suite: unittest.TestSuite) -> Iterator[unittest.TestCase]:
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _iter_tests(item)
        else:
            yield item


def _load_module(path: str) -> ModuleType:
    name = os.path.splitext(os.path.basename(path))[0]
    sys.path[0] = os.path.dirname(os.path.abspath(path))
    sys.argv = [path]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # not a Python source file
        raise ImportError("%s cannot be loaded as a module" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


#: the pattern of a selection by id: every test whose id ends with one of the given ``Class.test``
BY_ID = "by id"


def select_tests(
    module: ModuleType, patterns: Sequence[str], tests: Sequence[str] | None = None
) -> tuple[str | None, list[str]]:
    """(pattern used, test ids): with ``tests`` (``Class.test`` selectors) exactly those (BY_ID);
    else the first pattern selecting anything wins; else all tests."""
    all_ids = [t.id() for t in _iter_tests(unittest.defaultTestLoader.loadTestsFromModule(module))]
    if tests:
        ends = tuple("." + t for t in tests)
        return BY_ID, [i for i in all_ids if i.endswith(ends)]
    for pattern in patterns:
        chosen = [i for i in all_ids if _matches(i, pattern)]
        if chosen:
            return pattern, chosen
    return None, all_ids


def _suite(module: ModuleType, ids: Sequence[str]) -> unittest.TestSuite:
    wanted = set(ids)
    tests = [
        t
        for t in _iter_tests(unittest.defaultTestLoader.loadTestsFromModule(module))
        if t.id() in wanted
    ]
    return unittest.TestSuite(tests)


def isolation(
    path: str,
    state_name: str,
    patterns: Sequence[str],
    device_type: str,
    tests: Sequence[str] | None = None,
) -> Json:
    """Run the selected tests from each start value of ``state_name``; returns the record."""
    specs = state_mod.registry(device_type)
    spec = specs.get(state_name)
    if spec is None:  # e.g. autocast for the run's device when that device is the cpu
        return {
            "state": state_name,
            "title": state_mod.STATE_TITLES.get(state_name, state_name.upper()),
            "runs": [],
            "passed": True,
            "skipped": "no %s state when the device is %s" % (state_name, device_type),
        }
    record: Json = {"state": state_name, "title": spec.title, "runs": [], "skipped": ""}
    why = spec.available()
    if why:
        record["skipped"] = why
        record["passed"] = True
        return record
    try:
        module = _load_module(path)
    except BaseException:  # the file does not import: nothing can start from any value
        traceback.print_exc()
        sys.stderr.flush()
        record["error"] = "the test file could not be imported (traceback above)"
        record["passed"] = False
        return record
    pattern, ids = select_tests(module, patterns, tests)
    record["selection"] = {"pattern": pattern, "tests": ids, "patterns": list(patterns)}
    record["original"] = spec.get()
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=2)
    ok = True
    for value in spec.values(device_type):
        undo = spec.push(value)
        try:
            before = spec.get()
            result = runner.run(_suite(module, ids))
            after = spec.get()
        finally:
            undo()
        run = {
            "initial": state_mod._jsonable(value),
            "before": before,
            "after": after,
            "tests_run": result.testsRun,
            "successful": bool(result.wasSuccessful()) and result.testsRun > 0,
        }
        ok = ok and run["successful"] and before == after
        record["runs"].append(run)
    record["final"] = spec.get()
    record["passed"] = bool(ok and record["final"] == record["original"] and record["runs"])
    sys.stdout.flush()
    sys.stderr.flush()
    return record
