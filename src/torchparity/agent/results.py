"""Per-test results taken by the agent's own result object (and a pytest plugin).

While a test file runs as ``__main__`` the agent watches its runner from inside:

* unittest (``unittest.main``, torch's ``run_tests``, any ``TextTestRunner``): the outermost
  ``TestSuite.run`` (or a ``TestCase.run`` outside any suite) is given ``AgentResult``, the agent's
  own result object, in place of the runner's. Every call unittest makes on a result (``startTest``,
  ``addSuccess``, ``addFailure``, ``addError``, ``addSkip``, ``addSubTest``, ...) is recorded there
  first and then passed on to the runner's object, so a result class that drops a call (an
  ``addFailure`` that does nothing) cannot hide an outcome. The suite's tests are listed before it
  runs; at its end the agent names those that never ran, says what left the suite early
  (``sys.exit(0)`` in a ``setUpClass``), and compares the runner's object's own counts with its own.
  ``startTestRun``/``stopTestRun`` say that a runner started and finished;
* pytest (``pytest.main`` called by the file): a plugin receives the collected items, every test
  report and ``pytest_sessionstart``/``pytest_sessionfinish``.

The results stay in the process's memory and leave it once, over the job's signed answer pipe
(``answer.py``). A run whose runner never said it finished (``os._exit``, a kill, an exit before the
runner ended) reports ``finished`` below ``sessions``, and the controller never calls it a pass.
"""

from __future__ import annotations

import os
import re
import unittest
from types import TracebackType
from typing import Any, Callable, Dict, List, Tuple, Type

from .protocol import Json

#: what ``sys.exc_info()`` gives unittest's ``addFailure``/``addError``
ExcInfo = Tuple[Type[BaseException], BaseException, TracebackType]
#: (test id, class, module) of a test a runner was given
Given = List[Tuple[str, str, str]]

#: outcomes, worst first: a test reported twice (a teardown error after a pass, a failing subtest)
#: keeps the worst
_SEVERITY = ("error", "failed", "xpass", "passed", "xfail", "skipped")


class RunnerResults(object):
    def __init__(self) -> None:
        self.tests: dict[str, Json] = {}  # test id -> {"id", "outcome", "detail"}, in run order
        self.kinds: list[str] = []  # runners seen: "unittest", "pytest"
        self.sessions = 0  # runner sessions started
        self.finished = 0  # runner sessions that reported their end
        self.tests_run = 0  # tests the runners started
        self.exit_status: int | None = None  # pytest's session exit status, when pytest ran
        self.planned = 0  # tests the runners were given (a top-level suite's tests, pytest's items)
        self.started: dict[str, bool] = {}  # test id -> True, in the order the tests started
        #: tests a runner was given that never started and no fixture answered for
        self.not_run: dict[str, bool] = {}
        #: what left a suite before its end: "SystemExit(0) raised in setUpClass (f.py:9)"
        self.left_by: list[str] = []
        #: where a runner's own result object's counts differ from the agent's
        self.result_objects: list[Json] = []
        self.depth = 0  # top-level suites (or tests) running now under the agent's result object

    def _kind(self, kind: str) -> None:
        if kind not in self.kinds:
            self.kinds.append(kind)

    def start(self, test_id: str) -> None:
        self.tests_run += 1
        self.started[test_id] = True

    def record(self, test_id: str, outcome: str, detail: str = "") -> None:
        old = self.tests.get(test_id)
        if old is not None and _SEVERITY.index(old["outcome"]) <= _SEVERITY.index(outcome):
            if detail and not old["detail"]:
                old["detail"] = detail
            return
        self.tests[test_id] = {
            "id": test_id,
            "outcome": outcome,
            "detail": detail or (old or {}).get("detail", ""),
        }

    def to_json(self) -> Json:
        return {
            "kind": "+".join(self.kinds),
            "sessions": self.sessions,
            "finished": self.finished,
            "tests_run": self.tests_run,
            "exit_status": self.exit_status,
            "planned": self.planned,
            "not_run": list(self.not_run),
            # started, but no outcome reached the agent
            "unreported": [t for t in self.started if t not in self.tests],
            "left_by": list(self.left_by),
            "result_objects": list(self.result_objects),
        }


