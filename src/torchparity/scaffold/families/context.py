"""The ``context`` family: context-manager/decorator classes and their ``clone``/``__enter__``/``__exit__``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..context import context_plan
from ._base import Base, base

NAME = "context"
PRIORITY = 520
WANTS: tuple[str, ...] = ("context",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return base(info, backend_module) is Base.CONTEXT


plan = context_plan
