"""The ``graph`` family: ``torch.jit``, ``torch.fx``, ``torch.export`` and ``torch.compile``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..graph import graph_plan
from ..recipes.graph import ENTRY_POINTS, MODULES
from ._base import under

NAME = "graph"
PRIORITY = 300
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    r = info.resolution
    return any(under(r, module) for module in MODULES) or r.canonical in ENTRY_POINTS


plan = graph_plan
