"""Value kinds: dtypes used as values, and factories whose values vary.

A dtype's test asserts what PyTorch documents of it (alias, flags, itemsize,
finfo/iinfo, value conversion, ``to()`` round trips, quantize_per_tensor); a
factory's test its structure, its distribution on enough samples and its
reproducibility under ``torch.manual_seed``. Each is scaffolded for the CPU and
for the emulated npu, passes there, and fails under a targeted break: a dtype
alias swapped, a factory of the wrong shape, ``rand`` in [0, 2), a seed that
does not reproduce, ``randint`` off by one, a ``randperm`` that repeats a value.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import (
    _check_families,
    _passes_and_fails_once_broken,
    _scaffold,
)

pytestmark = pytest.mark.slow

DTYPE_CASES = (
    Case("torch.float", "dtype", "torch.float = torch.float64"),  # the alias swapped
    Case("torch.int8", "dtype", "torch.int8 = torch.int16"),
    Case("torch.long", "dtype", "torch.long = torch.int32"),
    Case("torch.bfloat16", "dtype", "torch.bfloat16 = torch.float16"),  # same size, other limits
    Case("torch.bool", "dtype", "torch.bool = torch.uint8"),  # same size, other conversion
    Case("torch.cfloat", "dtype", "torch.cfloat = torch.complex128"),
    Case("torch.quint8", "dtype", "torch.quint8 = torch.qint8"),
    Case("torch.qint32", "dtype", "torch.qint32 = torch.qint8"),
    # the fnuz float8 formats: same size and eps as their neighbour, other limits
    Case("torch.float8_e4m3fnuz", "dtype", "torch.float8_e4m3fnuz = torch.float8_e4m3fn"),
    Case("torch.float8_e5m2fnuz", "dtype", "torch.float8_e5m2fnuz = torch.float8_e4m3fnuz"),
)
FACTORY_CASES = (
    Case(
        "torch.empty",
        "factory",  # the wrong shape
        "empty = torch.empty\ntorch.empty = lambda *a, **k: empty(*a, **k).unsqueeze(0)",
    ),
    Case(
        "torch.empty_strided",
        "factory",  # ignores the strides
        "torch.empty_strided = lambda size, stride, **k: torch.empty(size, **k)",
    ),
    Case(
        "torch.empty_like",
        "factory",  # ignores the dtype of its input
        "torch.empty_like = lambda t, **k: torch.empty(tuple(t.shape), device=t.device, **k)",
    ),
    Case(
        "torch.rand",
        "factory",  # values in [0, 2)
        "rand = torch.rand\ntorch.rand = lambda *a, **k: rand(*a, **k) * 2",
    ),
    Case(
        "torch.randn",
        "factory",  # a seed that does not reproduce
        "randn = torch.randn\ntorch.randn = lambda *a, **k: (torch.seed(), randn(*a, **k))[1]",
    ),
    Case(
        "torch.randint",
        "factory",  # [low + 1, high + 1)
        "randint = torch.randint\ntorch.randint = lambda *a, **k: randint(*a, **k) + 1",
    ),
    Case(
        "torch.randperm",
        "factory",  # repeats a value
        "randperm = torch.randperm\ntorch.randperm = lambda n, **k: randperm(n, **k) % max(n - 1, 1)",
    ),
    Case(
        "torch.normal",
        "factory",  # the mean off by one
        "normal = torch.normal\ntorch.normal = lambda *a, **k: normal(*a, **k) + 1",
    ),
    Case(
        "torch.bernoulli",
        "factory",  # ignores p
        "bernoulli = torch.bernoulli\ntorch.bernoulli = lambda p, *a, **k: bernoulli(torch.full_like(p, 0.5))",
    ),
)
CASES = DTYPE_CASES + FACTORY_CASES


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("values"))
    _check_families(CASES, results)
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    """Facts measured on device npu of the emulated torch_npu; its random factories draw from the CPU's
    generator (the emulation has no device generator), which ``torch.manual_seed`` seeds as well."""
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
    _check_families(CASES, results)
    for case in CASES:
        text = Path(results[case.api].path).read_text()
        if case.family == "factory":
            assert 'DEVICE = torch.device("npu:0")' in text and "device=DEVICE" in text, case.api
    _passes_and_fails_once_broken(CASES, results, tmp_path, npu.environ())
