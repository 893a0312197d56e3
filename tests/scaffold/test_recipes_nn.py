"""Each recipe of the module family reaches the test written for its API (no torch needed)."""

from __future__ import annotations

import re

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold import plan as scaffold_plan
from torchparity.scaffold.nn import nn_plan
from torchparity.scaffold.recipes.nn import CONTAINER_MEMBERS, CONTAINERS, FORWARD, MEMBERS

MODULE = "torch.nn.modules.module.Module"


def _bare(code: str) -> str:
    """``code`` without its whitespace and the commas the writer adds when it wraps a long line."""
    return re.sub(r",([)\]}])", r"\1", re.sub(r"\s+", "", code))


def _member(owner: str, leaf: str, mro: list[str], **facts: object) -> scaffold_plan.TestPlan:
    info = api_info(resolution(f"{owner}.{leaf}", "method", owner=owner, owner_kind="class"))
    return nn_plan(info, {"classes": {"owner": mro}, **facts}, "DEVICE")


def _source(plan: scaffold_plan.TestPlan) -> str:
    return "".join(m.source for m in plan.methods)


@pytest.mark.parametrize("leaf", list(MEMBERS))
def test_each_module_member_gets_its_recipes_lines(leaf: str) -> None:
    source = _bare(_source(_member("torch.nn.Module", leaf, [MODULE])))
    for line in MEMBERS[leaf]:
        assert _bare(line.format(C="torch.nn.Module", device="DEVICE")) in source


@pytest.mark.parametrize(("container", "kind"), list(CONTAINERS.items()))
def test_each_container_member_is_tested_within_its_container(container: str, kind: str) -> None:
    public = "torch.nn." + container.rsplit(".", 1)[-1]
    for leaf in CONTAINER_MEMBERS[kind]:
        plan = _member(public, leaf, [container, MODULE], members=[])
        assert plan.summary == f"{leaf} within the {public} container's semantics."


@pytest.mark.parametrize("leaf", list(FORWARD))
def test_a_class_s_own_forward_is_named_as_the_recipe_says(leaf: str) -> None:
    db = {"found": True, "args": [], "kwargs": [], "inputs": [{"tensor": "torch.ones(2)"}]}
    mro = ["torch.nn.modules.linear.Identity", MODULE]
    source = _source(_member("torch.nn.Identity", leaf, mro, module_db=db))
    named = FORWARD[leaf].format(owner="torch.nn.Identity")
    assert "torch.nn.Identity().to(DEVICE)" in source  # the module_db sample's forward
    assert ("torch.nn.Identity.forward(" in source) == bool(named)
