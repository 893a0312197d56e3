"""Each recipe of the distributed family reaches the test written for its API (no torch needed)."""

from __future__ import annotations

import re

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold import plan as scaffold_plan
from torchparity.scaffold.distributed import distributed_plan
from torchparity.scaffold.families import distributed as family
from torchparity.scaffold.plan import CannotDecide
from torchparity.scaffold.recipes.distributed import (
    HOOK_FUNCTIONS,
    HOOK_WRAPPERS,
    HOOKS,
    OWN_MEMBERS,
    STORES,
    SUBCLASSED,
)


def _bare(code: str) -> str:
    """``code`` without its whitespace and the commas the writer adds when it wraps a long line."""
    return re.sub(r",([)\]}])", r"\1", re.sub(r"\s+", "", code))


def _plan(name: str, kind: str, owner: str | None = None) -> scaffold_plan.TestPlan:
    info = api_info(resolution(name, kind, owner=owner, owner_kind="class" if owner else None))
    assert family.applies(info, "")
    return distributed_plan(info, {}, "DEVICE")


@pytest.mark.parametrize("cls", list(STORES))
def test_each_store_is_made_and_checked_as_its_recipe_says(cls: str) -> None:
    name = f"torch.distributed.{cls}"
    plan = _plan(f"{name}.set", "method", name)
    source = _bare("".join(m.source for m in plan.methods))
    for lines in STORES[cls].values():
        assert _bare("".join(line.format(C=name) for line in lines)) in source


@pytest.mark.parametrize(("member", "cls"), list(OWN_MEMBERS.items()))
def test_a_store_s_own_member_is_tested_on_that_store_only(member: str, cls: str) -> None:
    name = f"torch.distributed.{cls}"
    assert _plan(f"{name}.{member}", "method", name).methods
    other = next(c for c in STORES if c != cls)
    with pytest.raises(CannotDecide):
        _plan(f"torch.distributed.{other}.{member}", "method", f"torch.distributed.{other}")


@pytest.mark.parametrize(("cls", "member"), [(c, m) for c, ms in SUBCLASSED.items() for m in ms])
def test_the_base_store_is_tested_as_the_base_of_a_python_store(cls: str, member: str) -> None:
    name = f"torch.distributed.{cls}"
    plan = _plan(
        f"{name}.{member}" if member else name,
        "method" if member else "class",
        name if member else None,
    )
    assert f"class DictStore({name}):" in plan.methods[0].source
    assert not plan.uses_device


@pytest.mark.parametrize(("leaf", "compressed"), list({**HOOK_FUNCTIONS, **HOOK_WRAPPERS}.items()))
def test_each_hook_s_gradient_is_as_sent(leaf: str, compressed: bool) -> None:
    source = _plan(f"{HOOKS}.default_hooks.{leaf}", "function").methods[0].source
    assert ("torch.tensor([[4.0, 6.0]])" in source) == compressed
