"""The ``switch`` family: a setter no other template could hold, whose effect a paired getter shows; last."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..switches import switch_leaf, switch_plan

NAME = "switch"
PRIORITY = 820
WANTS: tuple[str, ...] = ("switch",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return switch_leaf(info)


plan = switch_plan
