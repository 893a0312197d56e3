"""The ``serialization`` family: ``torch.save``/``torch.load``, ``torch.serialization`` and the storages' members."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..recipes.serialization import ENTRY_POINTS, MODULES
from ..serialization import serialization_plan
from ._base import under

NAME = "serialization"
PRIORITY = 390
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    r = info.resolution
    return (
        any(under(r, module) for module in MODULES)
        or r.canonical in ENTRY_POINTS
        or "Storage" in (r.owner_class or "")
    )


plan = serialization_plan
