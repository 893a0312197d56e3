"""The factory family takes a factory only under the module its recipe names (no torch needed)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.factories import factory_leaf
from torchparity.scaffold.recipes.factories import FACTORIES, MODULE


@pytest.mark.parametrize("leaf", sorted(FACTORIES))
def test_a_factory_is_the_familys_under_its_module_only(leaf):
    assert factory_leaf(api_info(resolution(f"{MODULE}.{leaf}", "function"))) == leaf
    elsewhere = f"{MODULE}.special.{leaf}"
    assert factory_leaf(api_info(resolution(elsewhere, "function"))) == ""
    aliased = resolution(elsewhere, "builtin", aliases=(f"{MODULE}.{leaf}",))
    assert factory_leaf(api_info(aliased)) == leaf