# -- unittest ----------------------------------------------------------------------------------


def _test_id(test: unittest.TestCase) -> str:
    try:
        return str(test.id())
    except Exception:
        return repr(test)


def _error_text(result: Any, err: ExcInfo, test: unittest.TestCase) -> str:
    try:
        return str(result._exc_info_to_string(err, test))
    except Exception:
        return "%s: %s" % (getattr(err[0], "__name__", err[0]), err[1])


def _class_name(test: unittest.TestCase) -> str:
    cls = type(test)
    return "%s.%s" % (cls.__module__, getattr(cls, "__qualname__", cls.__name__))


#: a class or module fixture's outcome, as unittest names it (``_ErrorHolder``): its tests do not start
_FIXTURE = re.compile(r"^(?:setUpClass|setUpModule) \((.*)\)$")


def _listed(suite: unittest.BaseTestSuite, out: Given | None = None) -> Given:
    """(id, class, module) of every test in ``suite``, nested suites included, before it runs."""
    out = [] if out is None else out
    try:
        items = list(suite)
    except Exception:
        return out
    for item in items:
        if item is None:
            continue
        if isinstance(item, unittest.BaseTestSuite):
            _listed(item, out)
        else:
            out.append((_test_id(item), _class_name(item), type(item).__module__))
    return out


def _where(exc: BaseException) -> str:
    """What left a suite: the exception and the innermost frame it was raised in."""
    tb, last = exc.__traceback__, None
    while tb is not None:
        last, tb = tb, tb.tb_next
    if last is None:
        return repr(exc)
    code = last.tb_frame.f_code
    return "%r raised in %s (%s:%d)" % (
        exc,
        code.co_name,
        os.path.basename(code.co_filename),
        last.tb_lineno,
    )


def _bad_count(result: unittest.TestResult) -> int | None:
    """Failures, errors and unexpected successes the runner's own result object holds (None: it has no lists)."""
    try:
        return (
            len(result.failures)
            + len(result.errors)
            + len(getattr(result, "unexpectedSuccesses", ()))
        )
    except Exception:
        return None


def _tests_run(result: unittest.TestResult) -> int | None:
    value = getattr(result, "testsRun", None)
    return value if isinstance(value, int) else None


class _Run(object):
    """One top-level run under the agent's result object: the tests it was given, what happened."""

    def __init__(self, results: RunnerResults, real: unittest.TestResult, given: Given) -> None:
        self.results = results
        self.real = real
        self.given = given
        self.started: set[str] = set()
        self.fixtures: set[str] = set()  # classes and modules whose setUp fixture gave an outcome
        self.bad = 0  # failures, errors and unexpected successes unittest reported
        self.count = 0  # tests that started
        self.real_run = _tests_run(real)
        self.real_bad = _bad_count(real)
        results.planned += len(given)

    def start(self, test: unittest.TestCase) -> None:
        tid = _test_id(test)
        self.count += 1
        self.started.add(tid)
        self.results.start(tid)

    def outcome(self, test: unittest.TestCase, outcome: str, detail: str = "") -> None:
        tid = _test_id(test)
        if outcome in ("failed", "error", "xpass"):
            self.bad += 1
        fixture = _FIXTURE.match(tid)
        if fixture:
            self.fixtures.add(fixture.group(1))
        self.results.record(tid, outcome, detail)

    def end(self, exc: BaseException | None) -> None:
        results = self.results
        if exc is not None:
            results.left_by.append(_where(exc))
        for tid, cls, module in self.given:
            if tid in self.started or cls in self.fixtures or module in self.fixtures:
                continue
            results.not_run[tid] = True
        name = type(self.real).__name__
        for what, now, then, agent in (
            ("tests_run", _tests_run(self.real), self.real_run, self.count),
            ("bad", _bad_count(self.real), self.real_bad, self.bad),
        ):
            if now is not None and then is not None and now - then != agent:
                row = {"what": what, "result_class": name, "runner": now - then, "agent": agent}
                results.result_objects.append(row)


