"""The ``optim`` family: optimizers, learning-rate schedulers and their members."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..optim import optim_plan
from ._base import under

NAME = "optim"
PRIORITY = 400
WANTS: tuple[str, ...] = ("optim",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return under(info.resolution, "torch.optim")


plan = optim_plan
