"""The ``runtime`` family: device-runtime functions and classes (streams, events, counts, synchronize), and the
``torch.accelerator`` bindings it has a template for."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..accelerator import accelerator_binding
from ..runtime import runtime_plan
from ._base import Base, base

NAME = "runtime"
#: after ``module``, before ``context`` and ``opinfo``. The ``torch._C._accelerator_*`` bindings take the
#: same place: no family from ``graph`` to ``module`` (names under ``torch.jit``, ``torch.nn``,
#: ``torch.distributed``, ...) applies to them
PRIORITY = 510
WANTS: tuple[str, ...] = ("runtime",)
#: its tests need the device itself: the agent does not check them on the CPU
DEVICE_ONLY = True


def applies(info: ApiInfo, backend_module: str) -> bool:
    return base(info, backend_module) is Base.RUNTIME or accelerator_binding(info)


plan = runtime_plan
