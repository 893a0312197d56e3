"""The ``library`` family: custom operators (``torch.library``)."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..library import library_plan, library_role

NAME = "library"
PRIORITY = 120
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return bool(library_role(info))


plan = library_plan
