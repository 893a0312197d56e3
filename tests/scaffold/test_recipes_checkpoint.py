"""Each recipe of the checkpoint family reaches the test written for its API (no torch needed)."""

from __future__ import annotations

import re

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.checkpoint import checkpoint_plan
from torchparity.scaffold.families import checkpoint as family
from torchparity.scaffold.plan import CannotDecide
from torchparity.scaffold.recipes.checkpoint import (
    DCP,
    MEMBER_SLOTS,
    ROLES,
    SPECIAL,
    STATE_DICT_FUNCTIONS,
    STATE_DICT_WHAT,
    TORCH_SAVE_READERS,
)


def _bare(code: str) -> str:
    """``code`` without its whitespace and the commas the writer adds when it wraps a long line."""
    return re.sub(r",([)\]}])", r"\1", re.sub(r"\s+", "", code))


def _source(name: str, kind: str = "function", **kw: str) -> tuple[str, str]:
    info = api_info(resolution(name, kind, **kw))
    assert family.applies(info, "")
    plan = checkpoint_plan(info, {}, "DEVICE")
    return "".join(m.source for m in plan.methods), plan.summary


@pytest.mark.parametrize("leaf", list(STATE_DICT_FUNCTIONS))
def test_each_state_dict_function_gets_its_recipes_lines(leaf: str) -> None:
    name = f"{DCP}.state_dict.{leaf}"
    source, summary = _source(name)
    recipe = "".join(line.format(X=name, device="DEVICE") for line in STATE_DICT_FUNCTIONS[leaf])
    assert _bare(recipe) in _bare(source)
    assert summary == STATE_DICT_WHAT[leaf] + "."


@pytest.mark.parametrize("leaf", sorted({*ROLES, *TORCH_SAVE_READERS}))
def test_each_role_puts_the_api_under_test_in_the_save_or_load(leaf: str) -> None:
    name = f"{DCP}.{leaf}"
    assert re.search(re.escape(name) + r"[(),]", _source(name, "class")[0])


@pytest.mark.parametrize("owner", list(MEMBER_SLOTS))
def test_each_protocol_member_is_called_through_a_recording_subclass(owner: str) -> None:
    cls = f"{DCP}.x.{owner}"
    source = _source(f"{cls}.read_data", "method", owner=cls, owner_kind="class")[0]
    assert f"class Recording({MEMBER_SLOTS[owner][1]}):" in source
    with pytest.raises(CannotDecide):
        _source(f"{cls}.{SPECIAL}init__", "method", owner=cls, owner_kind="class")
