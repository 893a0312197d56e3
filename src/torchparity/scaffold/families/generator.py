"""The ``generator`` family: ``torch.Generator`` and its members."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..runtime import generator_plan

NAME = "generator"
PRIORITY = 370
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    r = info.resolution
    return r.canonical.startswith(("torch.Generator", "torch._C.Generator")) or (
        r.owner_class or ""
    ) in ("torch.Generator", "torch._C.Generator")


plan = generator_plan
