"""The ``jittype`` family: TorchScript's type classes in ``torch._C``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..jittypes import jit_type_leaf, jittype_plan

NAME = "jittype"
PRIORITY = 150
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return bool(jit_type_leaf(info))


plan = jittype_plan
