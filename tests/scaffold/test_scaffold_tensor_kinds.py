"""The ``kinds`` family: APIs that take or give tensors of another kind (sparse, nested, quantized).

Each is scaffolded for the CPU, checked with ruff, run there (it passes) and
run again under a targeted break of its own behaviour (it fails).
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
    Case(
        "torch.Tensor.crow_indices",
        "kinds",  # the column indices in place of the compressed rows
        "torch.Tensor.crow_indices = lambda self: torch.Tensor.col_indices(self)",
    ),
    Case(
        "torch.Tensor.coalesce",
        "kinds",  # nothing merged or sorted
        "torch.Tensor.coalesce = lambda self: self",
    ),
    Case(
        "torch.Tensor.values",
        "kinds",  # the values in reverse order
        "tv = torch.Tensor.values\ntorch.Tensor.values = lambda self: tv(self).flip(0)",
    ),
    Case(
        "torch.sparse.sum",
        "kinds",  # twice the sum
        "ss = torch.sparse.sum\ntorch.sparse.sum = lambda *a, **k: ss(*a, **k) * 2",
    ),
    Case(
        "torch.sparse.log_softmax",
        "kinds",  # the softmax, not its log
        "torch.sparse.log_softmax = torch.sparse.softmax",
    ),
    Case(
        "torch.nested.to_padded_tensor",
        "kinds",  # the padding value ignored
        "tp = torch.nested.to_padded_tensor\n"
        "torch.nested.to_padded_tensor = lambda x, padding, *a, **k: tp(x, padding + 1.0, *a, **k)",
    ),
    # "kinds|recorded": an operator torch's own code calls is now tried by the recorded family first
    Case(
        "torch._nested_tensor_from_mask",
        "kinds|recorded",  # the values doubled
        "nm = torch._nested_tensor_from_mask\n"
        "torch._nested_tensor_from_mask = lambda t, m, *a, **k: nm(t * 2, m, *a, **k)",
    ),
    Case(
        "torch.ops.aten._values.default",
        "kinds|recorded",  # the values negated
        "torch.ops.aten._values.default = lambda x: -x._values()",
    ),
    Case(
        "torch.resize_as_sparse_",
        "kinds",  # nothing resized
        "torch.resize_as_sparse_ = lambda x, t: x",
    ),
    Case(
        "torch._validate_sparse_coo_tensor_args",
        "kinds",  # nothing checked
        "torch._validate_sparse_coo_tensor_args = lambda *a, **k: None",
    ),
    Case(
        "torch.Tensor.q_per_channel_scales",
        "kinds",  # the scales of the other channel order
        "qs = torch.Tensor.q_per_channel_scales\n"
        "torch.Tensor.q_per_channel_scales = lambda self: qs(self).flip(0)",
    ),
    Case(
        "torch.ao.quantization.enable_observer",
        "kinds",  # the fake quantization switched on instead
        "torch.ao.quantization.enable_observer = torch.ao.quantization.enable_fake_quant",
    ),
)
#: what a module's switches are: Python state, no tensor on the device
OFF_DEVICE = (
    "torch.ao.quantization.enable_observer",
    "torch._validate_sparse_coo_tensor_args",
    "torch.Tensor.q_per_channel_scales",
)


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("tensor-kinds"))
    wrong = [
        (c.api, results[c.api].family, results[c.api].fill_in[:1])
        for c in CASES
        if results[c.api].family not in c.family.split("|")
    ]
    assert not wrong, wrong
    for case in CASES:
        if results[case.api].family != "kinds":
            continue  # the recorded family's test: its own checks, and the breaks below
        body = Path(results[case.api].path).read_text().split("class Test", 1)[1]
        assert "# as measured on the CPU" in body, case.api
        if case.api not in OFF_DEVICE:
            assert "device=DEVICE" in body, case.api  # the tensors are built on the device
            assert ", its values by hand" in body, case.api  # and checked by hand
    lint = subprocess.run(
        [*RUFF, *(results[c.api].path for c in CASES)], capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout
    _passes_and_fails_once_broken(CASES, results, tmp_path)
