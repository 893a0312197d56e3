"""The ``lazy`` family: ``UninitializedParameter``/``UninitializedBuffer`` and their ``materialize``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..lazy import lazy_plan, lazy_role

NAME = "lazy"
PRIORITY = 110
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return bool(lazy_role(info))


plan = lazy_plan
