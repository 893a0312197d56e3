"""The ``checkpoint`` family: ``torch.distributed.checkpoint``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..checkpoint import checkpoint_plan
from ._base import under

NAME = "checkpoint"
PRIORITY = 320
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return under(info.resolution, "torch.distributed.checkpoint")


plan = checkpoint_plan
