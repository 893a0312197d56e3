"""The ``graph`` family: ``torch.jit``, ``torch.fx``, ``torch.export`` and ``torch.compile``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..graph import graph_plan
from ._base import under

NAME = "graph"
PRIORITY = 300
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    r = info.resolution
    return (
        under(r, "torch.jit")
        or under(r, "torch.fx")
        or under(r, "torch.export")
        or r.canonical in ("torch.compile", "torch.compiler.compile")
    )


plan = graph_plan