#: a hook: (the run, the runner's result object, the arguments of unittest's call)
Hook = Callable[..., None]


def _on_start(run: _Run, real: unittest.TestResult, test: unittest.TestCase, *rest: Any) -> None:
    run.start(test)


def _on_failure(outcome: str) -> Hook:
    def hook(run: _Run, real: Any, test: unittest.TestCase, err: ExcInfo, *rest: Any) -> None:
        run.outcome(test, outcome, _error_text(real, err, test))

    return hook


def _on_subtest(
    run: _Run, real: Any, test: unittest.TestCase, subtest: Any, err: ExcInfo | None, *rest: Any
) -> None:
    if err is not None:
        failed = issubclass(err[0], test.failureException)
        run.outcome(test, "failed" if failed else "error", _error_text(real, err, subtest))


#: what the agent records of each call unittest makes on a result, before passing it on
_HOOKS: Dict[str, Hook] = {
    "startTest": _on_start,
    "addSuccess": lambda run, real, test, *rest: run.outcome(test, "passed"),
    "addFailure": _on_failure("failed"),
    "addError": _on_failure("error"),
    "addSkip": lambda run, real, test, reason, *rest: run.outcome(test, "skipped", str(reason)),
    "addExpectedFailure": lambda run, real, test, *rest: run.outcome(test, "xfail"),
    "addUnexpectedSuccess": lambda run, real, test, *rest: run.outcome(test, "xpass"),
    "addSubTest": _on_subtest,
}


class AgentResult(object):
    """The agent's own result object: unittest is given it in place of the runner's.

    Each call in ``_HOOKS`` is recorded, then passed on to the runner's object; every other
    attribute (read, set, deleted) is the runner's object's own, and ``isinstance`` sees its class,
    so the runner and its tests behave as they would without the agent. A method the runner's
    object lacks is lacking here too (unittest asks ``hasattr(result, "addSubTest")``).
    """

    def __init__(self, real: unittest.TestResult, run: _Run) -> None:
        object.__setattr__(self, "_tp_real", real)
        object.__setattr__(self, "_tp_run", run)

    @property  # type: ignore[misc]  # isinstance(result, unittest.TestResult) as for the runner's object
    def __class__(self) -> type:
        return type(object.__getattribute__(self, "_tp_real"))

    def __getattr__(self, name: str) -> Any:
        real = object.__getattribute__(self, "_tp_real")
        value = getattr(real, name)
        hook = _HOOKS.get(name)
        if hook is None or not callable(value):
            return value
        run = object.__getattribute__(self, "_tp_run")

        def method(*args: Any, **kwargs: Any) -> Any:
            try:
                hook(run, real, *args)
            except Exception:  # the runner must run as it would without us
                pass
            return value(*args, **kwargs)

        return method

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_tp_real"), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(object.__getattribute__(self, "_tp_real"), name)

    def __repr__(self) -> str:
        return repr(object.__getattribute__(self, "_tp_real"))


def _top_level(results: RunnerResults, result: Any) -> bool:
    """Whether a run given ``result`` is the start of a runner's run the agent watches."""
    return (
        not results.depth
        and result is not None
        and type(result) is not AgentResult
        and isinstance(result, unittest.TestResult)
    )


def _watched(
    results: RunnerResults, real: unittest.TestResult, given: Given, call: Callable[[Any], Any]
) -> Any:
    """Run ``call(agent_result)`` as one top-level run; the runner's object comes back where it was."""
    run = _Run(results, real, given)
    agent_result = AgentResult(real, run)
    results.depth += 1
    exc = None
    try:
        value = call(agent_result)
    except BaseException as error:
        exc = error
        raise
    finally:
        results.depth -= 1
        run.end(exc)
    return real if value is agent_result else value


