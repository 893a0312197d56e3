"""Backward kernels and operators only OpInfo samples reach, through the ``recorded`` family.

ATen backward kernels (``aten.convolution_backward``, ``torch._softmax_backward_data``) and
operators no OpInfo entry names (``torch._trilinear``, ``aten._embedding_bag``) are called by
running OpInfo samples: the ``recorded`` family writes out such a call, makes it on the device and
compares with what the CPU gave. Each case is scaffolded for the CPU (and the emulated npu), passes
there and fails under a targeted break of the operator: a wrapper that keeps its overloads and
returns a wrong result (a gradient doubled, its sign flipped, off by a little everywhere, a bag's
row dropped).
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


def _case(api: str, result: str) -> Case:
    return Case(api, "recorded", _wrapped(api, result))


CASES = (
    _case("torch.ops.aten.upsample_bicubic2d_backward", "r * 2"),
    _case("torch.ops.aten.soft_margin_loss_backward.default", "-r"),
    _case("torch.ops.aten.max_pool2d_with_indices_backward", "torch.flip(r, [-1])"),
    _case("torch.ops.aten.masked_scatter_backward", "torch.zeros_like(r)"),
    _case("torch.ops.aten.adaptive_max_pool2d_backward", "r + 1e-2"),
    _case("torch.ops.aten._adaptive_avg_pool3d_backward", "r + 1e-2"),
    _case("torch._softmax_backward_data", "a[0].clone()"),
    _case("torch._trilinear", "r * 0.5"),
    _case("torch.ops.aten._embedding_bag", "(r[0][:-1], r[1], r[2], r[3])"),
    _case("torch._adaptive_avg_pool3d", "torch.flip(r, [-1])"),
    _case("torch.ops.aten._log_softmax.default", "r.exp()"),
    # only a call over MAX_ARGS reaches it: its smallest one is taken
    _case("torch.ops.aten.adaptive_max_pool3d_backward", "r * 0.5"),
)
#: the emulated npu has no convolution backward kernel: its test fails there (what a backend without it sees)
CPU_ONLY = (_case("torch.ops.aten.convolution_backward", "(r[0], r[1], torch.zeros_like(r[2]))"),)


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
    results, _ = _scaffold(cases, [c.api for c in cases], tmp_path_factory.mktemp("kernels"))
    _check(cases, results)
    for case in cases:
        text = Path(results[case.api].path).read_text()
        assert "torch.testing.assert_close(" in text, case.api
        assert "TorchDispatchMode" not in text, case.api  # its arguments are written out
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
        tmp_path_factory.mktemp("kernels-npu"),
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
