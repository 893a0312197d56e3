"""The ``tensor`` family: ``torch.Tensor`` methods and properties (several shapes, 0-d and empty included)."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..operators import tensor_plan
from ._base import Base, base

NAME = "tensor"
PRIORITY = 640
WANTS: tuple[str, ...] = ("tensor",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return base(info, backend_module) in (Base.TENSOR_METHOD, Base.TENSOR)


plan = tensor_plan
