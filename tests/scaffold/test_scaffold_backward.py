"""The ``backward`` family: ATen backward kernels against central differences.

A backward kernel gets the forward ATen call whose backward reaches it (found by
recording OpInfo samples), the kernel's arguments as autograd passed them on the
CPU, written out, and its outputs compared on the device with central
differences of the forward in float64. Each case is scaffolded for the CPU (and
the emulated npu), passes there and fails under a targeted break of the kernel:
a wrapper that keeps the operator's overloads and returns a wrong gradient.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold
from tests.scaffold.test_scaffold_generated import RUFF

pytestmark = pytest.mark.slow


def _wrapped(spelling: str, result: str) -> str:
    """Code that replaces ``spelling`` by a callable returning ``result`` of the real one's ``r``."""
    return (
        f"_real = {spelling}\n"
        "class _Broken:\n"
        "    def __getattr__(self, name):\n"
        "        return getattr(_real, name)\n"
        "    def __call__(self, *a, **k):\n"
        "        r = _real(*a, **k)\n"
        f"        return {result}\n"
        f"{spelling} = _Broken()\n"
    )


CASES = (
    Case(
        "torch.ops.aten.upsample_bicubic2d_backward",
        "backward",  # the gradient doubled
        _wrapped("torch.ops.aten.upsample_bicubic2d_backward", "r * 2"),
    ),
    Case(
        "torch.ops.aten.soft_margin_loss_backward.default",
        "backward",  # the sign flipped
        _wrapped("torch.ops.aten.soft_margin_loss_backward.default", "-r"),
    ),
    Case(
        "torch.ops.aten.max_pool2d_with_indices_backward",
        "backward",  # routed to the mirrored position
        _wrapped("torch.ops.aten.max_pool2d_with_indices_backward", "torch.flip(r, [-1])"),
    ),
    Case(
        "torch.ops.aten.masked_scatter_backward",
        "backward",  # the source's gradient lost
        _wrapped("torch.ops.aten.masked_scatter_backward", "torch.zeros_like(r)"),
    ),
    Case(
        "torch.ops.aten._adaptive_avg_pool3d_backward",
        "backward",  # off by a little everywhere
        _wrapped("torch.ops.aten._adaptive_avg_pool3d_backward", "r + 1e-2"),
    ),
    Case(
        "torch._softmax_backward_data",
        "backward",  # the softmax's own derivative dropped
        _wrapped("torch._softmax_backward_data", "a[0].clone()"),
    ),
    Case(
        "torch.ops.aten.replication_pad1d_backward.grad_input",
        "backward",  # out= written, then scaled
        _wrapped("torch.ops.aten.replication_pad1d_backward.grad_input", "r.mul_(0.5)"),
    ),
)
#: the emulated npu has no convolution backward kernel: its test fails there (what a backend without it sees)
CPU_ONLY = (
    Case(
        "torch.ops.aten.convolution_backward",
        "backward",  # no bias gradient
        _wrapped("torch.ops.aten.convolution_backward", "(r[0], r[1], torch.zeros_like(r[2]))"),
    ),
)


def _check(cases, results):
    wrong = [
        (c.api, results[c.api].family, results[c.api].fill_in[:1])
        for c in cases
        if results[c.api].family != c.family
    ]
    assert not wrong, wrong


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    cases = CASES + CPU_ONLY
    results, _ = _scaffold(cases, [c.api for c in cases], tmp_path_factory.mktemp("backward"))
    _check(cases, results)
    for case in cases:
        text = Path(results[case.api].path).read_text()
        assert "self._central_differences(" in text, case.api  # the independent reference
        assert "_to_device(call_args)" in text, case.api  # the kernel runs on the device
        assert "TorchDispatchMode" not in text, case.api  # its arguments are written out
    conv = Path(results["torch.ops.aten.convolution_backward"].path).read_text()
    assert conv.count("torch.testing.assert_close(") == 3  # input, weight and bias gradients
    lint = subprocess.run(
        [*RUFF, *(results[c.api].path for c in cases)], capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout
    _passes_and_fails_once_broken(cases, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        CASES,
        [c.api for c in CASES],
        tmp_path_factory.mktemp("backward-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    _check(CASES, results)
    for case in CASES:
        assert 'DEVICE = torch.device("npu:0")' in Path(results[case.api].path).read_text(), (
            case.api
        )
    _passes_and_fails_once_broken(CASES, results, tmp_path, npu.environ())
