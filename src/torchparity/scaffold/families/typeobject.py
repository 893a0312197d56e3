"""The ``typeobject`` family: the tensor-attribute classes (``torch.dtype``, ``device``, ``layout``, ``finfo``, ...)."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..typeobjects import type_object, typeobject_plan

NAME = "typeobject"
PRIORITY = 160
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return bool(type_object(info))


plan = typeobject_plan
