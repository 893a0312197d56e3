"""The answer channel, the agent's own result object and the verdict over them, in this process (fast tier).

No torch and no interpreter: the channel is a real pipe, the unittest files run in-process through the
agent's ``run_as_main`` (pure unittest), and the verdict is judged over steps built here.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from torchparity.agent import answer, testrun
from torchparity.collect.verdict import judge
from torchparity.exec.answer_pipe import AnswerPipe
from torchparity.records.target import Step


def _pipe_with(write) -> bytes:
    """What ``write(fd)`` puts into a fresh pipe, read back to its end."""
    r, w = os.pipe()
    try:
        write(w)
    finally:
        try:
            os.close(w)
        except OSError:
            pass
    reader = answer.AnswerReader(r)
    return reader.finish(1.0)


def _sent(key, result, *, extra: bytes = b"", twice: bool = False) -> bytes:
    def write(fd):
        if extra:
            os.write(fd, extra)
        channel = answer.AnswerChannel(os.dup(fd), key)
        assert channel.send(result)
        assert not channel.send(result)  # once
        if twice:
            answer.AnswerChannel(os.dup(fd), key).send(result)

    return _pipe_with(write)


# -- the channel ---------------------------------------------------------------------------------------


def test_one_signed_answer_from_the_process_is_taken():
    key = answer.new_key()
    data = _sent(key, {"exit_code": 0, "tests": []})
    assert answer.read_answer(data, key, os.getpid()) == ({"exit_code": 0, "tests": []}, [])
    assert answer.read_answer(data, key) == ({"exit_code": 0, "tests": []}, [])


def test_an_answer_signed_with_another_key_is_not_taken():
    data = _sent(answer.new_key(), {"exit_code": 0})
    result, problems = answer.read_answer(data, answer.new_key(), os.getpid())
    assert result is None and len(problems) == 1 and "not signed with this job's key" in problems[0]


def test_an_answer_from_another_process_is_not_taken():
    key = answer.new_key()
    data = _sent(key, {"exit_code": 0})
    result, problems = answer.read_answer(data, key, os.getpid() + 1)
    assert result is None and "not from the job's process" in problems[0]


def test_bytes_that_are_no_message_and_a_second_answer_are_said():
    key = answer.new_key()
    result, problems = answer.read_answer(_sent(key, {"a": 1}, extra=b'{"exit_code": 0}\n'), key)
    assert result is None and "not a message of the agent's" in problems[0]
    result, problems = answer.read_answer(_sent(key, {"a": 1}, twice=True), key)
    assert result == {"a": 1} and problems == ["the agent's answer came 2 times; the first is kept"]


def test_a_cut_answer_and_nothing_at_all():
    key = answer.new_key()
    data = _sent(key, {"a": "x" * 100})
    result, problems = answer.read_answer(data[:-10], key)
    assert result is None and "cut short" in problems[0]
    assert answer.read_answer(b"", key) == (None, [])


def test_the_key_is_wiped_once_sent_and_a_large_answer_does_not_block():
    key = answer.new_key()
    big = {
        "tests": [{"id": f"t{i}", "outcome": "passed", "detail": "x" * 200} for i in range(2000)]
    }
    r, w = os.pipe()
    reader = answer.AnswerReader(r)
    channel = answer.AnswerChannel(w, key)
    import threading

    sender = threading.Thread(target=channel.send, args=(big,))
    sender.start()
    while sender.is_alive():  # the pipe holds 64 KiB: the reader reads while the writer writes
        reader.pump()
        sender.join(0.01)
    assert answer.read_answer(reader.finish(1.0), key) == (big, [])
    assert not any(channel._key)


def test_the_fresh_interpreters_pipe_pair(tmp_path):
    pipe = AnswerPipe()
    option = pipe.argument()
    key_r, answer_w = pipe.child_fds()
    assert option == f"--answer={key_r}:{answer_w}"
    # the agent's side, as ``once`` opens it (here in this process, with its own copies of the ends)
    key_fd, answer_fd = (os.dup(fd) for fd in pipe.child_fds())
    channel = answer.open_answer_channel(f"{key_fd}:{answer_fd}")
    pipe.started()
    assert channel.send({"exit_code": 3})
    assert pipe.finish(1.0) == ({"exit_code": 3}, [])


# -- the agent's own result object (items 2 and 3) -----------------------------------------------------


def _run_file(tmp_path: Path, monkeypatch, text: str) -> dict:
    path = tmp_path / "test_file.py"
    path.write_text(text)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    out = testrun.run_as_main(str(path), ["-v"], {})
    return out


def _outcomes(out: dict) -> dict[str, str]:
    return {t["id"]: t["outcome"] for t in out["tests"]}


CLASS_EXIT = """
import sys
import unittest


