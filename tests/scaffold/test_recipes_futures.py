"""What a future test makes and how it gathers futures, as recipes/utilities.py says (no torch needed)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.recipes.utilities import (
    FUTURE_CLASS,
    FUTURE_DEVICE_LISTS,
    FUTURE_GATHERS,
    FUTURE_MEMBERS,
    FUTURES,
    KINDS,
)
from torchparity.scaffold.utilities import utility_kind, utility_plan


def _source(name: str, *, aliases: tuple[str, ...] = (), owner: str | None = None) -> str:
    kind = "method" if owner else "class" if name.endswith("Future") else "function"
    info = api_info(
        resolution(name, kind, aliases=aliases, owner=owner, owner_kind="class" if owner else None)
    )
    assert utility_kind(info) == "future"
    return "".join(m.source for m in utility_plan(info, {}, "DEVICE").methods)


@pytest.mark.parametrize("leaf", sorted(FUTURE_GATHERS))
def test_each_gathering_future_api_gathers_the_futures_itself(leaf):
    (name,) = [n for n in KINDS if n.rsplit(".", 1)[-1] == leaf]
    assert KINDS[name] == "future"
    source = _source(name)
    result = {"values": "values", "future": "both"}[FUTURE_GATHERS[leaf]]
    assert f"{result} = {name}([first, second])" in source
    assert f"first, second = {FUTURE_CLASS}(), {FUTURE_CLASS}()" in source


@pytest.mark.parametrize("name", FUTURES)
def test_a_future_class_makes_its_own_futures_with_a_device_list_where_the_recipe_says(name):
    source = _source(name)
    made = f"{name}([])" if name in FUTURE_DEVICE_LISTS else f"{name}()"
    assert f"fut = {made}" in source
    assert "torch.futures.collect_all([first, second])" in source
    # a future made with a device list is never failed with set_exception
    assert ("bad = " in source) == (name not in FUTURE_DEVICE_LISTS)


@pytest.mark.parametrize("spelled", FUTURE_DEVICE_LISTS)
def test_each_device_list_class_is_made_with_one_as_spelled(spelled):
    source = _source("torch._C.Future", aliases=(spelled,))
    assert f"fut = {spelled}([])" in source


@pytest.mark.parametrize("owner", FUTURES)
def test_a_members_test_makes_futures_of_its_class(owner):
    source = _source(f"{owner}.{FUTURE_MEMBERS[0]}", owner=owner)
    made = f"{owner}([])" if owner in FUTURE_DEVICE_LISTS else f"{owner}()"
    assert f"fut = {made}" in source
