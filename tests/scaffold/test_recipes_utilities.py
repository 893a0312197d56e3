"""The utility family's recipe tables: each API they name is the family's, with the test they say (no torch needed)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import candidates
from torchparity.scaffold.recipes.utilities import FUTURE_MEMBERS, FUTURES, KINDS, VARIANTS
from torchparity.scaffold.utilities import WHAT, utility_kind, utility_plan


def _info(name: str):
    owner, leaf = name.rsplit(".", 1)
    if owner.rsplit(".", 1)[-1][:1].isupper():  # a member, named through its class
        return api_info(resolution(name, "method", owner=owner, owner_kind="class"))
    return api_info(resolution(name, "function"))


def _body(name: str) -> str:
    """The test written for ``name`` (its ``def`` line aside), the spelling under test as ``X``."""
    plan = utility_plan(_info(name), {}, "DEVICE")
    source = "".join(m.source for m in plan.methods).split("\n", 1)[1]
    return source.replace(plan.spelling, "X")


@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_named_utility_is_the_familys_with_the_test_of_its_kind(name):
    info = _info(name)
    assert utility_kind(info) == KINDS[name]
    assert candidates(info)[0] == "utility"
    plan = utility_plan(info, {}, "DEVICE")
    assert plan.summary == WHAT[KINDS[name]] + "."
    assert f"{plan.spelling}(" in "".join(
        m.source for m in plan.methods
    )  # the API under test is called


@pytest.mark.parametrize("owner", FUTURES)
@pytest.mark.parametrize("member", FUTURE_MEMBERS)
def test_each_member_of_a_future_class_is_a_future(owner, member):
    info = _info(f"{owner}.{member}")
    assert utility_kind(info) == "future"
    source = "".join(m.source for m in utility_plan(info, {}, "D").methods)
    # the member under test is called through its class; the C class's futures (made with a device
    # list) are not failed with set_exception
    expected = member != "set_exception" or owner != "torch._C.Future"
    assert (f"{owner}.{member}(" in source) == expected


def test_each_variant_names_a_leaf_of_a_named_utility():
    leaves = {name.rsplit(".", 1)[-1] for name in KINDS}
    assert set(VARIANTS) <= leaves


@pytest.mark.parametrize(
    "kind", sorted({KINDS[n] for n in KINDS if n.rsplit(".", 1)[-1] in VARIANTS})
)
def test_utilities_of_one_kind_with_other_variants_get_other_tests(kind):
    names = [n for n in KINDS if KINDS[n] == kind]
    for first in names:
        for second in names:
            if VARIANTS.get(first.rsplit(".", 1)[-1], "") != VARIANTS.get(
                second.rsplit(".", 1)[-1], ""
            ):
                assert _body(first) != _body(second), (first, second)
