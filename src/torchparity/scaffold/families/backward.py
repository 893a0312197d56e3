"""The ``backward`` family: ATen backward kernels by name (``torch.ops.aten.X_backward[.ov]``,
``torch._softmax_backward_data``): central differences of the forward whose backward reaches them."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..backward import backward_kernel, backward_plan
from . import overload

NAME = "backward"
#: right after ``overload``
PRIORITY = 620
#: where no ``overload`` applies (``torch._softmax_backward_data``): before ``opinfo`` and every family
#: from ``graph`` on, after the name-matched ones up to ``inherited``
WITHOUT_OVERLOAD = 220
PLACES = (PRIORITY, WITHOUT_OVERLOAD)
WANTS: tuple[str, ...] = ("backward",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return backward_kernel(info)


def place(info: ApiInfo, backend_module: str) -> int:
    return PRIORITY if overload.applies(info, backend_module) else WITHOUT_OVERLOAD


plan = backward_plan
