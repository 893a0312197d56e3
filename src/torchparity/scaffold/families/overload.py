"""The ``overload`` family: ATen operator overloads and packets, batch-norm kernels; right after ``opinfo``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..overloads import is_overload_kind, overload_plan

NAME = "overload"
#: right after ``opinfo``. Where ``opinfo`` does not apply (an attribute of an overload), neither does
#: any family from ``graph`` to ``context``: the place is the same as before them
PRIORITY = 610
WANTS: tuple[str, ...] = ("overload",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return is_overload_kind(info)


plan = overload_plan
