"""The ``recorded`` family: operators of ``torch.ops`` and private builtins: the call torch's own code makes of it;
before the probe's and the name-guessed kinds."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..recorded import recorded_kind, recorded_plan

NAME = "recorded"
PRIORITY = 720
WANTS: tuple[str, ...] = ("recorded",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return recorded_kind(info)


plan = recorded_plan
