"""The ``package`` family: ``torch.package``'s exporter and importer."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..package import package_plan
from ._base import under

NAME = "package"
PRIORITY = 350
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return under(info.resolution, "torch.package")


plan = package_plan
