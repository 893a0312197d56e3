"""The fake runner (exec/fake.py): the agent answered in the test process, and the whole pipeline over it.

The fast tests here run ``verify`` end to end with no interpreter; the slow one records the real agent
afresh and checks that the committed recordings still have the shape it answers with.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.fakeagent import RecordedAgent, load, record
from torchparity.cli import main
from torchparity.exec.fake import HOW, Answer, FakeRunner, answering, installed_runner
from torchparity.exec.runners import Job, JobResult, make_runner

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
SEED_OPS = [
    "resolve",
    "scaffold_facts",
    "scaffold_check",
    "probe",
    "run_file",
    "isolation",
    "trace",
]


def test_a_handler_answers_each_job_and_the_runner_keeps_them(tmp_path: Path) -> None:
    seen: list[str] = []

    def handler(job: Job) -> object:
        seen.append(job.op)
        if job.op == "probe":
            return {"facts": [["torch_version", "2.13.0"]], "device_type": "cpu"}
        if job.op == "crash":
            return Answer(status="CRASH", signal=11, output="Segmentation fault\n")
        return JobResult(job.op, "FAIL", 1, None, 0.5, "1 failed\n", {"exit_code": 1})

    runner = FakeRunner(handler)
    probe = runner.run(Job("probe", {}, tmp_path / "probe.log"))
    assert (probe.status, probe.exit_code, probe.how) == ("OK", 0, HOW)
    assert probe.result["device_type"] == "cpu" and (tmp_path / "probe.log").read_text() == ""
    crash = runner.run(Job("crash", {}, tmp_path / "crash.log"))
    assert (crash.status, crash.exit_code, crash.signal_name) == ("CRASH", None, "SIGSEGV")
    assert (tmp_path / "crash.log").read_text() == "Segmentation fault\n"
    failed = runner.run(Job("run_file", {"path": "t.py"}, tmp_path / "run.log"))
    assert (failed.status, failed.exit_code, failed.output) == ("FAIL", 1, "1 failed\n")
    assert seen == ["probe", "crash", "run_file"] and [j.op for j in runner.jobs] == seen
    runner.close()
    with pytest.raises(RuntimeError, match="closed"):
        runner.run(Job("probe", {}, tmp_path / "again.log"))


def test_answering_makes_every_runner_a_fake_and_only_while_active(tmp_path: Path) -> None:
    def handler(job: Job) -> dict[str, object]:
        return {"exit_code": 0}

    with answering(handler) as made:
        runner = make_runner("warm", sys.executable, "", "cpu", tmp_path)
        assert isinstance(runner, FakeRunner) and made == [runner]
        assert runner.python == sys.executable
        with pytest.raises(RuntimeError, match="already active"), answering(handler):
            pass
    assert (
        installed_runner(sys.executable, "", "cpu", tmp_path, lambda: pytest.fail("no real runner"))
        is None
    )


def test_verify_runs_every_stage_over_the_fake_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    agent = RecordedAgent.of("verify_seed_api")
    with answering(agent):
        code = main(["verify", API, "--python", sys.executable, "--json"])
    assert code == 0, capsys.readouterr().err
    assert agent.ops() == SEED_OPS
    report = json.loads(
        (tmp_path / "torchparity-out" / "set_grad_enabled_clone" / "report.json").read_text()
    )
    assert report["result"] == "PASS"
    log = next(
        (tmp_path / "torchparity-out" / "set_grad_enabled_clone" / "evidence").glob("*.log")
    ).read_text()
    assert HOW in log and "RESULT=PASS" in log


def test_a_failing_test_in_the_fake_agent_is_a_failing_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    recorded = {r.op: r.answer for r in load("verify_seed_api")}

    def run_file(job: Job) -> Answer:
        result = json.loads(json.dumps(recorded["run_file"].result))
        result["tests"][0].update(outcome="failed", detail="AssertionError: True != False")
        result["exit_code"] = 1
        return Answer(
            result=result, output="FAIL: test_set_grad_enabled_clone\n", status="FAIL", exit_code=1
        )

    with answering(RecordedAgent.of("verify_seed_api", run_file=run_file)):
        code = main(["verify", API, "--python", sys.executable, "--json"])
    assert code == 1
    report = json.loads(
        (tmp_path / "torchparity-out" / "set_grad_enabled_clone" / "report.json").read_text()
    )
    assert report["result"] == "FAIL"


def _shape(value: object) -> object:
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    return type(value).__name__


@pytest.mark.slow
def test_the_recordings_have_the_shape_the_real_agent_answers_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    fresh = tmp_path / "fresh.jsonl"
    assert record(fresh, ["verify", API, "--python", sys.executable]) == 0
    old, new = load("verify_seed_api"), load(fresh)
    assert [r.op for r in new] == [r.op for r in old] == SEED_OPS
    for was, now in zip(old, new, strict=True):
        assert _shape(now.answer.result) == _shape(was.answer.result), (
            f"the {now.op} answer changed shape"
        )
        assert now.answer.status == was.answer.status