def install_unittest(results: RunnerResults) -> Callable[[], None]:
    """Give unittest the agent's result object at the top of every run; returns the undo."""
    saved: list[tuple[type, str, Any]] = []

    def patch(cls: type, name: str, make: Callable[[Any], Any]) -> None:
        original = cls.__dict__[name]
        saved.append((cls, name, original))
        setattr(cls, name, make(original))

    def suite_run(original: Any) -> Any:
        def run(self: unittest.BaseTestSuite, result: Any, *args: Any, **kwargs: Any) -> Any:
            debug = args[0] if args else kwargs.get("debug", False)
            if debug or not _top_level(results, result):
                return original(self, result, *args, **kwargs)
            return _watched(
                results, result, _listed(self), lambda r: original(self, r, *args, **kwargs)
            )

        return run

    def case_run(original: Any) -> Any:
        def run(self: unittest.TestCase, result: Any = None) -> Any:
            if not _top_level(results, result):  # inside a watched suite, or a test's own runner
                return original(self, result)
            given = [(_test_id(self), _class_name(self), type(self).__module__)]
            return _watched(results, result, given, lambda r: original(self, r))

        return run

    def start_run(original: Any) -> Any:
        def startTestRun(self: unittest.TestResult, *args: Any, **kwargs: Any) -> Any:
            if not results.depth:  # a runner a test starts inside its run is not the file's
                results._kind("unittest")
                results.sessions += 1
            return original(self, *args, **kwargs)

        return startTestRun

    def stop_run(original: Any) -> Any:
        def stopTestRun(self: unittest.TestResult, *args: Any, **kwargs: Any) -> Any:
            value = original(self, *args, **kwargs)
            if not results.depth:
                results.finished += 1
            return value

        return stopTestRun

    patch(unittest.BaseTestSuite, "run", suite_run)
    patch(unittest.TestSuite, "run", suite_run)
    patch(unittest.TestCase, "run", case_run)
    patch(unittest.TestResult, "startTestRun", start_run)
    patch(unittest.TestResult, "stopTestRun", stop_run)

    def undo() -> None:
        for cls, name, original in reversed(saved):
            setattr(cls, name, original)

    return undo


# -- pytest ------------------------------------------------------------------------------------


def _longrepr(report: Any) -> str:
    try:
        return str(report.longreprtext)
    except Exception:
        return ""


class PytestResults(object):
    """A pytest plugin reporting into ``RunnerResults`` (added to every ``pytest.main`` call)."""

    def __init__(self, results: RunnerResults) -> None:
        self.results = results
        self.items: list[str] = []  # node ids collected for this session, before it runs them

    def pytest_sessionstart(self, session: Any) -> None:
        self.results._kind("pytest")
        self.results.sessions += 1

    def pytest_collection_finish(self, session: Any) -> None:
        self.items = [str(item.nodeid) for item in getattr(session, "items", ()) or ()]
        self.results.planned += len(self.items)

    def pytest_sessionfinish(self, session: Any, exitstatus: Any) -> None:
        r = self.results
        r.finished += 1
        try:
            r.exit_status = int(exitstatus)
        except (TypeError, ValueError):
            r.exit_status = None
        for nodeid in self.items:
            if nodeid not in r.started and nodeid not in r.tests:
                r.not_run[nodeid] = True

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.results.record(report.nodeid or "(collection)", "error", _longrepr(report))

    def pytest_runtest_logreport(self, report: Any) -> None:
        r = self.results
        xfail = hasattr(report, "wasxfail")
        if report.when == "setup":
            r.start(report.nodeid)
            if report.failed:
                r.record(report.nodeid, "error", _longrepr(report))
            elif report.skipped:
                r.record(report.nodeid, "xfail" if xfail else "skipped", _longrepr(report))
        elif report.when == "call":
            if report.passed:
                r.record(report.nodeid, "xpass" if xfail else "passed")
            elif report.failed:
                r.record(report.nodeid, "failed", _longrepr(report))
            else:
                r.record(report.nodeid, "xfail" if xfail else "skipped", _longrepr(report))
        elif report.failed:  # teardown
            r.record(report.nodeid, "error", _longrepr(report))
