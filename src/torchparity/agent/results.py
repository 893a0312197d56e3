"""Per-test results taken by the agent's own result object, and the channel that carries a job's answer.

While a test file runs as ``__main__`` the agent watches its runner from inside:

* unittest (``unittest.main``, torch's ``run_tests``, any ``TextTestRunner``): the outermost
  ``TestSuite.run`` (or a ``TestCase.run`` outside any suite) is given ``AgentResult``, the
  agent's own result object, in place of the runner's. Every call unittest makes on a result
  (``startTest``, ``addSuccess``, ``addFailure``, ``addError``, ``addSkip``, ``addSubTest``, ...)
  is recorded there first and then passed on to the runner's object, so a result class that drops
  a call (an ``addFailure`` that does nothing) cannot hide an outcome. The suite's tests are listed
  before it runs; at its end the agent names those that never ran, says what left the suite early
  (``sys.exit(0)`` in a ``setUpClass``), and compares the runner's object's own counts with its
  own. ``startTestRun``/``stopTestRun`` say that a runner started and finished;
* pytest (``pytest.main`` called by the file): a plugin receives the collected items, every test
  report and ``pytest_sessionstart``/``pytest_sessionfinish``.

The results stay in the process's memory and leave it once, over ``AnswerChannel``: a pipe that
the process which started this one made for the job, whose write end the agent holds (closed on
exec and in any process forked from this one), carrying one message signed with a key made for
the job. A test cannot print into it, has no path to guess, and a copy of the process (a fork)
cannot answer for it. A run whose runner never said it finished (``os._exit``, a kill, an exit
before the runner ended) reports ``finished`` below ``sessions``, and the controller never calls
it a pass.
"""

import hashlib
import hmac
import json
import os
import re
import select
import sys
import threading
import time
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
        self.planned = 0  # tests the runners were given (a top-level suite's tests, pytest's items)
        self.started = {}  # test id -> True, in the order the tests started
        self.not_run = {}  # tests a runner was given that never started and no fixture answered for
        self.left_by = []  # what left a suite before its end: "SystemExit(0) raised in setUpClass (f.py:9)"
        self.result_objects = []  # where a runner's own result object's counts differ from the agent's
        self.depth = 0  # top-level suites (or tests) running now under the agent's result object

    def _kind(self, kind):
        if kind not in self.kinds:
            self.kinds.append(kind)

    def start(self, test_id):
        self.tests_run += 1
        self.started[test_id] = True

    def record(self, test_id, outcome, detail=""):
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

    def to_json(self):
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


def _class_name(test):
    cls = type(test)
    return "%s.%s" % (cls.__module__, getattr(cls, "__qualname__", cls.__name__))


#: a class or module fixture's outcome, as unittest names it (``_ErrorHolder``): its tests do not start
_FIXTURE = re.compile(r"^(?:setUpClass|setUpModule) \((.*)\)$")


def _listed(suite, out=None):
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


def _where(exc):
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


def _bad_count(result):
    """Failures, errors and unexpected successes the runner's own result object holds (None: it has no lists)."""
    try:
        return (
            len(result.failures)
            + len(result.errors)
            + len(getattr(result, "unexpectedSuccesses", ()))
        )
    except Exception:
        return None


def _tests_run(result):
    value = getattr(result, "testsRun", None)
    return value if isinstance(value, int) else None


class _Run(object):
    """One top-level run under the agent's result object: the tests it was given, what happened."""

    def __init__(self, results, real, given):
        self.results = results
        self.real = real
        self.given = given
        self.started = set()
        self.fixtures = set()  # classes and modules whose setUp fixture reported an outcome
        self.bad = 0  # failures, errors and unexpected successes unittest reported
        self.count = 0  # tests that started
        self.real_run = _tests_run(real)
        self.real_bad = _bad_count(real)
        results.planned += len(given)

    def start(self, test):
        tid = _test_id(test)
        self.count += 1
        self.started.add(tid)
        self.results.start(tid)

    def outcome(self, test, outcome, detail=""):
        tid = _test_id(test)
        if outcome in ("failed", "error", "xpass"):
            self.bad += 1
        fixture = _FIXTURE.match(tid)
        if fixture:
            self.fixtures.add(fixture.group(1))
        self.results.record(tid, outcome, detail)

    def end(self, exc):
        results = self.results
        if exc is not None:
            results.left_by.append(_where(exc))
        for tid, cls, module in self.given:
            if tid in self.started or cls in self.fixtures or module in self.fixtures:
                continue
            results.not_run[tid] = True
        name = type(self.real).__name__
        now_run, now_bad = _tests_run(self.real), _bad_count(self.real)
        if None not in (now_run, self.real_run) and now_run - self.real_run != self.count:
            results.result_objects.append(
                {
                    "what": "tests_run",
                    "result_class": name,
                    "runner": now_run - self.real_run,
                    "agent": self.count,
                }
            )
        if None not in (now_bad, self.real_bad) and now_bad - self.real_bad != self.bad:
            results.result_objects.append(
                {
                    "what": "bad",
                    "result_class": name,
                    "runner": now_bad - self.real_bad,
                    "agent": self.bad,
                }
            )


