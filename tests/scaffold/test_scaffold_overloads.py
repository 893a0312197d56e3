"""Operator kinds ("ops"): ATen overloads and packets, batch-norm kernels, sparse constructors.

An overload or packet ``torch.ops.aten.X[.ov]`` gets the sample inputs of the
OpInfo entry named ``X`` that its schema accepts (arranged in the schema's
order, an ``out=`` tensor where the schema requires one), compared with the
NumPy reference, the OpInfo's function in float64, or for a random operator
the OpInfo's function under the same seed; a batch-norm kernel gets channel
statistics worked out by hand (training and eval, the running statistics,
the backward against autograd); a sparse constructor a matrix worked out by
hand from its compressed form. Each is scaffolded for the CPU and for the
emulated npu, passes there and fails under a targeted break of its API.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import (
    _check_families,
    _passes_and_fails_once_broken,
    _scaffold,
)
from tests.scaffold.test_scaffold_generated import RUFF

pytestmark = pytest.mark.slow

OVERLOAD_CASES = (
    Case(
        "torch.ops.aten.bitwise_and.Tensor",
        "overload",  # or in place of and
        "torch.ops.aten.bitwise_and.Tensor = torch.ops.aten.bitwise_or.Tensor",
    ),
    Case(
        "torch.ops.aten.bitwise_not.default",
        "overload",  # the identity
        "torch.ops.aten.bitwise_not.default = lambda x: x.clone()",
    ),
    Case(
        "torch.ops.aten.where.self",
        "overload",  # the branches swapped
        "torch.ops.aten.where.self = lambda c, a, b: torch.where(c, b, a)",
    ),
    Case(
        "torch.ops.aten.mm.default",
        "overload",  # off by one
        "torch.ops.aten.mm.default = lambda a, b: torch.mm(a, b) + 1",
    ),
    Case(
        "torch.ops.aten.mm",
        "overload",  # the packet: the product of the transposes
        "torch.ops.aten.mm = lambda a, b: torch.mm(b.t(), a.t())",
    ),
    Case(
        "torch.ops.aten.full.default",
        "overload",  # the fill value off by one
        "torch.ops.aten.full.default = lambda size, v, **k: torch.full(size, v + 1, **k)",
    ),
    Case(
        "torch.ops.aten.nanquantile.default",
        "overload",  # NaN not ignored
        "torch.ops.aten.nanquantile.default = lambda *a, **k: torch.quantile(*a, **k) + 1",
    ),
    Case(
        "torch.ops.aten.bernoulli.out",
        "overload",  # out= not filled
        "torch.ops.aten.bernoulli.out = lambda x, *, generator=None, out: torch.bernoulli(x)",
    ),
    Case(
        "torch.ops.aten.bernoulli.default",
        "overload",  # p ignored
        "torch.ops.aten.bernoulli.default = lambda x, generator=None: torch.bernoulli(torch.full_like(x, 0.5))",
    ),
)
NORM_CASES = (
    Case(
        "torch.ops.aten.native_batch_norm.default",
        "overload",  # the running statistics not updated
        "nbn = torch.ops.aten.native_batch_norm.default\n"
        "torch.ops.aten.native_batch_norm.default = lambda x, w, b, rm, rv, t, m, e: nbn(\n"
        "    x, w, b, None if rm is None else rm.clone(), None if rv is None else rv.clone(), t, m, e)",
    ),
    Case(
        "torch.ops.aten.native_batch_norm_backward.default",
        "overload",  # no weight gradient
        "bwd = torch.ops.aten.native_batch_norm_backward.default\n"
        "torch.ops.aten.native_batch_norm_backward.default = lambda *a: (\n"
        "    lambda r: (r[0], torch.zeros_like(r[1]), r[2]))(bwd(*a))",
    ),
    Case(
        "torch.batch_norm",
        "overload",  # eval normalises with the batch's statistics
        "bn = torch.batch_norm\n"
        "torch.batch_norm = lambda x, w, b, rm, rv, training, m, e, c: bn(x, w, b, rm, rv, True, m, e, c)",
    ),
    Case(
        "torch.ops.aten._native_batch_norm_legit_no_training.default",
        "overload",  # the running variance
        "nt = torch.ops.aten._native_batch_norm_legit_no_training.default\n"  # scaled by 4 / 3
        "torch.ops.aten._native_batch_norm_legit_no_training.default = lambda x, w, b, rm, rv, m, e: nt(\n"
        "    x, w, b, rm, rv * 4 / 3, m, e)",
    ),
)
SPARSE_CASES = (
    Case(
        "torch.sparse_csr_tensor",
        "sparse",  # the other compressed layout
        "csr = torch.sparse_csr_tensor\ntorch.sparse_csr_tensor = lambda *a, **k: csr(*a, **k).to_sparse_csc()",
    ),
    Case(
        "torch.sparse_coo_tensor",
        "sparse",  # the values doubled
        "coo = torch.sparse_coo_tensor\ntorch.sparse_coo_tensor = lambda i, v, *a, **k: coo(i, v * 2, *a, **k)",
    ),
    Case(
        "torch.sparse_bsr_tensor",
        "sparse",  # dtype= ignored
        "bsr = torch.sparse_bsr_tensor\ntorch.sparse_bsr_tensor = lambda *a, dtype=None, **k: bsr(*a, **k)",
    ),
    Case(
        "torch.sparse_csc_tensor",
        "sparse",  # check_invariants= ignored
        "csc = torch.sparse_csc_tensor\n"
        "torch.sparse_csc_tensor = lambda *a, check_invariants=None, **k: csc(*a, **k)",
    ),
)
CASES = OVERLOAD_CASES + NORM_CASES + SPARSE_CASES


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("ops"))
    _check_families(CASES, results)
    for case in CASES:
        text = Path(results[case.api].path).read_text()
        assert "DEVICE" in text.split("class Test", 1)[1], case.api  # the calls run on the device
        if case in OVERLOAD_CASES:  # the samples its schema accepts, counted
            assert "torch._C._get_schema(" in text or "_jit_get_schemas_for_operator(" in text, (
                case.api
            )
            assert "self.assertEqual(checked, " in text, case.api
    lint = subprocess.run(
        [*RUFF, *(results[c.api].path for c in CASES)], capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout
    where = Path(results["torch.ops.aten.where.self"].path).read_text()
    assert "(1, 0, 2)" in where  # OpInfo's where takes self first, the overload the condition
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    """Facts measured on device npu of the emulated torch_npu; the samples move to the device there.

    The sparse constructors are left out: the emulation has no sparse kernels for its device
    (``col_indices`` of a CSR tensor there raises "expected sparse row compressed tensor layout").
    """
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    cases = OVERLOAD_CASES + NORM_CASES
    results, _ = _scaffold(
        cases,
        [c.api for c in cases],
        tmp_path_factory.mktemp("ops-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    _check_families(cases, results)
    for case in cases:
        assert 'DEVICE = torch.device("npu:0")' in Path(results[case.api].path).read_text(), (
            case.api
        )
    _passes_and_fails_once_broken(cases, results, tmp_path, npu.environ())
