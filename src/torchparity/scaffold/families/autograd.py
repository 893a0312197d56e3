"""The ``autograd`` family: ``torch.autograd.grad``, ``backward``, ``gradcheck``, ``gradgradcheck`` and the engine's calls."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..autograd import autograd_plan
from ..snippets import snippet
from ._base import under

NAME = "autograd"
PRIORITY = 360
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    r = info.resolution
    return under(r, "torch.autograd") and snippet(NAME, r.path.rsplit(".", 1)[-1]) is not None


plan = autograd_plan
