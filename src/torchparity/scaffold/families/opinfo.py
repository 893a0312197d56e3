"""The ``opinfo`` family: operators with an OpInfo entry (sample inputs per dtype against a reference)."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..operators import opinfo_plan
from ._base import Base, base

NAME = "opinfo"
PRIORITY = 600
WANTS: tuple[str, ...] = ("opinfo",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return base(info, backend_module) in (Base.TENSOR_METHOD, Base.CALLABLE)


plan = opinfo_plan
