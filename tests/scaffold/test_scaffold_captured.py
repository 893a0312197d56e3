"""The ``captured`` family: ATen operators that OpInfo samples reach, no entry names.

Such an operator gets the call an OpInfo sample makes of it (recorded below
autograd, written out), run on the device and compared with the same call in
float64 on the CPU (its floating results: integer ones are each backend's bookkeeping). Each case is scaffolded for the CPU
and the emulated npu, passes there and fails under a targeted break.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold
from tests.scaffold.test_scaffold_backward import _wrapped
from tests.scaffold.test_scaffold_generated import RUFF

pytestmark = pytest.mark.slow

CASES = (
    Case(
        "torch._trilinear",
        "captured",  # the product halved
        _wrapped("torch._trilinear", "r * 0.5"),
    ),
    Case(
        "torch.ops.aten._embedding_bag",
        "captured",  # the last bag's row dropped
        _wrapped("torch.ops.aten._embedding_bag", "(r[0][:-1], r[1], r[2], r[3])"),
    ),
    Case(
        "torch._adaptive_avg_pool3d",
        "captured",  # the mirror image of the pooled output
        _wrapped("torch._adaptive_avg_pool3d", "torch.flip(r, [-1])"),
    ),
    Case(
        "torch.ops.aten._log_softmax.default",
        "captured",  # a softmax, not its log
        _wrapped("torch.ops.aten._log_softmax.default", "r.exp()"),
    ),
)


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("captured"))
    wrong = [
        (c.api, results[c.api].family, results[c.api].fill_in[:1])
        for c in CASES
        if results[c.api].family != c.family
    ]
    assert not wrong, wrong
    for case in CASES:
        text = Path(results[case.api].path).read_text()
        assert "self._widened(args)" in text and "self._to_device(args)" in text, case.api
        assert ".reshape(0" not in text, case.api  # no empty sample
    lint = subprocess.run(
        [*RUFF, *(results[c.api].path for c in CASES)], capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        CASES,
        [c.api for c in CASES],
        tmp_path_factory.mktemp("captured-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    assert all(results[c.api].family == c.family for c in CASES), [
        results[c.api].fill_in[:1] for c in CASES
    ]
    for case in CASES:
        assert 'DEVICE = torch.device("npu:0")' in Path(results[case.api].path).read_text(), (
            case.api
        )
    _passes_and_fails_once_broken(CASES, results, tmp_path, npu.environ())
