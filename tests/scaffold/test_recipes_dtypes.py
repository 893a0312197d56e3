"""The dtype family's recipe tables: each dtype they name is the family's, with its documented facts asserted."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.dtypes import canonical_dtype, dtype_plan
from torchparity.scaffold.families import candidates
from torchparity.scaffold.recipes.dtypes import ALIASES, DTYPES


def _source(name: str) -> str:
    plan = dtype_plan(api_info(resolution(name, "attribute")), {}, "DEVICE")
    return "".join(m.source for m in plan.methods)


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_each_dtype_recipe_is_asserted_by_the_dtype_test(name):
    info = api_info(resolution(name, "attribute"))
    assert canonical_dtype(info) == name
    assert candidates(info)[0] == "dtype"
    facts = DTYPES[name]
    source = _source(name)
    assert f"self.assertEqual(dtype.itemsize, {facts['itemsize']})" in source
    if "bits" in facts:
        assert f"self.assertEqual(info.bits, {facts['bits']})" in source
    if "max" in facts:
        assert f"self.assertEqual(info.max, {facts['max']!r})" in source
        assert f"self.assertEqual(info.eps, {facts['eps']!r})" in source


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_each_alias_is_tested_as_its_canonical_dtype(alias):
    assert ALIASES[alias] in DTYPES
    assert canonical_dtype(api_info(resolution(alias, "attribute"))) == ALIASES[alias]
