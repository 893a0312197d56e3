"""The ``module`` family: anything under ``torch.nn`` (module classes and their members), members of
classes under ``torch.jit``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..nn import nn_plan
from ._base import under

NAME = "module"
PRIORITY = 410
WANTS: tuple[str, ...] = ("probe", "module_db")


def applies(info: ApiInfo, backend_module: str) -> bool:
    r = info.resolution
    return under(r, "torch.nn") or under(r, "torch.jit") and bool(r.owner_class)


plan = nn_plan
