"""The ``collectives`` family: ``torch.distributed`` process groups and collectives."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..collectives import collectives_plan, is_collective

NAME = "collectives"
PRIORITY = 330
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return is_collective(info.resolution)


plan = collectives_plan
