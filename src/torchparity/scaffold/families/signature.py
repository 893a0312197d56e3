"""The ``signature`` family: functions with a signature (valid and invalid calls measured on the CPU)."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..operators import signature_plan
from ._base import Base, base

NAME = "signature"
PRIORITY = 710
WANTS: tuple[str, ...] = ("calls", "states")


def applies(info: ApiInfo, backend_module: str) -> bool:
    return base(info, backend_module) is Base.CALLABLE


plan = signature_plan
