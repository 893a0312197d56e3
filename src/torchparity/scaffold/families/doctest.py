"""The ``doctest`` family: an API whose docstring has ``>>>`` examples that reproduce here, run on
the device and on the CPU; tried right before ``signature`` and ``measured``."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..doctest import doctest_plan
from . import measured, signature

NAME = "doctest"
PRIORITY = 700
WANTS: tuple[str, ...] = ("doctest",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    """Where ``signature`` or ``measured`` would be tried: before them."""
    return signature.applies(info, backend_module) or measured.applies(info, backend_module)


plan = doctest_plan
