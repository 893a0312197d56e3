"""The ``utility`` family: futures, shared values, autocast, ``torch.compiler.reset`` and other utilities."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..utilities import utility_kind, utility_plan

NAME = "utility"
PRIORITY = 200
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return bool(utility_kind(info))


plan = utility_plan
