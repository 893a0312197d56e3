"""The ``recorded`` family: ATen overloads and private builtins called as torch calls them.

Each case gets the call torch's own code makes of it (or of the operator it is
a variant of) for an OpInfo sample or a public scenario, recorded on the CPU;
the test makes it on the device and compares with the values measured on the
CPU. Each is scaffolded for the CPU, is ruff-clean, passes there and fails
under a targeted break of its own behaviour.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold
from tests.scaffold.test_scaffold_generated import RUFF
from tests.scaffold.test_scaffold_recorded_kernels import _wrapped

pytestmark = pytest.mark.slow


def _instead(spelling: str, result: str) -> str:
    """Code that replaces ``spelling`` by a callable returning ``result`` of its arguments ``a`` (never calling it)."""
    return (
        f"_real = {spelling}\n"
        "class _Broken:\n"
        "    def __getattr__(self, name):\n"
        "        return getattr(_real, name)\n"
        "    def __call__(self, *a, **k):\n"
        f"        return {result}\n"
        f"{spelling} = _Broken()\n"
    )


CASES = (
    Case(
        "torch.ops.aten.squeeze_.dims",
        "recorded",  # an in-place squeeze that squeezes nothing
        _instead("torch.ops.aten.squeeze_.dims", "a[0]"),
    ),
    Case(
        "torch.ops.aten.select_copy.int",
        "recorded",  # the result negated
        _wrapped("torch.ops.aten.select_copy.int", "-r"),
    ),
    Case(
        "torch.ops.aten.sspaddmm.out",
        "recorded",  # a COO result with its values doubled
        _wrapped("torch.ops.aten.sspaddmm.out", "r * 2"),
    ),
    Case(
        "torch._lazy_clone",
        "recorded",  # the copy off by one
        _wrapped("torch._lazy_clone", "r + 1"),
    ),
    Case(
        "torch.ops.aten.index_put_.hacked_twin",
        "recorded",  # the values accumulated twice
        _wrapped("torch.ops.aten.index_put_.hacked_twin", "r.mul_(2)"),
    ),
    Case(
        "torch._pad_packed_sequence",
        "recorded",  # the lengths off by one
        _wrapped("torch._pad_packed_sequence", "(r[0], r[1] + 1)"),
    ),
    Case(
        "torch._amp_update_scale_",
        "recorded",  # the scale left as it was
        "_real = torch._amp_update_scale_\n"
        "torch._amp_update_scale_ = lambda scale, *a, **k: scale\n",
    ),
)


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("recorded"))
    wrong = [
        (c.api, results[c.api].family, results[c.api].fill_in[:1])
        for c in CASES
        if results[c.api].family != c.family
    ]
    assert not wrong, wrong
    for case in CASES:
        text = Path(results[case.api].path).read_text()
        assert "self._assert_value(" in text or "self.assertEqual(result" in text, case.api
    lint = subprocess.run(
        [*RUFF, *(results[c.api].path for c in CASES)], capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout
    _passes_and_fails_once_broken(CASES, results, tmp_path)


#: the cases the emulated npu can run (it has no sparse backend, and no nested kernels)
ON_NPU = (
    "torch.ops.aten.squeeze_.dims",
    "torch.ops.aten.select_copy.int",
    "torch.ops.aten.index_put_.hacked_twin",
    "torch._pad_packed_sequence",
    "torch._amp_update_scale_",
)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    cases = tuple(c for c in CASES if c.api in ON_NPU)
    results, _ = _scaffold(
        cases,
        [c.api for c in cases],
        tmp_path_factory.mktemp("recorded-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    assert all(results[c.api].family == c.family for c in cases), [
        results[c.api].fill_in[:1] for c in cases
    ]
    text = Path(results["torch._pad_packed_sequence"].path).read_text()
    assert "# documented to stay on the CPU" in text  # batch_sizes is not moved to the device
    _passes_and_fails_once_broken(cases, results, tmp_path, npu.environ())