def _on_start(run, real, test, *rest):
    run.start(test)


def _on_failure(outcome):
    def hook(run, real, test, err, *rest):
        run.outcome(test, outcome, _error_text(real, err, test))

    return hook


def _on_subtest(run, real, test, subtest, err, *rest):
    if err is not None:
        failed = issubclass(err[0], test.failureException)
        run.outcome(test, "failed" if failed else "error", _error_text(real, err, subtest))


#: what the agent records of each call unittest makes on a result, before passing it on
_HOOKS = {
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

    def __init__(self, real, run):
        object.__setattr__(self, "_tp_real", real)
        object.__setattr__(self, "_tp_run", run)

    @property  # type: ignore[misc]  # isinstance(result, unittest.TestResult) as for the runner's object
    def __class__(self):
        return type(object.__getattribute__(self, "_tp_real"))

    def __getattr__(self, name):
        real = object.__getattribute__(self, "_tp_real")
        value = getattr(real, name)
        hook = _HOOKS.get(name)
        if hook is None or not callable(value):
            return value
        run = object.__getattribute__(self, "_tp_run")

        def method(*args, **kwargs):
            try:
                hook(run, real, *args)
            except Exception:  # the runner must run as it would without us
                pass
            return value(*args, **kwargs)

        return method

    def __setattr__(self, name, value):
        setattr(object.__getattribute__(self, "_tp_real"), name, value)

    def __delattr__(self, name):
        delattr(object.__getattribute__(self, "_tp_real"), name)

    def __repr__(self):
        return repr(object.__getattribute__(self, "_tp_real"))


def _top_level(results, result):
    """Whether a run given ``result`` is the start of a runner's run the agent watches."""
    return (
        not results.depth
        and result is not None
        and type(result) is not AgentResult
        and isinstance(result, unittest.TestResult)
    )


def _watched(results, real, given, call):
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


def install_unittest(results):
    """Give unittest the agent's result object at the top of every run; returns the undo."""
    saved = []

    def patch(cls, name, make):
        original = cls.__dict__[name]
        saved.append((cls, name, original))
        setattr(cls, name, make(original))

    def suite_run(original):
        def run(self, result, *args, **kwargs):
            debug = args[0] if args else kwargs.get("debug", False)
            if debug or not _top_level(results, result):
                return original(self, result, *args, **kwargs)
            return _watched(
                results, result, _listed(self), lambda r: original(self, r, *args, **kwargs)
            )

        return run

    def case_run(original):
        def run(self, result=None):
            if not _top_level(results, result):  # inside a watched suite, or a test's own runner
                return original(self, result)
            given = [(_test_id(self), _class_name(self), type(self).__module__)]
            return _watched(results, result, given, lambda r: original(self, r))

        return run

    def start_run(original):
        def startTestRun(self, *args, **kwargs):
            if not results.depth:  # a runner a test starts inside its run is not the file's
                results._kind("unittest")
                results.sessions += 1
            return original(self, *args, **kwargs)

        return startTestRun

    def stop_run(original):
        def stopTestRun(self, *args, **kwargs):
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

    def undo():
        for cls, name, original in reversed(saved):
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
        self.items = []  # node ids collected for this session, before it runs them

    def pytest_sessionstart(self, session):
        self.results._kind("pytest")
        self.results.sessions += 1

    def pytest_collection_finish(self, session):
        self.items = [str(item.nodeid) for item in getattr(session, "items", ()) or ()]
        self.results.planned += len(self.items)

    def pytest_sessionfinish(self, session, exitstatus):
        r = self.results
        r.finished += 1
        try:
            r.exit_status = int(exitstatus)
        except (TypeError, ValueError):
            r.exit_status = None
        for nodeid in self.items:
            if nodeid not in r.started and nodeid not in r.tests:
                r.not_run[nodeid] = True

    def pytest_collectreport(self, report):
        if report.failed:
            self.results.record(report.nodeid or "(collection)", "error", _longrepr(report))

    def pytest_runtest_logreport(self, report):
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


# -- the answer channel ------------------------------------------------------------------------

#: the agent's one message: ``TPA1 <sender pid> <origin pid> <body bytes> <hmac-sha256 hex>\n<body>``
MAGIC = b"TPA1"
#: bytes of a job's key
KEY_BYTES = 32
#: most bytes kept of what comes over an answer pipe; the rest is read and dropped (a flood is no answer)
MAX_ANSWER = 1 << 30


def new_key():
    """A job's key: made by the process that starts the job, never written where the job can read it."""
    return bytearray(os.urandom(KEY_BYTES))


def _mac(key, sender, origin, body):
    head = b"%s %d %d %d\n" % (MAGIC, sender, origin, len(body))
    return hmac.new(bytes(key), head + body, hashlib.sha256).hexdigest().encode("ascii")


def _identity(fd):
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def wipe(key):
    """Overwrite a key held in a bytearray."""
    for i in range(len(key)):
        key[i] = 0


class AnswerChannel(object):
    """The write end of a job's answer pipe, held by the agent in the process that runs the job.

    ``send`` writes the job's answer once, signed with the job's key. The pipe is not inherited
    across exec, and it is closed in every process forked from this one before that process runs
    any code of its own: a copy of the job's process (a test that forks and lets the child finish
    the run) cannot answer for it."""

    def __init__(self, fd, key):
        self._fd = fd
        self._key = bytearray(key)
        self._pid = os.getpid()
        self._identity = _identity(fd)
        try:
            os.set_inheritable(fd, False)
        except OSError:
            pass
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._forked)

    def _forked(self):
        """In a process forked from the job's: this copy cannot answer."""
        fd, self._fd = self._fd, None
        wipe(self._key)
        # the number is closed only while it is still this pipe (the test may have closed and reused it)
        if fd is not None and _identity(fd) == self._identity:
            try:
                os.close(fd)
            except OSError:
                pass

    def send(self, result):
        """Write ``result`` as the job's answer; False when this process may not (or already did)."""
        pid = os.getpid()
        if pid != self._pid:
            sys.stderr.write(
                "torchparity-agent: not answering from process %d, a copy (fork) of the job's "
                "process %d: only the process the agent started answers\n" % (pid, self._pid)
            )
            sys.stderr.flush()
            return False
        fd, self._fd = self._fd, None
        if fd is None:
            return False
        try:
            body = json.dumps(result, default=str).encode("utf-8")
            frame = b"%s %d %d %d %s\n" % (
                MAGIC,
                pid,
                self._pid,
                len(body),
                _mac(self._key, pid, self._pid, body),
            )
            data = memoryview(frame + body)
            while data:
                try:
                    data = data[os.write(fd, data) :]
                except InterruptedError:
                    continue
        except OSError:  # nobody reads any more: the answer is lost, and the reader says so
            return False
        finally:
            wipe(self._key)
            try:
                os.close(fd)
            except OSError:
                pass
        return True


