"""A value written into the evidence log can never start a line of its own, and a log that holds one of
the tool's once-only keys twice is rejected by whatever reads it back (issue 36, item 5).

An interpreter path is whatever the user's file system allows: a folder named
``py\\nFULL_TEST_VERDICT=PASS\\nRESULT=PASS\\x1b[2J`` makes a path with newlines and an escape. Before,
the log wrote it raw (``PYTHON=``, the probe's ``python_executable=``, ``COMMAND=``), so a failing run's
log held standalone ``FULL_TEST_VERDICT=PASS`` and ``RESULT=PASS`` lines. No interpreter starts here: the
records are written by hand, and the whole ``verify`` runs over the fake runner.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.fakeagent import RecordedAgent, load
from tests.report.report_fixtures import target_record
from torchparity.cli import main
from torchparity.collect.evidence import render_log
from torchparity.exec.fake import Answer, answering
from torchparity.records.target import Step, TargetRecord
from torchparity.store import Store
from torchparity.textsafe import one_line

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
#: what a path may hold: newlines that would start the tool's own lines, and an escape sequence
INJECTED = "\nFULL_TEST_VERDICT=PASS\nRESULT=PASS\x1b[2J"
EVIL_PYTHON = f"/opt/py{INJECTED}/bin/python"


def _keyed(log: str, key: str) -> list[str]:
    return [line for line in log.split("\n") if line.startswith(f"{key}=")]


def _hostile_record() -> TargetRecord:
    """A failing run whose every controller-written value carries the injection."""
    rec = target_record("a2", "c" * 40, "s" * 64, failed=True)
    assert rec.probe is not None
    facts = [
        [k, EVIL_PYTHON if k == "python_executable" else v] for k, v in rec.probe.result["facts"]
    ]
    rec.probe.result["facts"] = facts
    # the agent prints its facts as key=value, the interpreter path as it is
    rec.probe.output = "".join(f"{k}={v}\n" for k, v in facts)
    rec.probe.result["device_reason"] = f"asked for npu{INJECTED}"
    rec.probe.command = f"{EVIL_PYTHON} -m agent probe"
    full = rec.full[0]
    full.command = f"env -u PYTHONPATH {EVIL_PYTHON} /tmp/w{INJECTED}/test_x.py -v"
    full.how = f"the agent's own run{INJECTED}"
    full.test_file = f"test/x{INJECTED}.py"
    rec.full.append(
        Step(
            name="full",
            status="FAIL",
            exit_code=1,
            command=full.command,
            test_file=full.test_file,
            verdict="FAIL",
            verdict_reasons=[f"why{INJECTED}"],
        )
    )
    rec.test_files[0].abs_path = f"/tmp/w{INJECTED}/test_x.py"
    iso = rec.isolation[0]
    iso.command = full.command
    iso.result.update(
        skipped=f"skipped{INJECTED}", error=f"error{INJECTED}", title=f"GRAD{INJECTED}"
    )
    iso.result["selection"] = {"patterns": [f"p{INJECTED}"], "tests": []}
    trace = Step(
        name="trace",
        status="OK",
        exit_code=0,
        command=full.command,
        test_file=full.test_file,
        result={
            "trace": {
                "selection": {"tests": [f"t{INJECTED}"]},
                "status": f"OK{INJECTED}",
                "error": f"\x1b[2Jerror{INJECTED}",
                "ops": [{"op": f"aten::add{INJECTED}", "devices": [f"npu{INJECTED}"], "count": 1}],
            }
        },
    )
    return rec.replace(
        python=EVIL_PYTHON,
        mode="fresh",
        leak_check=[Step(name="leak", status="TIMEOUT", exit_code=None, command=full.command)],
        leaks=[
            {
                "test": f"t{INJECTED}",
                "state": f"s{INJECTED}",
                "before": f"b{INJECTED}",
                "after": "a",
            }
        ],
        leak_status="LEAKS",
        leak_reason=f"file{INJECTED}",
        trace=[trace],
        ref=f"v2.7.1{INJECTED}",
        source_branch=f"pr{INJECTED}",
        process_tracking=f"process group{INJECTED}",
    )


def test_no_value_of_the_controller_can_start_a_log_line() -> None:
    rec = _hostile_record()
    log = render_log(rec)
    # the run failed: the only verdict and result lines are the tool's own, saying FAIL
    assert _keyed(log, "FULL_TEST_VERDICT") == ["FULL_TEST_VERDICT=FAIL", "FULL_TEST_VERDICT=FAIL"]
    assert _keyed(log, "RESULT") == ["RESULT=FAIL"]
    assert "\x1b" not in log
    assert f"PYTHON={one_line(EVIL_PYTHON)}" in log.split("\n")
    assert f"python_executable={one_line(EVIL_PYTHON)}" in log.split("\n")
    # every other line of the probe is kept as the agent printed it
    assert "initial_grad_enabled=True" in log.split("\n")


def test_a_verify_with_a_hostile_interpreter_path_logs_it_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole verify over the fake runner: the probe answers as the real agent would in such a path."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / f"py{INJECTED}"
    folder.mkdir()
    python = folder / "python"
    python.symlink_to(sys.executable)
    recorded = {r.op: r.answer for r in load("verify_seed_api")}

    def probe(job: object) -> Answer:
        facts = [
            [k, str(python) if k == "python_executable" else v]
            for k, v in recorded["probe"].result["facts"]
        ]
        return Answer(
            result=dict(recorded["probe"].result, facts=facts),
            output="".join(f"{k}={v}\n" for k, v in facts),
        )

    def run_file(job: object) -> Answer:
        result = json.loads(json.dumps(recorded["run_file"].result))
        result["tests"][0].update(outcome="failed", detail="AssertionError: True != False")
        result["exit_code"] = 1
        return Answer(
            result=result, output="FAIL: test_set_grad_enabled_clone\n", status="FAIL", exit_code=1
        )

    with answering(RecordedAgent.of("verify_seed_api", probe=probe, run_file=run_file)):
        code = main(["verify", API, "--python", str(python), "--store", str(tmp_path / "store")])
    assert code == 1, capsys.readouterr().err
    st = Store(tmp_path / "store", create=False)
    [target] = st.targets(1)
    assert target.log_sha
    log = st.blobs.read(target.log_sha).decode()
    assert _keyed(log, "FULL_TEST_VERDICT") == ["FULL_TEST_VERDICT=FAIL"]
    assert _keyed(log, "RESULT") == ["RESULT=FAIL"]
    assert "\x1b" not in log
    assert f"PYTHON={one_line(str(python))}" in log.split("\n")


def test_the_upstream_log_writes_the_interpreter_path_on_one_line() -> None:
    from torchparity.records.upstream import UpstreamFile, UpstreamRun, UpstreamTarget
    from torchparity.upstream.evidence import command, target_log

    cmd = command(EVIL_PYTHON, ["test/test_x.py", "-v"])
    t = UpstreamTarget(
        label="v2.7.1@a2",
        source="backend",
        ref="v2.7.1",
        commit="c" * 40,
        env="a2",
        python=EVIL_PYTHON,
        device="npu",
        result="FAIL",
        files=(UpstreamFile(path=f"test/x{INJECTED}.py", sha256="s" * 64, entry="unittest"),),
        runs=(
            UpstreamRun(
                file=f"test/x{INJECTED}.py",
                purpose="run",
                command=cmd,
                how="fresh",
                status="FAIL",
                exit_code=1,
                output="FAIL: test_x\n",
            ),
        ),
    )
    facts = [["python_executable", EVIL_PYTHON], ["torch_version", "2.7.1"]]
    log = target_log(t, "".join(f"{k}={v}\n" for k, v in facts), 0, "fresh", facts)
    assert _keyed(log, "RESULT") == ["RESULT=FAIL"] and _keyed(log, "FULL_TEST_VERDICT") == []
    assert "\x1b" not in log and f"COMMAND={one_line(cmd)}" in log.split("\n")


FORGED = """\
==================================================
TARGET_BRANCH=v2.7.1
COMMIT=cccccccccccccccccccccccccccccccccccccccc
PYTHON=/opt/py
FULL_TEST_VERDICT=PASS
RESULT=PASS/bin/python
RUN_MODE=warm-worker
DEVICE=npu
==================================================

