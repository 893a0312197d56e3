"""The generator test's calls and the shared runtime modules of recipes/runtime.py (no torch needed)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import candidates
from torchparity.scaffold.recipes.runtime import (
    GENERATOR_CALLS,
    GENERATOR_CLASS_CALLS,
    GENERATOR_CLASSES,
    GENERATOR_MEMBERS,
    SHARED_MODULES,
)
from torchparity.scaffold.runtime import device_runtime_plan, generator_plan


def _source(name: str, owner: str | None) -> str:
    kind = "method" if owner else "class"
    info = api_info(resolution(name, kind, owner=owner, owner_kind="class" if owner else None))
    if owner:
        assert candidates(info)[0] == "generator"
    return "".join(m.source for m in generator_plan(info, {}, "DEVICE").methods)


def test_each_class_call_is_a_members_call():
    assert set(GENERATOR_CLASS_CALLS) == set(GENERATOR_CALLS)
    assert set(GENERATOR_CALLS) <= set(GENERATOR_MEMBERS)


@pytest.mark.parametrize("owner", GENERATOR_CLASSES)
def test_the_class_itself_makes_every_call_on_the_generator(owner):
    source = _source(owner, None)
    for call in GENERATOR_CALLS.values():
        assert call in source
    for call in GENERATOR_CLASS_CALLS.values():
        assert call not in source


@pytest.mark.parametrize("member", sorted(GENERATOR_CLASS_CALLS))
@pytest.mark.parametrize("owner", GENERATOR_CLASSES)
def test_the_member_under_test_is_called_through_its_class(member, owner):
    source = _source(f"{owner}.{member}", owner)
    assert GENERATOR_CLASS_CALLS[member] in source
    # the reseed after the first draw is made on the generator whichever member is under test
    assert GENERATOR_CALLS[member] not in source.replace("generator.manual_seed(7)\n", "", 1)
    for other, call in GENERATOR_CALLS.items():
        if other != member:
            assert call in source
            assert GENERATOR_CLASS_CALLS[other] not in source


@pytest.mark.parametrize("module", SHARED_MODULES)
def test_a_shared_modules_stream_takes_the_device_modules_functions(module):
    def facts(home: str) -> dict:  # home: "" where the device has no module of its own
        runtime = {
            "is_class": True,
            "methods": {m: {"ok": True} for m in ("synchronize", "query")},
            "module_members": ["stream"],
            "device": "npu:0",  # str(the object's device), as the agent gives it
            "spelled": f"{module}.Stream",
            "home": home,
        }
        return {"runtime": runtime, "device_type": "npu"}

    info = api_info(resolution(f"{module}.Stream", "class"))
    plan = device_runtime_plan(info, facts("torch.npu"), "DEVICE")
    assert plan is not None
    source = "".join(m.source for m in plan.methods)
    assert "with torch.npu.stream(stream):" in source
    bare = device_runtime_plan(info, facts(""), "DEVICE")
    assert bare is not None
    assert f"with {module}.stream(stream):" in "".join(m.source for m in bare.methods)