def open_answer_channel(option):
    """The channel of ``--answer=KEY_FD:ANSWER_FD`` (fresh interpreters): the key is read from its own
    pipe and that pipe closed, before any job code runs."""
    key_fd, answer_fd = (int(part) for part in option.split(":"))
    key = bytearray()
    try:
        while len(key) < KEY_BYTES:
            chunk = os.read(key_fd, KEY_BYTES - len(key))
            if not chunk:
                break
            key += chunk
    finally:
        os.close(key_fd)
    return AnswerChannel(answer_fd, key)


class AnswerReader(object):
    """The read end of a job's answer pipe, in the process that started the job: read as the answer
    comes (a large one must not block its writer), and whole at the end."""

    def __init__(self, fd):
        self.fd = fd
        self.chunks = []
        self.size = 0
        self.eof = False
        os.set_blocking(fd, False)

    def pump(self):
        """Read what is there now; True once every writer is gone."""
        while not self.eof:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return False
            except InterruptedError:
                continue
            if not chunk:
                self.eof = True
            elif self.size < MAX_ANSWER:
                self.chunks.append(chunk)
                self.size += len(chunk)
        return True

    def finish(self, wait=2.0):
        """Read until every writer is gone (at most ``wait`` seconds more), close, return the bytes."""
        deadline = time.monotonic() + wait
        while not self.pump():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            select.select([self.fd], [], [], left)
        try:
            os.close(self.fd)
        except OSError:
            pass
        return b"".join(self.chunks)


