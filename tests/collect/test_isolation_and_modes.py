"""Isolation probe, leak detection, warm worker vs fresh interpreters (real torch, real git)."""

from __future__ import annotations

import os
import re

import pytest

from tests.collect import files
from tests.collect.test_collector import _keys, _logs, _records, _run
from tests.conftest import git
from torchparity.exec import FreshRunner, make_runner

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow


TEST = "test/npu/test_grad.py"
API = "torch.autograd.grad_mode.set_grad_enabled.clone"


def test_grad_mode_isolation_lines_like_the_seed(tmp_path, make_repo, python_with_torch):
    repo = make_repo({"master": {TEST: files.SEED_LIKE}})
    rc = _run(
        tmp_path,
        TEST,
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--isolation",
        "--api",
        API,
    )
    assert rc == 0
    log = next(iter(_logs(tmp_path).values()))
    assert "===== GRAD MODE ISOLATION PROBE =====" in log
    results = re.findall(r"^ISOLATION_RESULT=(.*)$", log, re.MULTILINE)
    assert results == [
        "initial:False,before:False,after:False,tests_run:2,successful:True",
        "initial:True,before:True,after:True,tests_run:2,successful:True",
    ]
    keys = _keys(log)
    assert keys["PROCESS_ORIGINAL_GRAD_MODE"] == "True"
    assert keys["PROCESS_FINAL_GRAD_MODE"] == "True"
    assert keys["GRAD_MODE_ISOLATION_PROBE"] == "PASS"
    assert keys["GRAD_MODE_ISOLATION_EXIT_CODE"] == "0"
    # the probe ran exactly the API's two tests, from both start values
    section = log.split("===== GRAD MODE ISOLATION PROBE =====")[1]
    assert section.count("test_set_grad_enabled_clone (") == 2
    assert section.count("test_set_grad_enabled_clone_decorator (") == 2
    assert "test_no_grad" not in section


def test_leaky_test_is_named_and_fails_isolation(tmp_path, make_repo, python_with_torch):
    repo = make_repo({"master": {"test/test_leaky.py": files.LEAKY}})
    rc = _run(
        tmp_path,
        "test/test_leaky.py",
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--isolation",
        "--state",
        "grad_mode",
        "-k",
        "leaks",
    )
    assert rc == 1
    log = next(iter(_logs(tmp_path).values()))
    keys = _keys(log)
    assert keys["STATE_LEAK"] == (
        "test:__main__.TestLeaky.test_set_grad_enabled_clone_leaks,state:grad_mode,before:True,after:False"
    )
    assert keys["STATE_LEAK_CHECK"] == "LEAKS"
    assert log.count("STATE_LEAK=") == 1  # the clean test is not named
    # starting from True, the test leaves False behind: not restored
    assert (
        "ISOLATION_RESULT=initial:True,before:True,after:False,tests_run:1,successful:True" in log
    )
    assert keys["GRAD_MODE_ISOLATION_PROBE"] == "FAIL"
    assert keys["RESULT"] == "FAIL"


def test_clean_file_reports_no_leak(tmp_path, make_repo, python_with_torch):
    repo = make_repo({"master": {TEST: files.SEED_LIKE}})
    assert (
        _run(tmp_path, TEST, "--repo", str(repo), "--python", python_with_torch, "--fail-on-leak")
        == 0
    )
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert keys["STATE_LEAK_CHECK"] == "PASS" and "STATE_LEAK" not in keys


def _unplace(text: str) -> str:
    """The same file runs from a different temporary worktree each time."""
    return re.sub(r"/torchparity-wt-[^/]+/", "/WORKTREE/", text)


def _runner_lines(output: str) -> list[str]:
    """The runner's own lines, without the timing figure."""
    return [re.sub(r" in [\d.]+s$", "", line) for line in _unplace(output).splitlines()]


def test_warm_and_fresh_give_the_same_results(tmp_path, make_repo, python_with_torch):
    repo = make_repo(
        {
            "master": {
                TEST: files.SEED_LIKE,
                "test/test_broken.py": files.FAILING,
                "test/test_leaky.py": files.LEAKY,
            }
        }
    )
    names = [TEST, "test/test_broken.py", "test/test_leaky.py"]
    common = [
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--isolation",
        "--state",
        "grad_mode",
    ]
    assert _run(tmp_path, *names, *common) == 1
    assert _run(tmp_path, *names, *common, "--fresh") == 1
    warm = next(iter(_records(tmp_path, 1).values()))
    fresh = next(iter(_records(tmp_path, 2).values()))
    assert warm["mode"] == "warm" and fresh["mode"] == "fresh"
    for w, f in zip(warm["full"], fresh["full"], strict=True):
        assert _unplace(str(w["tests"])) == _unplace(str(f["tests"]))
        assert w["exit_code"] == f["exit_code"]
        assert _runner_lines(w["output"]) == _runner_lines(f["output"])
    assert warm["leaks"] == fresh["leaks"] and warm["leaks"]
    for w, f in zip(warm["isolation"], fresh["isolation"], strict=True):
        assert w["result"]["runs"] == f["result"]["runs"]
    logs = [next(iter(_logs(tmp_path, i).values())) for i in (1, 2)]
    assert "RUN_MODE=warm-worker" in logs[0] and "EXECUTED_AS=forked child" in logs[0]
    assert "RUN_MODE=fresh" in logs[1] and "EXECUTED_AS" not in logs[1]


