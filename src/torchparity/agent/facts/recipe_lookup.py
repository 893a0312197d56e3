"""Reading the recipe data (``recipes/``): the setups binding an instance of a class, and the named
setups of a signature's parameters."""

from __future__ import annotations

from typing import List

from .names import guess
from .recipes import MADE_ELSEWHERE, MORE_MADE, MORE_RECIPES, NAMED_SETUPS, RECIPES, Setup


def named_params(names: List[str]) -> List[str]:
    """Those of ``names`` (a signature's parameters, in order) that a named setup binds: a guess by name."""
    return [name for name in names if guess(name, NAMED_SETUPS)]


def named_setup(names: List[str]) -> Setup:
    """The named setups of those of ``names`` it has one for, joined (empty for none)."""
    return tuple(
        line for name in named_params(names) for line in NAMED_SETUPS[guess(name, NAMED_SETUPS)]
    )


def recipes_for(name: str) -> List[Setup]:
    """Setups (statement tuples) binding an instance of the class ``name``: the shared recipes, then
    those made elsewhere."""
    out = [RECIPES.get(name)] + list(MORE_RECIPES.get(name, ()))
    out += [MADE_ELSEWHERE.get(name)] + list(MORE_MADE.get(name, ()))
    return [r for r in out if r is not None]
