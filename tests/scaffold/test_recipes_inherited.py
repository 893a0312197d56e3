"""Each recipe of the inherited family reaches the test written for its API (no torch needed)."""

from __future__ import annotations

import re

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import inherited as family
from torchparity.scaffold.inherited import inherited_plan
from torchparity.scaffold.recipes.inherited import (
    FX_MEMBERS,
    HOOKS,
    IMPORTS,
    MODULE,
    SCRIPT_MODULES,
    SCRIPT_ONLY,
    WHAT,
)


def _bare(code: str) -> str:
    """``code`` without its whitespace and the commas the writer adds when it wraps a long line."""
    return re.sub(r",([)\]}])", r"\1", re.sub(r"\s+", "", code))


@pytest.mark.parametrize("script", [False, True])
@pytest.mark.parametrize("leaf", list(HOOKS))
def test_each_module_member_gets_its_recipes_lines(leaf: str, script: bool) -> None:
    owner = SCRIPT_MODULES[0] if script else MODULE
    res = resolution(f"{owner}.{leaf}", "method", owner=owner, owner_kind="class")
    info = api_info(res)
    assert family.applies(info, "")
    mro = [owner, MODULE] if script else [MODULE]
    plan = inherited_plan(info, {"classes": {"owner": mro}, "defined_on": MODULE}, "DEVICE")
    source = _bare("".join(m.source for m in plan.methods))
    recipe = "".join(
        line.format(C=owner, leaf=leaf, device="DEVICE") for line in HOOKS[leaf][script]
    )
    assert _bare(recipe) in source
    assert set(IMPORTS.get(leaf, ())) <= set(plan.imports)
    assert WHAT[leaf] in plan.summary


@pytest.mark.parametrize("leaf", SCRIPT_ONLY)
def test_a_script_only_member_is_taken_on_a_module_class(leaf: str) -> None:
    owner = SCRIPT_MODULES[0]
    info = api_info(resolution(f"{owner}.{leaf}", "method", owner=owner, owner_kind="class"))
    assert family.applies(info, "")


@pytest.mark.parametrize(("leaf", "base"), list(FX_MEMBERS.items()))
def test_each_fx_member_is_tested_on_its_class(leaf: str, base: str) -> None:
    info = api_info(resolution(f"{base}.{leaf}", "method", owner=base, owner_kind="class"))
    assert family.applies(info, "")
    plan = inherited_plan(info, {"classes": {"owner": [base]}, "defined_on": base}, "DEVICE")
    assert f"{base}.{leaf}(" in "".join(m.source for m in plan.methods)
