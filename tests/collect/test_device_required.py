"""A requested device that is not there is a broken environment (exit 3), not a pass on the cpu.

This machine has torch's CPU build only: npu, cuda and a made-up device are all absent.
"""

from __future__ import annotations

import pytest

from tests.collect import files
from tests.collect.test_collector import _keys, _logs, _records, _run
from torchparity.cli import main

TEST = "test/test_grad.py"


@pytest.mark.slow
@pytest.mark.parametrize("device", ["npu", "cuda", "no_such_device"])
@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_a_missing_device_is_exit_3_naming_it(
    tmp_path, make_repo, python_with_torch, capsys, device, mode
):
    repo = make_repo({"master": {TEST: files.SEED_LIKE}})
    extra = ["--fresh"] if mode == "fresh" else []
    rc = _run(
        tmp_path,
        TEST,
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--device",
        device,
        *extra,
    )
    out = capsys.readouterr().out
    assert rc == 3
    said = [ln for ln in out.splitlines() if f"device {device} is not available" in ln]
    assert len(said) == 1
    assert f"the probe saw {device}_available=False, {device}_device_count=0" in said[0]
    assert "--allow-cpu-fallback" in said[0]
    rec = next(iter(_records(tmp_path).values()))
    assert rec["result"] == "ERROR" and rec["full"] == []  # no test ran on another device instead
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert keys["RESULT"] == "ERROR" and keys[f"{device}_available"] == "False"


def test_cpu_fallback_only_when_asked_and_said(agent, tmp_path, make_repo, python_with_torch):
    repo = make_repo({"master": {TEST: files.SEED_LIKE}})
    rc = _run(
        tmp_path,
        TEST,
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--device",
        "npu",
        "--allow-cpu-fallback",
    )
    assert rc == 0
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert keys["DEVICE"] == "cpu" and keys["device_requested"] == "npu"
    assert keys["DEVICE_CHOICE"].startswith(
        "requested npu, which is not available (npu_available=False"
    )
    assert "--allow-cpu-fallback" in keys["DEVICE_CHOICE"]


def test_auto_says_which_device_and_why(agent, tmp_path, make_repo, python_with_torch, capsys):
    repo = make_repo({"master": {TEST: files.SEED_LIKE}})
    assert (
        _run(tmp_path, TEST, "--repo", str(repo), "--python", python_with_torch, "--device", "auto")
        == 0
    )
    err = capsys.readouterr().err
    assert "device cpu (auto: torch.cuda, torch.xpu and torch.mps report no device; the cpu)" in err
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert keys["DEVICE_CHOICE"].startswith("auto: ") and keys["device_requested"] == "auto"


@pytest.mark.slow
@pytest.mark.parametrize("verb", [["resolve", "torch.add", "--no-trace"], ["trace", "torch.add"]])
def test_agent_verbs_refuse_a_missing_device(python_with_torch, capsys, verb):
    rc = main([*verb, "--python", python_with_torch, "--device", "npu"])
    err = capsys.readouterr().err
    assert rc == 3
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("ERROR: device npu is not available"), err
