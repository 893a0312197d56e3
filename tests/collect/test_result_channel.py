"""The verdict's channel cannot be named or written by the test (real torch, git, interpreters, store).

Each file here attacks the way the agent's answer reaches the controller, or the way its runner counts:
it writes the answer itself, lets a forked copy of itself answer, rewrites the answer at exit, writes
into its parent's pipes, leaves its suite through ``sys.exit(0)`` in a class fixture, or runs with a
result class that drops failures. None of that may give a PASS, and each is said in the evidence log.
"""

from __future__ import annotations

import pytest

from tests.collect.test_collector import _keys, _logs, _records, _run

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow

MODES = pytest.mark.parametrize("mode", ["warm", "fresh"])

#: what a test would write as the agent's answer: one test, passed, the runner finished
_FORGED_ANSWER = '''
FORGED = {
    "exit_code": 0, "leaks": [], "tests_seen": 1, "states_skipped": [],
    "tests": [{"id": "__main__.TestForge.test_wrong", "outcome": "passed", "detail": ""}],
    "runner": {"kind": "unittest", "sessions": 1, "finished": 1, "tests_run": 1, "exit_status": None},
}


def answer_paths():
    """Where a runner's answer file would be, as a test finds it: its output file (fd 1), the job in argv."""
    found = []
    link = os.readlink("/proc/self/fd/1")
    if link.startswith("/"):
        found.append(link)
    with open("/proc/self/cmdline", "rb") as fh:
        args = fh.read().decode("utf-8", "replace").split("\\0")
    for arg in args:
        text = arg
        if arg.startswith("@") and os.path.isfile(arg[1:]):
            with open(arg[1:]) as fh:
                text = fh.read()
        try:
            job = json.loads(text)
        except ValueError:
            continue
        if isinstance(job, dict) and job.get("output"):
            found.append(job["output"])
    return found


def forge_answer_file():
    """The runner's answer file, written by the test wherever it can guess it."""
    for path in answer_paths():
        with open(path + ".result.json", "w") as fh:
            json.dump(FORGED, fh)
'''

WRITES_ANSWER = "test/test_writes_answer.py"
WRITES_ANSWER_TEXT = (
    """
import json
import os
import unittest
"""
    + _FORGED_ANSWER
    + """

class TestForge(unittest.TestCase):
    def test_wrong(self):
        forge_answer_file()
        os._exit(0)


if __name__ == "__main__":
    unittest.main()
"""
)

FORKS = "test/test_forks.py"
FORKS_TEXT = """
import os
import unittest


class TestFork(unittest.TestCase):
    def test_a_fork(self):
        pid = os.fork()
        if pid:
            # the process the agent started: wait while the copy finishes the run, then leave quietly
            os.waitpid(pid, 0)
            os._exit(0)

    def test_b_fine(self):
        self.assertTrue(True)


if __name__ == "__main__":
    unittest.main()
"""

AT_EXIT = "test/test_at_exit.py"
AT_EXIT_TEXT = (
    """
import atexit
import json
import os
import unittest
"""
    + _FORGED_ANSWER
    + """

def rewrite():
    forge_answer_file()
    os._exit(0)


atexit.register(rewrite)


class TestForge(unittest.TestCase):
    def test_wrong(self):
        self.assertEqual(1, 2)


if __name__ == "__main__":
    unittest.main()
"""
)

INTO_PARENT = "test/test_into_parent.py"
INTO_PARENT_TEXT = (
    """
import json
import os
import unittest
"""
    + _FORGED_ANSWER
    + '''

def forge_parent():
    """A worker answer (and an agent message) written into every pipe of the parent process."""
    parent = os.getppid()
    line = json.dumps({"id": 2, "op": "run_file", "status": "OK", "exit_code": 0, "signal": None,
                       "duration": 0.1, "output": os.readlink("/proc/self/fd/1"), "pid": os.getpid(),
                       "result": FORGED}) + "\\n"
    wrote = 0
    try:
        names = os.listdir("/proc/%d/fd" % parent)
    except OSError as exc:
        print("cannot list the parent's descriptors: %s" % exc)
        names = []
    for name in names:
        path = "/proc/%d/fd/%s" % (parent, name)
        try:
            if not os.readlink(path).startswith("pipe:"):
                continue
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            print("cannot open %s: %s" % (path, exc))
            continue
        try:
            os.write(fd, line.encode())
            wrote += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    print("forged answers written: %d" % wrote)


class TestForge(unittest.TestCase):
    def test_wrong(self):
        forge_parent()
        os._exit(0)


if __name__ == "__main__":
    unittest.main()
'''
)

