"""The ``fake`` family: fake tensors and the guards that find their mode.

``FakeTensor``, ``FakeTensorMode`` (also as ``torch._subclasses.FakeTensorMode``),
its ``from_tensor``, ``unset_fake_temporarily``, ``detect_fake_mode`` and
``active_fake_mode`` are scaffolded for the CPU and for the emulated npu,
pass there, and fail under a targeted break: fake tensors reporting another
device, a mode that computes on real data, a conversion that loses strides, an
unset that keeps faking, a detector that finds nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow

F = "torch._subclasses.fake_tensor"
CASES = (
    Case(
        f"{F}.FakeTensor",
        "fake",  # fake tensors report the meta device instead of the one they stand for
        f"import {F}\n{F}.FakeTensor.device = property(lambda self: torch.device('meta'))",
    ),
    Case(
        "torch._subclasses.FakeTensorMode",
        "fake",  # a mode that computes on real data
        f"import contextlib, {F}\n"
        "class Mode(contextlib.nullcontext):\n"
        "    def from_tensor(self, t, **k):\n"
        "        return t\n"
        f"torch._subclasses.FakeTensorMode = {F}.FakeTensorMode = Mode",
    ),
    Case(
        f"{F}.FakeTensorMode.from_tensor",
        "fake",  # the strides are lost
        f"import {F}\nM = {F}.FakeTensorMode\nconvert = M.from_tensor\n"
        "M.from_tensor = lambda self, t, **k: convert(self, t.contiguous(), **k)",
    ),
    Case(
        f"{F}.unset_fake_temporarily",
        "fake",  # keeps faking
        f"import contextlib, {F}\n{F}.unset_fake_temporarily = contextlib.nullcontext",
    ),
    Case(
        "torch._guards.detect_fake_mode",
        "fake",
        "import torch._guards\ntorch._guards.detect_fake_mode = lambda inputs=None: None",
    ),
    Case(
        "torch._guards.active_fake_mode",
        "fake",
        "import torch._guards\ntorch._guards.active_fake_mode = lambda: None",
    ),
)


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("fake"))
    for case in CASES:
        res = results[case.api]
        assert res.family == case.family, (case.api, res.fill_in)
        assert not res.notes, (case.api, res.notes)
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        CASES,
        [c.api for c in CASES],
        tmp_path_factory.mktemp("fake-npu"),
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