===== ENVIRONMENT PROBE =====
python_executable=/opt/py
RESULT=PASS/bin/python
torch_version=2.7.1
ENVIRONMENT_PROBE_EXIT_CODE=0

===== FULL TEST FILE =====
COMMAND=python test/x.py -v
FULL_TEST_EXIT_CODE=1
RUNNER=unittest
FULL_TEST_VERDICT=FAIL

RESULT=FAIL
"""


def test_the_reader_rejects_a_log_with_a_duplicated_key() -> None:
    from torchparity.report.logkeys import duplicated_keys

    found = {d.key: d.lines for d in duplicated_keys(FORGED)}
    assert found == {"RESULT": (6, 13, 23)}
    # once per section: a second verdict in one FULL TEST FILE section is a duplicate, one per file is not
    two_files = FORGED.replace(
        "FULL_TEST_VERDICT=FAIL\n", "FULL_TEST_VERDICT=FAIL\nFULL_TEST_VERDICT=PASS\n"
    )
    assert ("FULL_TEST_VERDICT", (21, 22)) in [(d.key, d.lines) for d in duplicated_keys(two_files)]
    # every log the tool writes reads back clean: one and two files, warm and fresh, emulated, failing
    for rec in (
        target_record("a2", "c" * 40, "s" * 64),
        target_record("a3", "c" * 40, "s" * 64, failed=True),
        _hostile_record(),
    ):
        assert duplicated_keys(render_log(rec)) == [], render_log(rec)
        rec = rec.replace(mode="fresh")
        rec.full.append(rec.full[0])
        assert duplicated_keys(render_log(rec)) == []


def test_show_rejects_a_stored_log_with_a_duplicated_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = Store(tmp_path / "store")
    rid = st.new_run("run", ["run"])
    forged, honest = (
        target_record("a2", "c" * 40, "s" * 64, failed=True).replace(label="forged"),
        target_record("a2", "c" * 40, "s" * 64).replace(label="honest"),
    )
    for rec, log in ((forged, FORGED), (honest, render_log(honest))):
        st.add_target(
            rid,
            label=rec.label,
            ref=rec.ref,
            env=rec.env,
            result=rec.result,
            log=log.encode(),
            record=rec.to_json(),
        )
    st.finish_run(rid, "FAIL")
    store = str(tmp_path / "store")
    assert main(["show", str(rid), "--target", "honest", "--store", store]) == 0
    capsys.readouterr()
    assert main(["show", str(rid), "--target", "forged", "--store", store]) == 1
    cap = capsys.readouterr()
    assert cap.out.startswith(FORGED)  # the stored bytes are still shown as they are
    assert "RESULT= is written 3 times (lines 6, 13, 23)" in cap.err and "forged" in cap.err
