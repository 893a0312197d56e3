"""The ``fake`` family: fake tensors and their modes."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..fake import fake_plan, fake_role

NAME = "fake"
PRIORITY = 130
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return bool(fake_role(info))


plan = fake_plan
