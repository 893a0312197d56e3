"""The ``measured`` family: any API the agent found a working call of: the result, and what the call changed."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..measured import measured_plan

NAME = "measured"
PRIORITY = 740
WANTS: tuple[str, ...] = ("probe",)


def applies(info: ApiInfo, backend_module: str) -> bool:
    return info.resolution.kind != "module"


plan = measured_plan
