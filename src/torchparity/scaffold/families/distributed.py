"""The ``distributed`` family: ``torch.distributed`` stores and DDP communication hooks."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..distributed import distributed_plan, is_distributed_utility

NAME = "distributed"
PRIORITY = 340
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return is_distributed_utility(info.resolution)


plan = distributed_plan
