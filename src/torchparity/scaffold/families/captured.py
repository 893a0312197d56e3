"""The ``captured`` family: ATen operators no OpInfo entry names that OpInfo samples reach
(``torch._trilinear``, ``aten._embedding_bag``): the call a sample makes of it, recorded below autograd."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..captured import captured_plan, private_aten
from . import backward, opinfo

NAME = "captured"
#: right after ``opinfo``, ``overload`` and ``backward``, before ``tensor`` and ``signature``
PRIORITY = 630
#: right after ``backward`` where that comes before ``opinfo`` (no ``overload`` applies)
AFTER_EARLY_BACKWARD = backward.WITHOUT_OVERLOAD + 10
PLACES = (PRIORITY, AFTER_EARLY_BACKWARD)
WANTS: tuple[str, ...] = ("captured",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return private_aten(info) and opinfo.applies(info, backend_module)


def place(info: ApiInfo, backend_module: str) -> int:
    early = backward.applies(info, backend_module) and (
        backward.place(info, backend_module) == backward.WITHOUT_OVERLOAD
    )
    return AFTER_EARLY_BACKWARD if early else PRIORITY


plan = captured_plan
