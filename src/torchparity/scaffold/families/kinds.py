"""The ``kinds`` family: APIs that take or give tensors of another kind (sparse, nested, ...);
tried right before ``measured``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..recipes.kinds import TENSOR_CLASSES
from ..tensor_kinds import kinds_plan
from . import context, measured, runtime, storage
from ._base import CALLABLE_KINDS

NAME = "kinds"
PRIORITY = 730
WANTS: tuple[str, ...] = ("kinds",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    """A callable or a ``Tensor`` property, where ``measured`` is tried and no ``runtime``, ``context``
    or ``storage`` is."""
    r = info.resolution
    tensor_property = r.kind == "property" and r.owner_class in TENSOR_CLASSES
    if not (r.kind in CALLABLE_KINDS or tensor_property) or not measured.applies(
        info, backend_module
    ):
        return False
    return not any(f.applies(info, backend_module) for f in (runtime, context, storage))


plan = kinds_plan
