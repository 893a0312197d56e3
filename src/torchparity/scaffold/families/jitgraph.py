"""The ``jitgraph`` family: TorchScript IR and jit internals (``torch._C._jit_*`` passes, ``Graph``, ``Node``, ...)."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..jitgraph import jitgraph_applies, jitgraph_only, jitgraph_plan

NAME = "jitgraph"
PRIORITY = 140
WANTS: tuple[str, ...] = ("jitgraph",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return jitgraph_applies(info)


plan = jitgraph_plan


def alone(info: ApiInfo, backend_module: str) -> bool:
    """The APIs the other families' probing calls would end the interpreter with: this family alone."""
    return jitgraph_only(info)
