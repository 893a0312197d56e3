"""The ``data`` family: ``torch.utils.data``: datasets, samplers, ``DataLoader``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..data import data_plan
from ._base import under

NAME = "data"
PRIORITY = 380
WANTS: tuple[str, ...] = ("data",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return under(info.resolution, "torch.utils.data")


plan = data_plan
