"""Each recipe of the serialization family reaches the test written for its API (no torch needed)."""

from __future__ import annotations

import re

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import serialization as family
from torchparity.scaffold.recipes.serialization import (
    ENTRY_POINTS,
    LOAD,
    MEMBERS,
    SAVE,
    STORAGES,
    TYPED,
    UNTYPED,
)
from torchparity.scaffold.serialization import serialization_plan


def _bare(code: str) -> str:
    """``code`` without its whitespace and the commas the writer adds when it wraps a long line."""
    return re.sub(r",([)\]}])", r"\1", re.sub(r"\s+", "", code))


@pytest.mark.parametrize("typed", [True, False])
@pytest.mark.parametrize("leaf", list(MEMBERS))
def test_each_storage_member_gets_its_lines(leaf: str, typed: bool) -> None:
    owner, mro = ("torch.TypedStorage", TYPED) if typed else ("torch.UntypedStorage", UNTYPED)
    info = api_info(resolution(f"{owner}.{leaf}", "method", owner=owner, owner_kind="class"))
    assert family.applies(info, "")
    plan = serialization_plan(info, {"classes": {"owner": list(mro)}}, "DEVICE")
    source = _bare("".join(m.source for m in plan.methods))
    for line in MEMBERS[leaf]:
        assert _bare(line.format(C=owner, device="DEVICE", **STORAGES[typed])) in source


@pytest.mark.parametrize("name", sorted({*ENTRY_POINTS, *SAVE, *LOAD}))
def test_save_and_load_call_the_one_under_test(name: str) -> None:
    info = api_info(resolution(name, "function"))
    assert family.applies(info, "")
    source = "".join(m.source for m in serialization_plan(info, {}, "DEVICE").methods)
    assert f"{name}(obj, buffer)" in source or f"{name}(buffer)" in source
