"""The ``typeobject`` family: torch's tensor-attribute classes.

``torch.dtype``, ``device``, ``layout``, ``memory_format``, ``finfo`` and
``iinfo`` get tests of what "Tensor Attributes" and "Type Info" document.
Each is scaffolded for the CPU and for the emulated npu, passes there, and
fails under a targeted break: a class that admits every value, a device that
drops its index, layouts and memory formats swapped for another class, the
limits of one type answered with another's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow

CASES = (
    Case("torch.dtype", "typeobject", "torch.dtype = object"),  # every value would be a dtype
    Case(
        "torch.device",
        "typeobject",  # the index is dropped
        "device = torch.device\ntorch.device = lambda kind, index=None: device(str(kind).split(':')[0])",
    ),
    Case("torch.layout", "typeobject", "torch.layout = type(torch.float32)"),
    Case("torch.memory_format", "typeobject", "torch.memory_format = type(torch.strided)"),
    Case(
        "torch.finfo",
        "typeobject",  # float16 answered with float32's limits
        "finfo = torch.finfo\n"
        "torch.finfo = lambda dtype=None: finfo() if dtype is None else finfo("
        "torch.float32 if dtype is torch.float16 else dtype)",
    ),
    Case(
        "torch.iinfo",
        "typeobject",  # uint8 answered with int8's limits
        "iinfo = torch.iinfo\ntorch.iinfo = lambda dtype: iinfo(torch.int8 if dtype is torch.uint8 else dtype)",
    ),
)


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("types"))
    for case in CASES:
        res = results[case.api]
        assert res.family == case.family, (case.api, res.fill_in)
        assert not res.notes, (case.api, res.notes)  # every template test passes on the CPU
        assert "DEVICE" in Path(res.path).read_text().split("class ", 1)[1], case.api
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        CASES,
        [c.api for c in CASES],
        tmp_path_factory.mktemp("types-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    for case in CASES:
        res = results[case.api]
        assert res.family == case.family, (case.api, res.fill_in)
        assert 'DEVICE = torch.device("npu:0")' in Path(res.path).read_text(), case.api
    _passes_and_fails_once_broken(CASES, results, tmp_path, npu.environ())
