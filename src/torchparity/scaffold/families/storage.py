"""The ``storage`` family: storage classes (construction, basic methods, device of results)."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..storage import storage_plan
from ._base import Base, base

NAME = "storage"
PRIORITY = 500
WANTS: tuple[str, ...] = ("storage",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return base(info, backend_module) is Base.STORAGE


plan = storage_plan
