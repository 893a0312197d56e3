"""Operators that have an OpInfo entry but got the fill-in before ("values").

* an OpInfo that lists none of the default dtypes (``view_as_real``: complex
  only) gets the dtypes it lists, complex64 compared with the same computation
  in complex128;
* an OpInfo that marks its values as undefined (its tests skip comparing them:
  "empty_like is not comparable") is checked on what is defined: the shape,
  dtype, layout, strides and ``requires_grad`` the meta kernels give for the
  same sample, never the values;
* an overload whose schema accepts none of the OpInfo's samples as they are
  (``max_unpool2d``: ``F.max_unpool2d`` takes ``kernel_size`` and ``stride``
  and works out ``output_size``) gets the arguments the OpInfo's function
  passes to it, recorded under a ``TorchDispatchMode``, compared with the
  OpInfo's function in float64.

Each is scaffolded for the CPU and for the emulated npu, passes there and
fails under a targeted break of its API.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold
from tests.scaffold.test_scaffold_generated import RUFF

pytestmark = pytest.mark.slow

CASES = (
    # the imaginary part negated, for complex64 only (complex128, the reference, stays right), and not for
    # torch's own callers: make_tensor fills a complex sample through the view view_as_real returns
    Case(
        "torch.view_as_real",
        "opinfo",
        "import sys\n"
        "vr = torch.view_as_real\n"
        "def broken(z):\n"
        "    out = vr(z)\n"
        "    if z.dtype != torch.complex64 or sys._getframe(1).f_globals['__name__'].startswith('torch.'):\n"
        "        return out\n"
        "    return torch.stack((out[..., 0], -out[..., 1]), -1)\n"
        "torch.view_as_real = broken",
    ),
    Case(
        "torch.ops.aten.view_as_real.default",
        "overload",  # the real and imaginary parts swapped
        "torch.ops.aten.view_as_real.default = lambda z: torch.view_as_real(z).flip(-1)",
    ),
    # a kernel that ignores the physical layout (contiguous strides), but not the meta kernel: the reference
    Case(
        "torch.empty_permuted",
        "opinfo",
        "ep = torch.empty_permuted\n"
        "torch.empty_permuted = lambda size, perm, **k: (\n"
        "    ep(size, perm, **k) if str(k.get('device')) == 'meta' else torch.empty(size, **k))",
    ),
    Case(
        "torch.Tensor.new_empty",
        "opinfo",  # dtype= ignored
        "ne = torch.Tensor.new_empty\n"
        "torch.Tensor.new_empty = lambda self, size, *, dtype=None, **k: ne(self, size, **k)",
    ),
    Case(
        "torch.Tensor.new_empty_strided",
        "opinfo",  # a kernel that ignores the strides (not the meta one)
        "nes = torch.Tensor.new_empty_strided\n"
        "torch.Tensor.new_empty_strided = lambda self, size, stride, **k: (\n"
        "    nes(self, size, stride, **k) if self.is_meta else self.new_empty(size, **k))",
    ),
    Case(
        "torch.ops.aten.empty_like.default",
        "overload",  # dtype= ignored
        "el = torch.ops.aten.empty_like.default\n"
        "torch.ops.aten.empty_like.default = lambda x, *, dtype=None, **k: el(x, **k)",
    ),
    Case(
        "torch.ops.aten.new_empty.default",
        "overload",  # the size reversed
        "ne = torch.ops.aten.new_empty.default\n"
        "torch.ops.aten.new_empty.default = lambda x, size, **k: ne(x, list(size)[::-1], **k)",
    ),
    Case(
        "torch.ops.aten.empty_strided.default",
        "overload",  # the strides ignored
        "torch.ops.aten.empty_strided.default = lambda size, stride, **k: torch.empty(size, **k)",
    ),
    Case(
        "torch.ops.aten.max_unpool2d",
        "overload",  # the indices ignored: every value to the first place
        "mu = torch.ops.aten.max_unpool2d.default\n"
        "torch.ops.aten.max_unpool2d = lambda x, i, s: mu(x, torch.zeros_like(i), s)",
    ),
    Case(
        "torch.ops.aten.max_unpool3d.default",
        "overload",  # the result mirrored along its last dimension
        "mu = torch.ops.aten.max_unpool3d.default\n"
        "torch.ops.aten.max_unpool3d.default = lambda x, i, s: mu(x, i, s).flip(-1)",
    ),
)
META = (
    "torch.empty_permuted",
    "torch.Tensor.new_empty",
    "torch.Tensor.new_empty_strided",
    "torch.ops.aten.empty_like.default",
    "torch.ops.aten.new_empty.default",
    "torch.ops.aten.empty_strided.default",
)
CAPTURED = ("torch.ops.aten.max_unpool2d", "torch.ops.aten.max_unpool3d.default")


def _check(cases, results):
    wrong = [
        (c.api, results[c.api].family, results[c.api].fill_in[:1])
        for c in cases
        if results[c.api].family != c.family
    ]
    assert not wrong, wrong
    for case in cases:
        text = Path(results[case.api].path).read_text()
        body = text.split("class Test", 1)[1]
        assert "DEVICE" in body, case.api  # the calls run on the device
        if case.api in META:  # the metadata against the meta kernels, never the values
            assert (
                '_sample_to(sample, "meta")' in body
                and "_assert_same_metadata(actual, expected, " in body
            )
            assert "_assert_matches" not in body and "stride()" in body, case.api
        if case.api in CAPTURED:  # the arguments the OpInfo's function passes to the operator
            assert (
                "class Record(TorchDispatchMode)" in body
                and "calls = self._aten_calls(op, sample)" in body
            )
            assert "widen=True" in body, case.api  # against the OpInfo's function in float64
        if "view_as_real" in case.api:
            assert "torch.complex64" in body and "complex128" in body, case.api


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("values"))
    _check(CASES, results)
    lint = subprocess.run(
        [*RUFF, *(results[c.api].path for c in CASES)], capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    """Facts measured on device npu of the emulated torch_npu; the samples move to the device there."""
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        CASES,
        [c.api for c in CASES],
        tmp_path_factory.mktemp("values-npu"),
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
