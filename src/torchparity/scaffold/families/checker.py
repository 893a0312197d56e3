"""The ``checker`` family: predicates and validators on measured arguments (``is_X``, ``has_X``, ``check_X``),
after every family above."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..checker import checker_leaf, checker_plan

NAME = "checker"
PRIORITY = 800
WANTS: tuple[str, ...] = ("checker",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return checker_leaf(info)


plan = checker_plan
