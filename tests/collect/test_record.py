"""The target record: typed per-test results, lossless JSON, and records made before them still load."""

from __future__ import annotations

import dataclasses
import json

import pytest

from torchparity.collect.verdict import judge
from torchparity.records.target import (
    RunnerReport,
    Step,
    TargetRecord,
    TestOutcome,
    record_from_json,
)


def _record() -> TargetRecord:
    full = Step(
        name="full",
        status="FAIL",
        exit_code=1,
        output="",
        test_file="test/t.py",
        tests=[
            TestOutcome("__main__.T.test_a", "passed"),
            TestOutcome("__main__.T.test_b", "failed", "AssertionError: 1 != 2"),
        ],
        runner=RunnerReport("unittest", sessions=1, finished=1, tests_run=2),
        findings=["the output says 'Ran 3 tests'; the runner's result API counted 2"],
        verdict="FAIL",
        verdict_reasons=["1 test(s) did not pass: __main__.T.test_b (failed)"],
    )
    return TargetRecord(
        label="master@py",
        ref="master",
        commit="c" * 40,
        env="py",
        python="py",
        mode="warm",
        device="cpu",
        full=[full],
        result="FAIL",
        process_tracking="pgid",
    )


def test_to_json_and_back_is_lossless():
    rec = _record()
    back = record_from_json(json.loads(json.dumps(rec.to_json())))
    assert back == rec
    assert isinstance(back.full[0].tests[1], TestOutcome) and isinstance(
        back.full[0].runner, RunnerReport
    )


def test_the_record_is_frozen_and_a_changed_copy_keeps_its_json_form():
    rec = _record()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.result = "PASS"  # type: ignore[misc]
    changed = rec.replace(result="PASS", run_id=7)
    assert (rec.result, rec.run_id) == ("FAIL", None)
    assert changed.to_json() == {**rec.to_json(), "result": "PASS", "run_id": 7}
    assert list(changed.to_json()) == list(rec.to_json())  # the same keys, in the same order


def test_a_record_made_before_structured_results_still_loads():
    old = _record().to_json()
    for key in ("runner", "results_from", "findings", "verdict", "verdict_reasons"):
        del old["full"][0][key]
    del old["process_tracking"]
    old["full"][0]["tests"] = [{"id": "__main__.T.test_a", "outcome": "passed", "detail": ""}]
    rec = record_from_json(old)
    (step,) = rec.full
    assert step.tests == [TestOutcome("__main__.T.test_a", "passed")]
    assert step.runner is None and step.verdict == "" and step.findings == []


def _answered(exit_code: int, runner: dict | None, tests: list[dict], output: str = "") -> Step:
    result = {"exit_code": exit_code, "tests": tests}
    if runner is not None:
        result["runner"] = runner
    return Step(
        name="full",
        status="OK" if exit_code == 0 else "FAIL",
        exit_code=exit_code,
        output=output,
        result=result if runner is not None else {},
    )


def test_the_verdict_needs_a_finished_runner_that_ran_a_test():
    done = {"kind": "unittest", "sessions": 1, "finished": 1, "tests_run": 1}
    ok = _answered(0, done, [{"id": "t.a", "outcome": "passed"}])
    judge(ok, ok, "")
    assert ok.verdict == "PASS" and ok.findings == []

    unfinished = _answered(0, dict(done, finished=0), [{"id": "t.a", "outcome": "passed"}])
    judge(unfinished, unfinished, "")
    assert (
        unfinished.verdict == "FAIL" and "never reported its end" in unfinished.verdict_reasons[0]
    )

    empty = _answered(0, dict(done, tests_run=0), [])
    judge(empty, empty, "")
    assert empty.verdict == "FAIL" and empty.verdict_reasons == ["the test runner ran no test"]

    lied = _answered(0, done, [{"id": "t.a", "outcome": "passed"}], output="Ran 5 tests in 0.1s\n")
    judge(lied, lied, lied.output)
    assert lied.verdict == "PASS"  # the text does not decide ...
    assert lied.findings == [
        "the output says 'Ran 5 tests'; the runner's result API counted 1"
    ]  # ... but is noted

    exit1 = _answered(1, done, [{"id": "t.a", "outcome": "passed"}])
    judge(exit1, exit1, "")
    assert exit1.verdict == "FAIL" and exit1.findings == [
        "exit code 1, although the runner reported every test passing"
    ]
