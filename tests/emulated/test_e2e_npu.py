"""End to end on device npu: the tool's own interpreter (torch 2.13.0 CPU) with the emulated torch_npu.

``verify`` on a fixture backend repo in the torch_npu preset (two branches, docs, a scaffolded test on
``npu:0``), a dispatch trace whose ops ran on npu, a leaky test, a timeout and a crash recorded as they
are on cpu, two devices, and the warm worker's fork rule tested for real.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from tests.docs.docs_pages import torch_page
from tests.emulated import npu_files
from tests.emulated.conftest import NPU, log_keys, single_target
from torchparity.cli import main
from torchparity.store import Store

pytestmark = pytest.mark.slow

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
SEED = "test/npu/test_grad.py"
EMULATED_LINE = (
    "EMULATED=npu emulated on CPU (torch_npu 0.0.0+emulated): a dry run, not hardware evidence"
)


@pytest.fixture(autouse=True)
def _clean_device_environment(monkeypatch):
    for name in (
        "ASCEND_RT_VISIBLE_DEVICES",
        "TORCH_NPU_EMULATED_DEVICE_COUNT",
        "TORCH_NPU_EMULATED_INIT_ON_IMPORT",
    ):
        monkeypatch.delenv(name, raising=False)


def _run(tmp_path: Path, *args: str) -> int:
    return main(["run", *args, "--store", str(tmp_path / "store")])


def _backend_repo(make_repo) -> Path:
    config = textwrap.dedent(f'''
        preset = "torch_npu"
        active_branches = ["master", "v2.7.1"]

        [envs.dry]
        python = "{sys.executable}"
        emulated = "npu"
    ''')
    docs = "docs/zh/api/native_api"
    related = npu_files.SEED_LIKE.replace("def test_set_grad_enabled_clone", "def _unused_clone")
    related = related.replace(
        ".clone()", ""
    )  # uses set_grad_enabled, never clone(): related, not direct
    return make_repo(
        {
            "master": {
                "torchparity.toml": config,
                "test/npu/test_locally_disabling_gradient.py": related,
                f"{docs}/pytorch_2-7-1/torch.md": torch_page("table", "2.7.1", with_clone=True),
                f"{docs}/pytorch_2-11-0/torch.md": torch_page("list", "2.11.0", with_clone=True),
            },
            "v2.7.1": {"test/npu/test_other.py": "X = 1\n"},
        }
    )


def test_verify_on_a_torch_npu_backend_repo_runs_on_the_emulated_npu(
    tmp_path, make_repo, monkeypatch, capsys
):
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "0,1")
    repo = _backend_repo(make_repo)
    out, store = tmp_path / "out", tmp_path / "store"
    rc = main(
        ["verify", API, "--repo", str(repo), "--out", str(out), "--store", str(store), "--json"]
    )
    captured = capsys.readouterr()
    verdict = json.loads(captured.out)
    # everything passes on the emulated npu, and the checklist does not take it for hardware evidence
    assert verdict["targets"] == [
        {"label": "master@dry", "result": "PASS"},
        {"label": "v2.7.1@dry", "result": "PASS"},
    ]
    assert verdict["blockers"] == [
        "EMULATED: every target ran on an emulated npu (on CPU): a dry run, not hardware evidence; verify on the "
        "device"
    ], captured.err
    assert rc == 1
    assert "EMULATED npu on CPU:" in captured.err and "nothing installed" in captured.err

    # the scaffolded test is in the backend's conventions, on npu:0
    test = (out / Path(verdict["outputs"]["test"]).name).read_text()
    assert "# Copyright (c) " in test and "Huawei Technologies Co., Ltd" in test
    assert "from torch_npu.testing.testcase import TestCase, run_tests" in test
    assert 'torch.device("npu:0")' in test

    st = Store(store)
    (run,) = st.runs()
    for t in st.targets(run.id):
        log = st.blobs.read(t.log_sha).decode()
        keys = log_keys(log)
        assert keys["DEVICE"] == "npu (emulated on CPU)" and log.count(EMULATED_LINE) == 2
        assert keys["npu_available"] == "True" and keys["npu_device_count"] == "2"
        assert keys["torch_npu_version"] == "0.0.0+emulated" and keys["torch_npu_emulated"] == "cpu"
        assert keys["torch_npu_file"] == str(NPU.root / "torch_npu" / "__init__.py")
        assert keys["environ_ASCEND_RT_VISIBLE_DEVICES"] == "0,1"
        assert keys["device_initialized_at_import"] == "False"
        assert keys["GRAD_MODE_ISOLATION_PROBE"] == "PASS" and keys["STATE_LEAK_CHECK"] == "PASS"
        assert f"PYTHONPATH={NPU.root} {sys.executable}" in keys["COMMAND"]
        # the dispatch trace saw the decorator test's multiply on the npu
        assert re.search(r"^TRACE_OP=aten::mul\.Tensor,devices:npu,count:\d+$", log, re.M), log
        assert st.read_json(t.record_sha)["emulated"] == "npu"

    pr = (out / "pr.zh.md").read_text()
    section = pr.split("# 【功能验证】", 1)[1]
    assert "**试运行（dry run）**" in section and "提交前须替换为真实硬件上的验证证据" in section
    assert "- [ ] 功能验证在真实设备上运行（不是仿真设备）" in pr
    assert "Emulated NPU (CPU)" in (out / "comment.zh.md").read_text()


def test_a_leak_a_timeout_a_crash_and_two_devices_are_recorded_as_on_cpu(tmp_path, make_repo):
    repo = make_repo(
        {
            "master": {
                "test/npu/test_abort.py": npu_files.ABORTING,
                "test/npu/test_hang.py": npu_files.HANGING,
                "test/npu/test_leaky.py": npu_files.LEAKY,
                "test/npu/test_two.py": npu_files.TWO_DEVICES,
            }
        }
    )
    names = [
        "test/npu/test_abort.py",
        "test/npu/test_hang.py",
        "test/npu/test_leaky.py",
        "test/npu/test_two.py",
    ]
    rc = _run(
        tmp_path,
        *names,
        "--repo",
        str(repo),
        "--python",
        sys.executable,
        "--emulate",
        "npu",
        "--timeout",
        "12",
    )
    assert rc == 1
    log, rec = single_target(tmp_path / "store")
    assert rec["emulated"] == "npu" and rec["device"] == "npu"
    statuses = [(s["test_file"], s["status"], s["signal"]) for s in rec["full"]]
    assert statuses == [
        ("test/npu/test_abort.py", "CRASH", "SIGABRT"),
        ("test/npu/test_hang.py", "TIMEOUT", "SIGKILL"),
        ("test/npu/test_leaky.py", "OK", ""),
        ("test/npu/test_two.py", "OK", ""),
    ]
    assert [t["outcome"] for t in rec["full"][3]["tests"]] == ["passed", "passed"]
    assert (
        "FULL_TEST_STATUS=CRASH signal=SIGABRT" in log
        and "FULL_TEST_STATUS=TIMEOUT signal=SIGKILL" in log
    )
    assert (
        "STATE_LEAK=test:__main__.TestLeaky.test_multithreading_leaks,state:multithreading,"
        "before:True,after:False"
    ) in log
    assert log.count("STATE_LEAK=") == 1
    assert log.count(EMULATED_LINE) == 2


def test_the_seed_file_passes_with_both_isolation_lines(tmp_path, make_repo):
    repo = make_repo({"master": {SEED: npu_files.SEED_LIKE}})
    rc = _run(
        tmp_path,
        SEED,
        "--repo",
        str(repo),
        "--python",
        sys.executable,
        "--emulate",
        "npu",
        "--isolation",
        "--api",
        API,
    )
    log, _ = single_target(tmp_path / "store")
    assert rc == 0, log
    assert "Ran 3 tests" in log
    assert (
        "ISOLATION_RESULT=initial:False,before:False,after:False,tests_run:2,successful:True" in log
    )
    assert "ISOLATION_RESULT=initial:True,before:True,after:True,tests_run:2,successful:True" in log


def test_a_worker_that_initialised_the_device_before_fork_is_caught(
    tmp_path, make_repo, monkeypatch
):
    repo = make_repo({"master": {SEED: npu_files.SEED_LIKE}})
    common = [SEED, "--repo", str(repo), "--python", sys.executable, "--emulate", "npu"]
    # the real warm worker imports the backend and never initialises the device before it forks
    assert _run(tmp_path / "good", *common) == 0
    assert (
        log_keys(single_target(tmp_path / "good" / "store")[0])["device_initialized_at_import"]
        == "False"
    )

    # a backend that initialises its device on import: every forked job finds it unusable
    monkeypatch.setenv("TORCH_NPU_EMULATED_INIT_ON_IMPORT", "1")
    assert _run(tmp_path / "bad", *common) == 1
    log, rec = single_target(tmp_path / "bad" / "store")
    keys = log_keys(log)
    assert keys["device_initialized_at_import"] == "True" and keys["RESULT"] == "FAIL"
    assert (
        "torchparity: device initialisation failed: the npu device was already initialised in the warm "
        "worker when it imported the backend, before this job was forked"
    ) in log
    assert "Cannot re-initialize NPU in forked subprocess" in log
    # the file's own torch.npu.set_device at import is the first device use: it raises there
    assert rec["full"][0]["status"] == "FAIL" and rec["full"][0]["tests"] == []
    assert "RuntimeError: Cannot re-initialize NPU in forked subprocess" in rec["full"][0]["output"]

    # without a fork (fresh interpreters) the same backend works: the cause is the fork, as the message says
    assert _run(tmp_path / "fresh", *common, "--fresh") == 0
