"""The ``generator`` family: ``torch.Generator`` and its members."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..recipes.runtime import GENERATOR_CLASSES
from ..runtime import generator_plan

NAME = "generator"
PRIORITY = 370
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    r = info.resolution
    return r.canonical.startswith(GENERATOR_CLASSES) or (r.owner_class or "") in GENERATOR_CLASSES


plan = generator_plan
