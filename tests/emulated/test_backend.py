"""The emulated NPU itself, in real interpreters with torch: device paths, dispatch, the fork rule."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.emulated.conftest import emulated_env, run_python

pytestmark = pytest.mark.slow

CHECKS = Path(__file__).with_name("npu_checks.py")


def test_every_check_of_the_emulated_device_passes() -> None:
    res = subprocess.run(
        [sys.executable, str(CHECKS), "-v"],
        capture_output=True,
        text=True,
        env=emulated_env(),
        timeout=600,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Ran 25 tests" in res.stderr and "FAIL" not in res.stderr and "ERROR" not in res.stderr
    assert "skipped 'needs one of Ascend910B; this is Emulated NPU (CPU)'" in res.stderr


COUNT = "import json, torch, torch_npu; print(json.dumps([torch.npu.device_count(), torch.npu.is_available()]))"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({}, [2, True]),
        ({"TORCH_NPU_EMULATED_DEVICE_COUNT": "4"}, [4, True]),
        ({"ASCEND_RT_VISIBLE_DEVICES": "1"}, [1, True]),
        ({"ASCEND_RT_VISIBLE_DEVICES": "1,0"}, [2, True]),
        # read up to the first id the machine does not have, as CUDA_VISIBLE_DEVICES is
        ({"ASCEND_RT_VISIBLE_DEVICES": "0,7,1"}, [1, True]),
        ({"ASCEND_RT_VISIBLE_DEVICES": ""}, [0, False]),
        ({"TORCH_NPU_EMULATED_DEVICE_COUNT": "0"}, [0, False]),
    ],
)
def test_device_count_is_configurable_and_honours_the_visibility_mask(extra, expected) -> None:
    res = run_python(COUNT, **extra)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == expected


def test_a_hidden_device_cannot_be_used() -> None:
    res = run_python(
        """
        import torch, torch_npu
        try:
            torch.ones(1, device="npu:1")
        except RuntimeError as exc:
            print(exc)
    """,
        ASCEND_RT_VISIBLE_DEVICES="1",
    )
    assert "Invalid device ordinal npu:1: 1 NPU device(s) visible" in res.stdout, res.stderr


FORK = """
    import os, torch, torch_npu
    print("initialised after import:", torch.npu.is_initialized())
    if {init_first}:
        torch.ones(1, device="npu")  # the first device use initialises the runtime
    pid = os.fork()
    if pid == 0:
        try:
            print("child:", torch.ones(2, device="npu").sum().item(), flush=True)
            os._exit(0)
        except RuntimeError as exc:
            print("child failed:", exc, flush=True)
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    print("child exit:", os.WEXITSTATUS(status))
"""


def test_a_device_initialised_before_fork_is_unusable_in_the_child() -> None:
    res = run_python(FORK.format(init_first=True))
    assert "initialised after import: False" in res.stdout
    assert "child failed: Cannot re-initialize NPU in forked subprocess" in res.stdout, (
        res.stdout + res.stderr
    )
    assert "'spawn' start method" in res.stdout and "child exit: 1" in res.stdout


def test_importing_then_forking_is_fine() -> None:
    res = run_python(FORK.format(init_first=False))
    assert "child: 2.0" in res.stdout and "child exit: 0" in res.stdout, res.stdout + res.stderr


def test_a_backend_that_initialises_on_import_breaks_the_fork_rule() -> None:
    res = run_python(FORK.format(init_first=False), TORCH_NPU_EMULATED_INIT_ON_IMPORT="1")
    assert "initialised after import: True" in res.stdout
    assert "child failed: Cannot re-initialize NPU in forked subprocess" in res.stdout, (
        res.stdout + res.stderr
    )
