"""The ``lazy`` family: uninitialized parameters and buffers.

``UninitializedParameter`` (also as ``torch.nn.UninitializedParameter``),
``UninitializedBuffer`` and their ``materialize`` are scaffolded for the CPU and
for the emulated npu, pass there, and fail under a targeted break: a
materialize that adds a dimension, a buffer that ignores its dtype.
"""

from __future__ import annotations

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow

P = "torch.nn.parameter.UninitializedParameter"
B = "torch.nn.parameter.UninitializedBuffer"
EXTRA_DIM = (
    "M = torch.nn.parameter.UninitializedTensorMixin\nmat = M.materialize\n"
    "M.materialize = lambda self, shape, device=None, dtype=None: "
    "mat(self, tuple(shape) + (1,), device, dtype)"
)
FLOAT32 = (
    f"mat = {B}.materialize\n"
    f"{B}.materialize = lambda self, shape, device=None, dtype=None: mat(self, shape, device, torch.float32)"
)
CASES = (
    Case(P, "lazy", EXTRA_DIM),
    Case("torch.nn.UninitializedParameter", "lazy", EXTRA_DIM),
    Case(f"{P}.materialize", "lazy", EXTRA_DIM),
    Case(B, "lazy", FLOAT32),
    Case(f"{B}.materialize", "lazy", FLOAT32),
)


@pytest.mark.parametrize("emulated", [False, True], ids=["cpu", "npu-emulated"])
def test_each_gets_a_real_test_that_fails_once_broken(emulated, tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    extra: tuple = ()
    environ = None
    if emulated:
        from torchparity.emulated import EMULATIONS

        npu = EMULATIONS["npu"]
        environ = npu.environ()
        extra = (npu.module, npu.device, environ, "torch_npu")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("lazy"), *extra)
    for case in CASES:
        res = results[case.api]
        assert res.family == case.family and not res.notes, (case.api, res.fill_in, res.notes)
    _passes_and_fails_once_broken(CASES, results, tmp_path, environ)
