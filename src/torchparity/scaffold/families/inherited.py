"""The ``inherited`` family: ``torch.nn.Module`` members reached through a module class or a ``ScriptModule``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..inherited import applies as inherited_applies
from ..inherited import inherited_plan

NAME = "inherited"
PRIORITY = 210
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return inherited_applies(info)


plan = inherited_plan