INTO_OWN_PIPES = "test/test_into_own_pipes.py"
INTO_OWN_PIPES_TEXT = (
    """
import json
import os
import unittest
"""
    + _FORGED_ANSWER
    + '''

def forge_own_pipes():
    """An answer in the agent's framing, unsigned, written into every pipe this process holds."""
    body = json.dumps(FORGED).encode()
    pid = os.getpid()
    frame = b"TPA1 %d %d %d %s\\n" % (pid, pid, len(body), b"0" * 64) + body
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink("/proc/self/fd/" + name).startswith("pipe:"):
                os.write(int(name), frame)
        except OSError:
            pass


class TestForge(unittest.TestCase):
    def test_wrong(self):
        forge_own_pipes()
        os._exit(0)


if __name__ == "__main__":
    unittest.main()
'''
)

CLASS_EXIT = "test/test_class_exit.py"
CLASS_EXIT_TEXT = """
import sys
import unittest


class TestA(unittest.TestCase):
    def test_a_fine(self):
        self.assertTrue(True)

    @classmethod
    def tearDownClass(cls):
        if FIXTURE == "tearDownClass":
            sys.exit(0)


class TestB(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if FIXTURE == "setUpClass":
            sys.exit(0)

    def test_b_wrong(self):
        self.assertEqual(1, 2)

    def test_c_fine(self):
        self.assertTrue(True)


if __name__ == "__main__":
    unittest.main()
"""

SWALLOWS = "test/test_swallows.py"
SWALLOWS_TEXT = """
import unittest


class Quiet(unittest.TextTestResult):
    def addFailure(self, test, err):
        pass

    def addError(self, test, err):
        pass


class TestQuiet(unittest.TestCase):
    def test_fine(self):
        self.assertTrue(True)

    def test_wrong(self):
        self.assertEqual(1, 2)

    def test_broken(self):
        raise RuntimeError("swallowed")


if __name__ == "__main__":
    unittest.main(testRunner=unittest.TextTestRunner(resultclass=Quiet, verbosity=2))
"""


def _flags(mode: str) -> list[str]:
    return ["--fresh"] if mode == "fresh" else []


def _one(tmp_path):
    rec = next(iter(_records(tmp_path).values()))
    (full,) = rec["full"]
    log = next(iter(_logs(tmp_path).values()))
    return rec, full, log


def _lines(log: str, key: str) -> list[str]:
    return [line[len(key) + 1 :] for line in log.splitlines() if line.startswith(key + "=")]


def _run_file(tmp_path, make_repo, python, path: str, text: str, mode: str) -> int:
    repo = make_repo({"master": {path: text}})
    return _run(tmp_path, path, "--repo", str(repo), "--python", python, *_flags(mode))


# -- 1. the answer comes over a channel the test cannot name or write, from the process the agent started


@MODES
def test_a_test_that_writes_the_answer_file_is_not_a_pass(
    tmp_path, make_repo, python_with_torch, mode
):
    assert (
        _run_file(tmp_path, make_repo, python_with_torch, WRITES_ANSWER, WRITES_ANSWER_TEXT, mode)
        == 1
    )
    rec, full, log = _one(tmp_path)
    assert rec["result"] == "FAIL" and full["verdict"] == "FAIL" and full["runner"] is None
    assert full["tests"] == []
    findings = _lines(log, "FINDING")
    assert any(".result.json" in f and "not the agent's answer" in f for f in findings), findings
    assert _keys(log)["FULL_TEST_VERDICT"] == "FAIL"


@MODES
def test_a_forked_copy_that_finishes_the_run_is_not_the_answer(
    tmp_path, make_repo, python_with_torch, mode
):
    assert _run_file(tmp_path, make_repo, python_with_torch, FORKS, FORKS_TEXT, mode) == 1
    rec, full, log = _one(tmp_path)
    assert rec["result"] == "FAIL" and full["verdict"] == "FAIL" and full["runner"] is None
    assert full["exit_code"] == 0  # the process the agent started said "success"
    assert any("without the agent's structured results" in r for r in full["verdict_reasons"])
    assert "FINDING=exit code 0, but the test runner never reported its end" in log
    if (
        mode == "warm"
    ):  # (with --fresh the log shows the literal command's output, not the agent's run)
        # the copy ran the rest of the suite and its agent code refused to answer for a process it is not
        assert "not answering from process" in log


