"""Each recipe of the pipelining family reaches the test written for its API (no torch needed)."""

from __future__ import annotations

import re

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import pipelining as family
from torchparity.scaffold.pipelining import pipelining_plan
from torchparity.scaffold.recipes.pipelining import LINES, MEMBERS, PIPELINING, ROLES


def _bare(code: str) -> str:
    """``code`` without its whitespace and the commas the writer adds when it wraps a long line."""
    return re.sub(r",([)\]}])", r"\1", re.sub(r"\s+", "", code))


def _names() -> list[tuple[str, str, str | None]]:
    """(name, its leaf, its class) of each name the recipes take."""
    out: list[tuple[str, str, str | None]] = [
        (f"{PIPELINING}.{leaf}", leaf, None) for leaf in ROLES
    ]
    for owner, leaf in MEMBERS:
        cls = f"{PIPELINING}.schedules.{owner}"
        out.append((f"{cls}.{leaf}", leaf, cls))
    return out


@pytest.mark.parametrize(("name", "leaf", "owner"), _names())
def test_each_name_gets_its_recipes_lines(name: str, leaf: str, owner: str | None) -> None:
    kind = "method" if owner else "class"
    info = api_info(resolution(name, kind, owner=owner, owner_kind="class" if owner else None))
    assert family.applies(info, "")
    source = _bare("".join(m.source for m in pipelining_plan(info, {}, "DEVICE").methods))
    for lines in LINES.get(leaf, {}).values():
        assert _bare("".join(line.format(X=name, device="DEVICE") for line in lines)) in source


def test_each_recipe_is_of_a_name_the_family_takes() -> None:
    assert set(LINES) <= {leaf for _, leaf, _ in _names()}