class AnswerPipe(object):
    """The starting side of a fresh interpreter's answer channel: the job's key, passed over a pipe
    of its own that the agent reads and closes before the job runs, and the answer pipe, read by a
    thread while the interpreter runs. The interpreter gets ``argument()`` and ``child_fds()``."""

    def __init__(self):
        self.key = new_key()
        key_r, key_w = os.pipe()
        try:
            os.write(key_w, bytes(self.key))
        finally:
            os.close(key_w)
        self.answer_r, self.answer_w = os.pipe()
        self.key_r = key_r
        self.reader = None
        self._stop = threading.Event()
        self._thread = None

    def child_fds(self):
        return (self.key_r, self.answer_w)

    def argument(self):
        return "--answer=%d:%d" % (self.key_r, self.answer_w)

    def _close_child_ends(self):
        for fd in (self.key_r, self.answer_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def started(self):
        """The interpreter started: close its ends here and read the answer as it comes."""
        self._close_child_ends()
        self.reader = AnswerReader(self.answer_r)
        self._thread = threading.Thread(target=self._read, name="answer-reader", daemon=True)
        self._thread.start()

    def abandon(self):
        """The interpreter did not start."""
        self._close_child_ends()
        os.close(self.answer_r)

    def _read(self):
        reader = self.reader
        while not reader.pump() and not self._stop.is_set():
            select.select([reader.fd], [], [], 0.2)

    def finish(self, wait=2.0):
        """(result, problems): the agent's answer once the interpreter ended (``read_answer``)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(wait + 5.0)
            if self._thread.is_alive():  # never closes a descriptor a thread still reads
                return None, ["the answer pipe could not be read to its end"]
        data = self.reader.finish(wait) if self.reader is not None else b""
        return read_answer(data, self.key)


def read_answer(data, key, pid=None):
    """(result, problems) of what came over a job's answer pipe.

    The result is the body of the first message signed with ``key`` and sent by the process that
    started sending (``pid``, when the reader knows it: the job's forked child); ``problems`` says, in
    a sentence each, what else came: bytes that are no message, a message not signed with the key,
    one from another process, the answer more than once. None: no answer came."""
    problems, bodies = [], []
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        parts = data[pos:end].split(b" ") if end >= 0 else []
        if (
            len(parts) != 5
            or parts[0] != MAGIC
            or not all(p.isdigit() for p in parts[1:4])
            or len(parts[4]) != 64
        ):
            problems.append(
                "the answer pipe carried %d byte(s) that are not a message of the agent's: "
                "something other than the agent wrote into it; ignored" % (len(data) - pos)
            )
            break
        sender, origin, size = int(parts[1]), int(parts[2]), int(parts[3])
        body = data[end + 1 : end + 1 + size]
        pos = end + 1 + size
        if len(body) < size:
            problems.append(
                "a message on the answer pipe was cut short (%d of %d bytes)" % (len(body), size)
            )
            break
        if not hmac.compare_digest(_mac(key, sender, origin, body), bytes(parts[4])):
            problems.append(
                "a message on the answer pipe is not signed with this job's key: something other "
                "than the agent wrote it; ignored"
            )
            continue
        if sender != origin or (pid is not None and sender != pid):
            problems.append(
                "an answer from process %d, not from the job's process %d (a copy of it made "
                "by fork?); ignored" % (sender, origin if pid is None else pid)
            )
            continue
        bodies.append(body)
    if len(bodies) > 1:
        problems.append("the agent's answer came %d times; the first is kept" % len(bodies))
    result = None
    if bodies:
        try:
            result = json.loads(bodies[0].decode("utf-8"))
        except ValueError as exc:
            problems.append("the agent's answer is not JSON (%s)" % exc)
    if result is not None and not isinstance(result, dict):
        problems.append("the agent's answer is not a JSON object")
        result = None
    return result, problems
