"""The runtime family's recipe tables: each entry is what the family writes for its API (no torch needed)."""

from __future__ import annotations

import ast

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.accelerator import accelerator_binding, accelerator_plan
from torchparity.scaffold.recipes.accelerator import ACCELERATOR


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