class TestA(unittest.TestCase):
    def test_a(self):
        pass


class TestB(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        sys.exit(0)

    def test_b(self):
        self.fail("never")


class TestC(unittest.TestCase):
    def test_c(self):
        pass


if __name__ == "__main__":
    unittest.main()
"""


def test_sys_exit_in_setupclass_leaves_the_later_tests_named(tmp_path, monkeypatch):
    out = _run_file(tmp_path, monkeypatch, CLASS_EXIT)
    runner = out["runner"]
    assert out["exit_code"] == 0 and runner["sessions"] == runner["finished"] == 1
    assert _outcomes(out) == {"__main__.TestA.test_a": "passed"}
    assert runner["planned"] == 3 and runner["not_run"] == [
        "__main__.TestB.test_b",
        "__main__.TestC.test_c",
    ]
    (left,) = runner["left_by"]
    assert left.startswith("SystemExit(0) raised in setUpClass (test_file.py:")


FIXTURES_THAT_ANSWER = """
import unittest


class TestSkipped(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise unittest.SkipTest("no device here")

    def test_a(self):
        pass


class TestBroken(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise RuntimeError("broken fixture")

    def test_b(self):
        pass


class TestInner(unittest.TestCase):
    def test_runs_a_runner_of_its_own(self):
        class Inner(unittest.TestCase):
            def test_inner_fails(self):
                self.fail("inner")

        inner = unittest.TestResult()
        unittest.TestSuite([Inner("test_inner_fails")]).run(inner)
        self.assertEqual(len(inner.failures), 1)


if __name__ == "__main__":
    unittest.main()
"""


def test_a_class_fixture_that_skips_or_fails_answers_for_its_tests(tmp_path, monkeypatch):
    out = _run_file(tmp_path, monkeypatch, FIXTURES_THAT_ANSWER)
    runner = out["runner"]
    assert _outcomes(out) == {
        "setUpClass (__main__.TestBroken)": "error",
        "__main__.TestInner.test_runs_a_runner_of_its_own": "passed",
        "setUpClass (__main__.TestSkipped)": "skipped",
    }
    # the fixtures' outcomes account for their classes' tests; a test's own inner runner is not the file's
    assert runner["not_run"] == [] and runner["left_by"] == [] and runner["unreported"] == []
    assert runner["sessions"] == 1 and runner["tests_run"] == 1 and runner["result_objects"] == []


SWALLOWS = """
import unittest


class Quiet(unittest.TextTestResult):
    def addFailure(self, test, err):
        pass

    def addSubTest(self, test, subtest, err):
        pass


class TestQuiet(unittest.TestCase):
    def test_fine(self):
        pass

    def test_wrong(self):
        self.assertEqual(1, 2)

    def test_sub(self):
        for i in range(2):
            with self.subTest(i=i):
                self.assertEqual(i, 0)


if __name__ == "__main__":
    unittest.main(testRunner=unittest.TextTestRunner(resultclass=Quiet, verbosity=2))
"""


def test_a_result_class_that_drops_failures_cannot_hide_them(tmp_path, monkeypatch):
    out = _run_file(tmp_path, monkeypatch, SWALLOWS)
    assert out["exit_code"] == 0  # the runner's own object saw no failure
    assert _outcomes(out) == {
        "__main__.TestQuiet.test_fine": "passed",
        "__main__.TestQuiet.test_sub": "failed",
        "__main__.TestQuiet.test_wrong": "failed",
    }
    assert out["runner"]["result_objects"] == [
        {"what": "bad", "result_class": "Quiet", "runner": 0, "agent": 2}
    ]
    assert "AssertionError: 1 != 2" in next(
        t["detail"] for t in out["tests"] if t["id"].endswith("test_wrong")
    )


def test_unittest_is_as_it_was_after_the_run(tmp_path, monkeypatch):
    import unittest

    before = {
        (cls, name): cls.__dict__[name]
        for cls, name in [
            (unittest.TestCase, "run"),
            (unittest.TestSuite, "run"),
            (unittest.BaseTestSuite, "run"),
            (unittest.TestResult, "startTestRun"),
            (unittest.TestResult, "stopTestRun"),
        ]
    }
    _run_file(tmp_path, monkeypatch, CLASS_EXIT)
    assert {key: key[0].__dict__[key[1]] for key in before} == before


# -- the verdict over them -----------------------------------------------------------------------------


def _step(result: dict, exit_code: int = 0) -> Step:
    return Step(
        name="full", status="OK" if exit_code == 0 else "FAIL", exit_code=exit_code, result=result
    )


def _passing(**runner) -> dict:
    return {
        "exit_code": 0,
        "tests": [{"id": "__main__.T.test_a", "outcome": "passed", "detail": ""}],
        "runner": dict(
            {"kind": "unittest", "sessions": 1, "finished": 1, "tests_run": 1}, **runner
        ),
    }


def test_a_run_accounting_for_every_test_passes_and_old_answers_still_do():
    for result in (
        _passing(),
        _passing(planned=1, not_run=[], unreported=[], left_by=[], result_objects=[]),
    ):
        full = _step(result)
        judge(full, full, "")
        assert (full.verdict, full.verdict_reasons, full.findings) == ("PASS", [], [])


def test_tests_that_never_ran_a_suite_left_early_and_a_dropped_failure_are_not_a_pass():
    full = _step(
        _passing(
            planned=3,
            not_run=["__main__.U.test_b", "__main__.U.test_c"],
            left_by=["SystemExit(0) raised in setUpClass (t.py:9)"],
            result_objects=[{"what": "bad", "result_class": "Quiet", "runner": 0, "agent": 1}],
        )
    )
    judge(full, full, "")
    assert full.verdict == "FAIL"
    assert (
        "2 of the 3 test(s) the runner was given never ran and no outcome accounts for them: "
        "__main__.U.test_b, __main__.U.test_c"
    ) in full.verdict_reasons
    assert (
        "the test suite was left before its end by SystemExit(0) raised in setUpClass (t.py:9)"
        in (full.verdict_reasons)
    )
    assert full.findings == [
        "the runner reported its end, but the suite was left early by SystemExit(0) raised in setUpClass "
        "(t.py:9); 2 test(s) it was given never ran",
        "the runner's result object (Quiet) lists 0 failure(s) or error(s); the agent's own result object saw 1 "
        "failure(s) or error(s): its result class dropped what unittest reported to it",
    ]
    started = _step(_passing(unreported=["__main__.T.test_z"]))
    judge(started, started, "")
    assert (
        started.verdict == "FAIL"
        and "started but never reported an outcome" in started.verdict_reasons[0]
    )


def test_an_answer_with_channel_problems_is_not_a_pass_and_says_so():
    result = dict(
        _passing(), answer_problems=["test.log.result.json was written during this step, but ..."]
    )
    full = _step(result)
    judge(full, full, "")
    assert full.verdict == "FAIL" and full.findings == result["answer_problems"]
    # the literal command's own problems count too (--fresh: the agent's run is the source)
    literal, leak = _step({"answer_problems": ["a stray"]}), _step(_passing())
    judge(literal, leak, "")
    assert literal.verdict == "FAIL" and "a stray" in literal.findings


def test_an_exit_code_changed_after_the_answer_is_a_finding():
    full = _step(dict(_passing(), exit_code=1), exit_code=0)
    judge(full, full, "")
    assert (
        "the process exited 0 after the agent answered exit code 1: something ran after the agent's answer "
        "(an atexit handler, the interpreter's teardown)"
    ) in full.findings


def test_the_channel_survives_json_of_any_text():
    key = answer.new_key()
    odd = {"detail": "\u202e\x00\udcff text", "n": float("nan")}
    result, problems = answer.read_answer(_sent(key, odd), key)
    assert problems == [] and result["detail"] == odd["detail"] and json.dumps(result)