def test_warm_worker_survives_crash_hang_and_its_own_death(tmp_path, make_repo, python_with_torch):
    repo = make_repo(
        {
            "master": {
                "test/test_abort.py": files.ABORTING,
                "test/test_hang.py": files.HANGING,
                "test/test_kill.py": files.KILLS_WORKER,
                TEST: files.SEED_LIKE,
            }
        }
    )
    names = ["test/test_abort.py", "test/test_hang.py", "test/test_kill.py", TEST]
    rc = _run(
        tmp_path, *names, "--repo", str(repo), "--python", python_with_torch, "--timeout", "12"
    )  # also the bound on the worker's (re)start
    assert rc == 1
    rec = next(iter(_records(tmp_path).values()))
    statuses = [(s["test_file"], s["status"], s["signal"]) for s in rec["full"]]
    assert statuses == [
        ("test/test_abort.py", "CRASH", "SIGABRT"),
        ("test/test_hang.py", "TIMEOUT", "SIGKILL"),
        ("test/test_kill.py", "WORKER_DIED", "SIGKILL"),  # the worker itself was killed
        (TEST, "OK", ""),
    ]
    assert [t["outcome"] for t in rec["full"][3]["tests"]] == ["passed"] * 3
    log = next(iter(_logs(tmp_path).values()))
    lane = re.search(r"lane pid (\d+) of warm worker pid (\d+) died during this job", log)
    if (
        lane
    ):  # a worker with lanes (one per core): the lane the test killed is gone, the others go on
        after = re.findall(r"forked child \(pid \d+\) of lane pid (\d+)", log.split(lane[0], 1)[1])
        assert after and lane[1] not in after
        assert set(re.findall(r"warm worker pid (\d+)", log)) == {lane[2]}
    else:  # a worker of one lane: it is the one killed, and it is restarted
        assert "the warm worker died during this job" in log
        pids = set(re.findall(r"warm worker pid (\d+)", log))
        assert len(pids) == 2  # restarted once
    assert git(repo, "worktree", "list").count("\n") == 0


def test_fork_unavailable_falls_back_to_fresh(monkeypatch, tmp_path, capsys):
    monkeypatch.delattr(os, "fork")
    runner = make_runner("warm", os.sys.executable, "", "cpu", tmp_path)
    assert isinstance(runner, FreshRunner)
    assert "fork is unavailable" in capsys.readouterr().err


def test_a_file_that_does_not_import_fails_its_isolation_probe_with_the_reason(
    tmp_path, make_repo, python_with_torch
):
    broken = "import torch\nimport no_such_module_for_torchparity_tests\n"
    repo = make_repo({"master": {"test/test_broken_import.py": broken}})
    rc = _run(
        tmp_path,
        "test/test_broken_import.py",
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--isolation",
        "--state",
        "grad_mode",
    )
    assert rc == 1
    log = next(iter(_logs(tmp_path).values()))
    keys = _keys(log)
    assert "===== GRAD MODE ISOLATION PROBE =====" in log
    assert (
        keys["GRAD_MODE_ISOLATION_ERROR"] == "the test file could not be imported (traceback above)"
    )
    assert "No module named 'no_such_module_for_torchparity_tests'" in log
    assert (
        keys["GRAD_MODE_ISOLATION_PROBE"] == "FAIL" and keys["GRAD_MODE_ISOLATION_EXIT_CODE"] == "1"
    )


def test_a_state_absent_for_this_device_is_skipped_with_a_note(
    tmp_path, make_repo, python_with_torch
):
    repo = make_repo({"master": {TEST: files.SEED_LIKE}})
    rc = _run(
        tmp_path,
        TEST,
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--device",
        "cpu",
        "--isolation",
        "--state",
        "autocast_device",
    )
    assert rc == 0
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert (
        keys["AUTOCAST_DEVICE_ISOLATION_SKIPPED"]
        == "no autocast_device state when the device is cpu"
    )
    assert (
        keys["AUTOCAST_DEVICE_ISOLATION_PROBE"] == "NOT_RUN"
    )  # skipped: it ran nothing, so it did not pass
