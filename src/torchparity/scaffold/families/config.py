"""The ``config`` family: the copy and load methods of torch's config modules."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..configs import config_leaf, config_plan

NAME = "config"
PRIORITY = 100
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return bool(config_leaf(info))


plan = config_plan
