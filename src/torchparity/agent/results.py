"""Per-test results taken from the test runner's own result API, never from its printed text.

While a test file runs as ``__main__`` the agent watches its runner from inside:

* unittest (``unittest.main``, torch's ``run_tests``, any ``TextTestRunner``): the
  methods of ``unittest.TestResult`` are wrapped, so every result class that
  builds on it (``TextTestResult``, xmlrunner's) reports each test here as well;
  ``startTestRun``/``stopTestRun`` say that a runner started and finished;
* pytest (``pytest.main`` called by the file): a plugin receives every test
  report and ``pytest_sessionstart``/``pytest_sessionfinish``.

The results stay in the process's memory and leave it in the job's answer
file, a channel a test cannot print into. A run whose runner never said it
finished (``os._exit``, a kill, an exit before the runner ended) reports
``finished`` below ``sessions``, and the controller never calls it a pass.
"""

import unittest

#: outcomes, worst first: a test reported twice (a teardown error after a pass, a failing subtest)
#: keeps the worst
_SEVERITY = ("error", "failed", "xpass", "passed", "xfail", "skipped")


class RunnerResults(object):
    def __init__(self):
        self.tests = {}  # test id -> {"id", "outcome", "detail"}; dicts keep the order tests ran in
        self.kinds = []  # runners seen: "unittest", "pytest"
        self.sessions = 0  # runner sessions started
        self.finished = 0  # runner sessions that reported their end
        self.tests_run = 0  # tests the runners started
        self.exit_status = None  # pytest's session exit status, when pytest ran

    def _kind(self, kind):
        if kind not in self.kinds:
            self.kinds.append(kind)

    def record(self, test_id, outcome, detail=""):
        old = self.tests.get(test_id)
        if old is not None and _SEVERITY.index(old["outcome"]) <= _SEVERITY.index(outcome):
            if detail and not old["detail"]:
                old["detail"] = detail
            return
        self.tests[test_id] = {"id": test_id, "outcome": outcome,
                               "detail": detail or (old or {}).get("detail", "")}

    def to_json(self):
        return {
            "kind": "+".join(self.kinds), "sessions": self.sessions, "finished": self.finished,
            "tests_run": self.tests_run, "exit_status": self.exit_status,
        }


# -- unittest ----------------------------------------------------------------------------------

def _test_id(test):
    try:
        return str(test.id())
    except Exception:
        return repr(test)


def _error_text(result, err, test):
    try:
        return result._exc_info_to_string(err, test)
    except Exception:
        return "%s: %s" % (getattr(err[0], "__name__", err[0]), err[1])


def install_unittest(results):
    """Wrap ``unittest.TestResult``'s methods; returns the undo."""
    cls = unittest.TestResult
    saved = {}

    def wrap(name, after):
        original = getattr(cls, name)
        saved[name] = original

        def method(self, *args, **kwargs):
            value = original(self, *args, **kwargs)
            try:
                after(self, *args)
            except Exception:  # the runner must run as it would without us
                pass
            return value

        method.__name__ = name
        setattr(cls, name, method)

    def start_run(self):
        results._kind("unittest")
        results.sessions += 1

    def stop_run(self):
        results.finished += 1

    def start_test(self, test):
        results.tests_run += 1

    def failure(outcome):
        def after(self, test, err):
            results.record(_test_id(test), outcome, _error_text(self, err, test))
        return after

    def sub_test(self, test, subtest, err):
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            results.record(_test_id(test), "failed" if failed else "error", _error_text(self, err, subtest))

    wrap("startTestRun", start_run)
    wrap("stopTestRun", stop_run)
    wrap("startTest", start_test)
    wrap("addSuccess", lambda self, test: results.record(_test_id(test), "passed"))
    wrap("addFailure", failure("failed"))
    wrap("addError", failure("error"))
    wrap("addSkip", lambda self, test, reason: results.record(_test_id(test), "skipped", str(reason)))
    wrap("addExpectedFailure", lambda self, test, err: results.record(_test_id(test), "xfail"))
    wrap("addUnexpectedSuccess", lambda self, test: results.record(_test_id(test), "xpass"))
    wrap("addSubTest", sub_test)

    def undo():
        for name, original in saved.items():
            setattr(cls, name, original)

    return undo


# -- pytest ------------------------------------------------------------------------------------

def _longrepr(report):
    try:
        return str(report.longreprtext)
    except Exception:
        return ""


class PytestResults(object):
    """A pytest plugin reporting into ``RunnerResults`` (added to every ``pytest.main`` call)."""

    def __init__(self, results):
        self.results = results

    def pytest_sessionstart(self, session):
        self.results._kind("pytest")
        self.results.sessions += 1

    def pytest_sessionfinish(self, session, exitstatus):
        self.results.finished += 1
        try:
            self.results.exit_status = int(exitstatus)
        except (TypeError, ValueError):
            self.results.exit_status = None

    def pytest_collectreport(self, report):
        if report.failed:
            self.results.record(report.nodeid or "(collection)", "error", _longrepr(report))

    def pytest_runtest_logreport(self, report):
        r = self.results
        xfail = hasattr(report, "wasxfail")
        if report.when == "setup":
            r.tests_run += 1
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
