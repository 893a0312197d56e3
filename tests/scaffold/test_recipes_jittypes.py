"""The jittype family's recipe tables: each entry is in the tests written for its class (no torch needed)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import candidates
from torchparity.scaffold.jittypes import jit_type_leaf, jittype_plan
from torchparity.scaffold.plan import CannotDecide
from torchparity.scaffold.recipes.jittypes import (
    ELEMENT,
    INVALID,
    OWN_TESTS,
    RELATIONS,
    SCRIPTED,
    SINGLETONS,
    SPELLINGS,
)

LEAVES = sorted({*SINGLETONS, *ELEMENT, *OWN_TESTS})
C = "torch._C.{}"


def _plan(leaf: str, facts: dict | None = None):
    info = api_info(resolution(C.format(leaf), "class"))
    plan = jittype_plan(info, facts or {}, "DEVICE")
    assert plan.spelling == C.format(leaf)
    return plan


def _tests(leaf: str) -> dict[str, str]:
    """test-name suffix -> the source of that test, for ``leaf``."""
    plan = _plan(leaf)
    prefix = f"test_{plan.stem}_"
    return {m.name[len(prefix) :]: m.source for m in plan.methods}


def _fill(line: str, leaf: str) -> str:
    return line.format_map({**SPELLINGS, "C": C.format(leaf), "leaf": leaf})


def _statements(source: str) -> list[str]:
    """The statements of ``source`` (formatting and comments aside), one dump each."""
    return [ast.dump(s) for s in ast.parse(textwrap.dedent(source)).body]


def _body(source: str) -> list[str]:
    """The statements of a test method's body."""
    (method,) = ast.parse(textwrap.dedent(source)).body
    assert isinstance(method, ast.FunctionDef)
    return [ast.dump(s) for s in method.body]


@pytest.mark.parametrize("leaf", LEAVES)
def test_each_type_class_is_the_familys(leaf):
    info = api_info(resolution(C.format(leaf), "class"))
    assert jit_type_leaf(info) == leaf
    assert candidates(info)[0] == "jittype"
    assert jit_type_leaf(api_info(resolution(f"torch.{leaf}", "class"))) == leaf


@pytest.mark.parametrize("leaf", LEAVES)
def test_each_type_class_gets_its_tests(leaf):
    tests = _tests(leaf)
    first = "singleton" if leaf in SINGLETONS else "element" if leaf in ELEMENT else ""
    own = list(OWN_TESTS.get(leaf, {}))
    known = SINGLETONS.get(leaf) or ELEMENT.get(leaf)
    annotation = known[1] if known else SCRIPTED.get(leaf, ("", ""))[0]
    scripted = ["scripted"] if annotation and "scripted" not in own else []
    assert list(tests) == [*([first] if first else []), *own, *scripted]
    if scripted:
        assert f"x: {annotation}" in tests["scripted"]


@pytest.mark.parametrize("leaf", sorted(RELATIONS))
def test_each_relation_ends_the_first_test_of_its_class(leaf):
    body = _body(next(iter(_tests(leaf).values())))
    lines = _statements("\n".join(_fill(line, leaf) for line in RELATIONS[leaf]))
    assert body[-len(lines) :] == lines


@pytest.mark.parametrize("leaf", sorted(OWN_TESTS))
def test_each_own_test_is_written_as_its_recipe_says(leaf):
    tests = _tests(leaf)
    for suffix, lines in OWN_TESTS[leaf].items():
        assert _body(tests[suffix]) == _statements("\n".join(_fill(line, leaf) for line in lines))


@pytest.mark.parametrize("leaf", LEAVES)
def test_only_the_recipes_invalid_row_and_device_use(leaf):
    plan = _plan(leaf)
    texts = [text for row in plan.coverage for text in row]
    assert (leaf in INVALID) == any(text == INVALID.get(leaf) for text in texts)
    own_lines = [line for lines in OWN_TESTS.get(leaf, {}).values() for line in lines]
    assert plan.uses_device == any("DEVICE" in line for line in own_lines)


def test_a_class_not_derived_from_the_base_is_not_decided():
    with pytest.raises(CannotDecide):
        _plan("IntType", {"classes": {"api": ["torch._C.IntType", "object"]}})
    assert _plan("IntType", {"classes": {"api": ["torch._C.IntType", "torch.Type"]}})
