"""The factory family's recipe table: each entry is what the family's tests of that factory run (no torch needed)."""

from __future__ import annotations

import ast

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.factories import SAMPLES, factory_leaf, factory_plan
from torchparity.scaffold.recipes.factories import FACTORIES


def _dumps(lines, F: str) -> list[str]:
    source = "\n".join(lines).replace("{F}", F).replace("{n}", str(SAMPLES))
    return [ast.dump(s) for s in ast.parse(source).body]


def _bodies(plan) -> dict[str, list[str]]:
    """test name -> its statements, dumped."""
    out = {}
    for method in plan.methods:
        (node,) = ast.parse("class T:\n" + method.source).body[0].body  # type: ignore[attr-defined]
        out[node.name] = [ast.dump(s) for s in node.body]
    return out


@pytest.mark.parametrize("leaf", sorted(FACTORIES))
def test_each_factory_recipe_is_what_its_tests_run(leaf):
    F = f"torch.{leaf}"
    info = api_info(resolution(F, "function"))
    assert factory_leaf(info) == leaf
    bodies = _bodies(factory_plan(info, {}, "DEVICE"))
    recipe = FACTORIES[leaf]
    assert list(bodies) == [f"test_{leaf}_{part}" for part in recipe]
    for part, what in recipe.items():
        body = bodies[f"test_{leaf}_{part}"]
        before = _dumps(what.get("before", ()), F)
        assert body[: len(before)] == before
        if part == "structure":
            after = _dumps(what.get("after", ()), F)
            assert body[len(body) - len(after) :] == after
            assert body[len(before)] == _dumps([f"result = {what['call']}"], F)[0]
        elif part == "distribution":
            lines = _dumps(what["lines"], F)
            assert body[1 : 1 + len(lines)] == lines
            assert len(body) == 1 + len(lines) + (2 if "moments" in what else 0)
        else:
            assert body[len(before) + 1] == _dumps([f"first = {what['call']}"], F)[0]
