"""The ``pipelining`` family: ``torch.distributed.pipelining``'s stages, schedules and model splitting."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..pipelining import pipelining_plan, pipelining_role

NAME = "pipelining"
PRIORITY = 310
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return pipelining_role(info)


plan = pipelining_plan
