"""The runtime family's recipe tables: each entry is what the family writes for its API (no torch needed)."""

from __future__ import annotations

import ast

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.accelerator import accelerator_binding, accelerator_plan
from torchparity.scaffold.plan import CannotDecide
from torchparity.scaffold.recipes.accelerator import ACCELERATOR
from torchparity.scaffold.recipes.runtime import (
    GENERATOR_CLASSES,
    GENERATOR_MEMBERS,
    RUNTIME_FUNCTIONS,
    RUNTIME_OBJECTS,
)
from torchparity.scaffold.runtime import WHAT, generator_plan, runtime_plan


def _statements(source: str) -> list[str]:
    """The statements of ``source`` (formatting and comments aside), one dump each."""
    return [ast.dump(s) for s in ast.parse(source).body]


def _method(plan) -> ast.FunctionDef:
    """The one test method of ``plan``, parsed."""
    (method,) = plan.methods
    tree = ast.parse("class T:\n" + method.source)
    node = tree.body[0].body[0]  # type: ignore[attr-defined]
    assert isinstance(node, ast.FunctionDef)
    return node


@pytest.mark.parametrize("leaf", sorted(ACCELERATOR))
def test_each_accelerator_recipe_is_the_test_of_its_function(leaf):
    name = f"torch.accelerator.{leaf}"
    plan = accelerator_plan(api_info(resolution(name, "function")), {}, "DEVICE")
    assert plan is not None and plan.family == "runtime"
    refused, lines = ACCELERATOR[leaf]
    fill = {"X": name, "A": "torch.accelerator"}
    cpu_branch, _accelerator_is_the_device, *device = _method(plan).body
    assert isinstance(cpu_branch, ast.If)
    raises = cpu_branch.body[1]
    assert isinstance(raises, ast.With)
    assert [ast.dump(s) for s in raises.body] == _statements(refused.format_map(fill))
    assert [ast.dump(s) for s in device] == _statements(
        "\n".join(line.format_map(fill) for line in lines)
    )


@pytest.mark.parametrize("leaf", sorted(ACCELERATOR))
def test_each_accelerator_recipe_also_takes_its_c_binding(leaf):
    info = api_info(resolution(f"torch._C._accelerator_{leaf}", "builtin"))
    assert accelerator_binding(info)
    assert accelerator_plan(info, {}, "DEVICE") is not None


# -- runtime objects and functions (recipes/runtime.py) --------------------------------------------
#: every member a device module could have, and every method measured to work: each recipe applies
_MEASURED_METHODS = {
    m: {"ok": True, "literal": "True"} for m in ("record", "synchronize", "query", "record_event")
}


def _runtime_facts(leaf: str) -> dict:
    members = sorted({*RUNTIME_OBJECTS, *RUNTIME_FUNCTIONS, "Stream", "stream"})
    runtime = {
        "is_class": leaf[0].isupper() or RUNTIME_OBJECTS.get(leaf, ("",))[0] == "device_context",
        "timing": True,
        "methods": _MEASURED_METHODS,
        "module_members": members,
        "device": "npu:0",  # str(the object's device), as the agent gives it
        "spelled": f"torch.npu.{leaf}",
        "home": "torch.npu",
        "zero_arg": {"ok": True, "type": "int", "literal": "1"},
    }
    return {"runtime": runtime, "device_type": "npu"}


def _runtime_plan(leaf: str):
    plan = runtime_plan(
        api_info(resolution(f"torch.cuda.{leaf}", "function")), _runtime_facts(leaf), "DEVICE"
    )
    assert plan.family == "runtime" and plan.spelling == f"torch.npu.{leaf}"
    return plan


def _body(plan, *leaves: str) -> str:
    """The plan's test body (its ``def`` line aside) with each of ``leaves``'s spelling as ``X``."""
    text = "".join(m.source for m in plan.methods).split("\n", 1)[1]
    for leaf in sorted(leaves, key=len, reverse=True):  # manual_seed_all before manual_seed
        text = text.replace(f"torch.npu.{leaf}", "X")
    return text


@pytest.mark.parametrize("leaf", sorted(RUNTIME_OBJECTS))
def test_each_runtime_object_gets_the_test_its_recipe_names(leaf):
    macro, variant = RUNTIME_OBJECTS[leaf]
    plan = _runtime_plan(leaf)
    if macro in WHAT:
        assert plan.summary == WHAT[macro] + "."
    for other, (other_macro, other_variant) in RUNTIME_OBJECTS.items():
        if other_macro != macro or other == leaf:
            continue
        same = _body(plan, leaf, other) == _body(_runtime_plan(other), leaf, other)
        # one variant of a macro: the same test, spelled for each; another variant: another test
        assert same == (other_variant == variant), (leaf, other)


@pytest.mark.parametrize("leaf", sorted(RUNTIME_FUNCTIONS))
def test_each_runtime_function_gets_the_template_its_recipe_names(leaf):
    kind, summary = RUNTIME_FUNCTIONS[leaf]
    facts = _runtime_facts(leaf)
    facts["runtime"]["is_class"] = False
    plan = runtime_plan(api_info(resolution(f"torch.cuda.{leaf}", "function")), facts, "DEVICE")
    assert plan.summary == summary
    if kind == "stream_function":
        assert "self.assertIsInstance(stream, torch.npu.int)" in plan.methods[0].source


@pytest.mark.parametrize("member", sorted(GENERATOR_MEMBERS))
@pytest.mark.parametrize("owner", GENERATOR_CLASSES)
def test_each_generator_member_adds_its_recipe_lines_to_the_generator_test(member, owner):
    info = api_info(resolution(f"{owner}.{member}", "method", owner=owner))
    plan = generator_plan(info, {}, "DEVICE")
    assert plan.family == "generator"
    body = _method(plan).body
    extra = _statements("\n".join(GENERATOR_MEMBERS[member]).format(device="DEVICE"))
    assert [ast.dump(s) for s in body[len(body) - len(extra) :]] == extra
    assert len(body) == 14 + len(extra)  # the seeding and state round trips every member gets


def test_a_generator_member_without_a_recipe_is_not_decided():
    info = api_info(
        resolution("torch.Generator.graphsafe_get_state", "method", owner="torch.Generator")
    )
    with pytest.raises(CannotDecide):
        generator_plan(info, {}, "DEVICE")
