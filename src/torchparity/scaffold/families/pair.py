"""The ``pair`` family: one side of a pair found by name (``enable_X``/``disable_X``), after ``checker``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..pairs import pair_leaf, pair_plan

NAME = "pair"
PRIORITY = 810
WANTS: tuple[str, ...] = ("pair",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return pair_leaf(info)


plan = pair_plan