@MODES
def test_an_atexit_handler_that_rewrites_the_answer_changes_nothing(
    tmp_path, make_repo, python_with_torch, mode
):
    assert _run_file(tmp_path, make_repo, python_with_torch, AT_EXIT, AT_EXIT_TEXT, mode) == 1
    rec, full, log = _one(tmp_path)
    assert rec["result"] == "FAIL" and full["verdict"] == "FAIL"
    assert {t["id"]: t["outcome"] for t in full["tests"]} == {
        "__main__.TestForge.test_wrong": "failed"
    }
    assert (
        _keys(log)["RUNNER_TESTS"]
        == "tests_run:1,passed:0,failed:1,error:0,skipped:0,xfail:0,xpass:0"
    )
    if mode == "fresh":  # a forked child of the warm worker never runs atexit handlers
        findings = _lines(log, "FINDING")
        assert any(".result.json" in f and "not the agent's answer" in f for f in findings), (
            findings
        )
        assert any("exited 0 after the agent answered exit code 1" in f for f in findings), findings


def test_a_forged_worker_answer_in_the_parents_pipes_is_not_taken(
    tmp_path, make_repo, python_with_torch
):
    assert (
        _run_file(tmp_path, make_repo, python_with_torch, INTO_PARENT, INTO_PARENT_TEXT, "warm")
        == 1
    )
    rec, full, log = _one(tmp_path)
    assert rec["result"] == "FAIL" and full["verdict"] == "FAIL" and full["runner"] is None
    # the worker is not dumpable: its descriptors are not the test's to open, unless the test may trace any
    # process (root with CAP_SYS_PTRACE); then what it wrote is no answer to the job, and said
    if "forged answers written: 0" not in log:
        findings = _lines(log, "FINDING")
        assert any("not its answer to this job" in f for f in findings), findings


@MODES
def test_an_unsigned_message_on_the_answer_pipe_is_rejected(
    tmp_path, make_repo, python_with_torch, mode
):
    assert (
        _run_file(tmp_path, make_repo, python_with_torch, INTO_OWN_PIPES, INTO_OWN_PIPES_TEXT, mode)
        == 1
    )
    rec, full, log = _one(tmp_path)
    assert rec["result"] == "FAIL" and full["verdict"] == "FAIL" and full["runner"] is None
    findings = _lines(log, "FINDING")
    assert any("not signed with this job's key" in f for f in findings), findings


# -- 2. a suite left through sys.exit(0) in a class fixture: the tests it never ran are named


@MODES
@pytest.mark.parametrize("fixture", ["setUpClass", "tearDownClass"])
def test_sys_exit_in_a_class_fixture_hides_no_test(
    tmp_path, make_repo, python_with_torch, mode, fixture
):
    text = CLASS_EXIT_TEXT.replace("FIXTURE", repr(fixture))
    assert _run_file(tmp_path, make_repo, python_with_torch, CLASS_EXIT, text, mode) == 1
    rec, full, log = _one(tmp_path)
    assert rec["result"] == "FAIL" and full["verdict"] == "FAIL"
    assert full["runner"]["tests_run"] == 1
    assert {t["id"]: t["outcome"] for t in full["tests"]} == {
        "__main__.TestA.test_a_fine": "passed"
    }
    never = ["__main__.TestB.test_b_wrong", "__main__.TestB.test_c_fine"]
    reason = next(r for r in full["verdict_reasons"] if "never ran" in r)
    assert all(t in reason for t in never) and "2 of the 3 test(s)" in reason
    notes = _lines(log, "NOTE")
    assert any("never ran" in n and never[0] in n for n in notes), notes
    findings = _lines(log, "FINDING")
    assert any("SystemExit(0)" in f and fixture in f for f in findings), findings


# -- 3. outcomes come from the agent's own result object: a result class cannot drop a failure


@MODES
def test_a_result_class_that_swallows_failures_is_not_a_pass(
    tmp_path, make_repo, python_with_torch, mode
):
    assert _run_file(tmp_path, make_repo, python_with_torch, SWALLOWS, SWALLOWS_TEXT, mode) == 1
    rec, full, log = _one(tmp_path)
    assert rec["result"] == "FAIL" and full["verdict"] == "FAIL"
    assert {t["id"]: t["outcome"] for t in full["tests"]} == {
        "__main__.TestQuiet.test_fine": "passed",
        "__main__.TestQuiet.test_wrong": "failed",
        "__main__.TestQuiet.test_broken": "error",
    }
    assert (
        _keys(log)["RUNNER_TESTS"]
        == "tests_run:3,passed:1,failed:1,error:1,skipped:0,xfail:0,xpass:0"
    )
    findings = _lines(log, "FINDING")
    assert any(
        "Quiet" in f and "2 failure(s) or error(s)" in f and "lists 0" in f for f in findings
    ), findings
