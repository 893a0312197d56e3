"""The device-module members runtime tests need and the device-neutral modules (recipes/runtime.py; no torch)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.recipes.runtime import (
    DEVICE_NEUTRAL_MODULES,
    MODULE_NEEDS,
    RUNTIME_FUNCTIONS,
    RUNTIME_OBJECTS,
)
from torchparity.scaffold.runtime import device_runtime_plan, runtime_plan

COUNTS = sorted(leaf for leaf, (kind, _) in RUNTIME_FUNCTIONS.items() if kind == "device_count")


def _object_facts(leaf: str, members: list[str]) -> dict:
    runtime = {
        "is_class": leaf[:1].isupper(),
        "methods": {},
        "module_members": members,
        "spelled": f"torch.npu.{leaf}",
        "home": "torch.npu",
    }
    return {"runtime": runtime, "device_type": "npu"}


@pytest.mark.parametrize("macro", sorted(MODULE_NEEDS))
def test_each_macro_is_written_only_where_its_member_was_measured(macro):
    leaves = [leaf for leaf, (m, _) in RUNTIME_OBJECTS.items() if m == macro]
    assert leaves
    for leaf in leaves:
        info = api_info(resolution(f"torch.cuda.{leaf}", "function"))
        members = sorted({*RUNTIME_OBJECTS, *MODULE_NEEDS.values()})
        assert device_runtime_plan(info, _object_facts(leaf, members), "DEVICE") is not None
        without = [m for m in members if m != MODULE_NEEDS[macro]]
        assert device_runtime_plan(info, _object_facts(leaf, without), "DEVICE") is None


def _count_source(module: str, leaf: str) -> str:
    runtime = {"is_class": False, "zero_arg": {"ok": True, "type": "int", "literal": "0"}}
    info = api_info(resolution(f"{module}.{leaf}", "function"))
    plan = runtime_plan(info, {"runtime": runtime, "device_type": "npu"}, "DEVICE")
    return "".join(m.source for m in plan.methods)


@pytest.mark.parametrize("module", DEVICE_NEUTRAL_MODULES)
@pytest.mark.parametrize("leaf", COUNTS)
def test_a_device_neutral_module_counts_the_device_under_test(module, leaf):
    # another backend's module counting none here is expected to count none; these count the device
    assert "self.assertEqual(count, 0)" in _count_source("torch.xpu", leaf)
    assert "self.assertGreaterEqual(count, 1)" in _count_source(module, leaf)
