"""The library and typeobject families' recipe tables: each API they name is the family's, with the test they say."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import candidates
from torchparity.scaffold.library import library_plan, library_role
from torchparity.scaffold.recipes.library import ROLES
from torchparity.scaffold.recipes.typeobjects import TYPE_OBJECTS
from torchparity.scaffold.typeobjects import WRITERS, type_object, typeobject_plan


@pytest.mark.parametrize("name", sorted(ROLES))
def test_each_library_api_gets_the_tests_of_its_role(name):
    info = api_info(resolution(name, "function"))
    assert library_role(info) == ROLES[name]
    assert candidates(info)[0] == "library"
    plan = library_plan(info, {}, "DEVICE")
    stem = ROLES[name].replace(".", "_").lower()
    assert plan.stem == stem and all(m.name.startswith(f"test_{stem}_") for m in plan.methods)


def test_apis_of_one_role_get_the_same_tests():
    by_role: dict[str, set[str]] = {}
    for name, role in ROLES.items():
        plan = library_plan(api_info(resolution(name, "function")), {}, "DEVICE")
        text = "".join(m.source for m in plan.methods).replace(plan.spelling, "S")
        by_role.setdefault(role, set()).add(text)
    assert all(len(texts) == 1 for texts in by_role.values())
    assert len({next(iter(t)) for t in by_role.values()}) == len(by_role)  # one test per role


@pytest.mark.parametrize("name", sorted(TYPE_OBJECTS))
def test_each_type_object_gets_its_writers_tests(name):
    writer, what, uses_device = TYPE_OBJECTS[name]
    info = api_info(resolution(name, "class"))
    assert type_object(info) == name
    assert candidates(info)[0] == "typeobject"
    plan = typeobject_plan(info, {}, "DEVICE")
    stem = name.rsplit(".", 1)[-1]
    expected = [f"test_{stem}_{suffix}" for suffix in WRITERS[writer](name)]
    assert [m.name for m in plan.methods] == expected
    assert plan.summary == f"the documented facts of {name}: {what}."
    assert plan.uses_device is uses_device
