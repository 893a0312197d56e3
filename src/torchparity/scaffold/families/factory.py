"""The ``factory`` family: factories whose values are not reproducible (``torch.empty``, ``rand``, ...)."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..factories import factory_leaf, factory_plan

NAME = "factory"
PRIORITY = 190
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return bool(factory_leaf(info))


plan = factory_plan
