"""Scaffold measures where the test will run (issue 34 item 3): on a device other than the CPU the
calls a test asserts are measured on that device, the candidate tests are checked there (a new
interpreter: a child forked from the agent's job cannot use the device the job started), and a test
that still fails there is never written as a passing one.

``torch._utils._get_device_index(None, True)`` reads the current device: on the emulated npu it
returns 0, while in a child forked after the device started it raises RuntimeError (as on hardware).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.cli import main
from torchparity.config import load_preset
from torchparity.errors import ExitCode
from torchparity.scaffold import FailsOnDevice, scaffold_test
from torchparity.scaffold.check import checked_on
from torchparity.scaffold.families import checked_plan

API = "torch._utils._get_device_index"
ON_DEVICE = "self.assertEqual(torch._utils._get_device_index(None, True), 0)"


@pytest.mark.slow
def test_an_expectation_that_differs_on_the_npu_is_the_npu_s_and_the_test_passes_there(
    tmp_path, capsys
):
    out = tmp_path / "tests"
    assert main(["scaffold", API, "--out", str(out), "--emulate", "npu"]) == 0
    captured = capsys.readouterr().out
    path = out / "test_get_device_index.py"
    assert f"wrote {path} (signature family, npu)" in captured
    assert "measured on npu" in captured
    text = path.read_text()
    assert ON_DEVICE in text  # the device's value, not the CPU fork's RuntimeError
    assert "RuntimeError" not in text
    assert main(["run", str(path), "--emulate", "npu"]) == 0
    assert "PASS" in capsys.readouterr().out


# -- without an interpreter: the agent's answers given -------------------------------------------
def _facts() -> dict[str, Any]:
    valid = [
        {"args": a, "literal": v, "type": "int", "states": [], "varies": w}
        for a, v, w in (("0", "0", ""), ("DEVICE", "0", "device"), ("None, True", "0", "device"))
    ]
    invalid = [{"args": "None", "raises": "ValueError", "varies": "device"}]
    return {
        "device_type": "npu",
        "torch_version": "2.13.0+cpu",
        "states": [],
        "callable": True,
        "calls": {
            "problem": "",
            "valid": valid,
            "invalid": invalid,
            "params": ["device", "optional", "allow_cpu"],
            "measured_on": "npu",
            "differs": [
                {"args": "None, True", "cpu": "raises RuntimeError", "device": "returns 0"}
            ],
        },
    }


class _Agent:
    """Answers scaffold's jobs: the facts above; every candidate passes and a stand-in breaks it; the
    file about to be written fails on the device (``written``)."""

    def __init__(self, written: str) -> None:
        self.written = written
        self.asked: list[tuple[str, dict[str, Any]]] = []

    def call(self, op: str, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.asked.append((op, args))
        if op == "scaffold_facts":
            return {"items": [_facts() for _ in args["items"]]}
        answers = []
        for item in args["items"]:
            tests = [
                line.split("def ", 1)[1].split("(")[0]
                for line in item["source"].splitlines()
                if line.strip().startswith("def test")
            ]
            status = self.written if item["key"] == "written" else "pass"
            clean = {t: {"status": status, "message": "AssertionError: 0 != 1"} for t in tests}
            broken = {t: {"status": "fail"} for t in tests}
            answers.append(
                {
                    "key": item["key"],
                    "clean": {"outcomes": clean, "error": ""},
                    "broken": {"outcomes": broken, "standin": {"replaced": [API]}},
                }
            )
        return {"items": answers}


def _scaffold(agent: _Agent, out: Path, write: bool = True) -> Any:
    info = api_info(resolution(API, "function", module="torch._utils"), "utility")
    return scaffold_test(
        info,
        load_preset("torch_npu"),
        python="python",
        device="npu",
        out_dir=out,
        backend_module="torch_npu",
        session=agent,  # type: ignore[arg-type]
        write=write,
    )


def test_the_candidates_run_on_the_device_in_a_new_interpreter_and_the_file_once_more(tmp_path):
    agent = _Agent(written="pass")
    result = _scaffold(agent, tmp_path)
    assert result.family == "signature" and ON_DEVICE in result.content
    assert "measured on npu" in result.summary
    (note,) = result.notes  # where the device and the CPU disagree, the reader is told
    assert f"{API}(None, True) returns 0 (CPU: raises RuntimeError)" in note
    checks = [args for op, args in agent.asked if op == "scaffold_check"]
    assert [c.get("fresh") for c in checks] == [True, True]
    assert all(c["backend"] == "torch_npu" for c in checks)
    assert all('DEVICE = torch.device("npu:0")' in i["source"] for c in checks for i in c["items"])
    assert [i["key"] for i in checks[1]["items"]] == ["written"]
    assert Path(result.path).read_text() == result.content
    # a family whose expected values come from the CPU is checked there: a backend bug never makes a
    # weaker family win
    assert checked_on(_facts(), "signature") == "npu" and checked_on(_facts(), "measured") == ""


def test_a_file_that_fails_on_its_device_exits_1_with_one_line(tmp_path):
    with pytest.raises(FailsOnDevice) as exc:
        _scaffold(_Agent(written="fail"), tmp_path / "dry", write=False)
    message = str(exc.value)
    assert "test_get_device_index.py fails on npu, where it will run (" in message
    assert "AssertionError: 0 != 1" in message and "\n" not in message
    assert "written" not in message and not (tmp_path / "dry").exists()
    assert FailsOnDevice.exit_code == ExitCode.FAILED  # the CLI: one ERROR line, exit 1
    with pytest.raises(FailsOnDevice, match="written all the same"):
        _scaffold(_Agent(written="error"), tmp_path)
    assert ON_DEVICE in (tmp_path / "test_get_device_index.py").read_text()


def test_a_test_failing_on_the_device_is_left_out_saying_where():
    from tests.scaffold.test_scaffold_families_units import _plan

    plan = _plan()
    (test,) = plan.tests
    failed = {"on": "npu", "clean": {"outcomes": {test: {"status": "error", "message": "E"}}}}
    assert checked_plan(plan, failed) == f"its test did not pass on npu ({test}: E)"
