"""What several families read of the resolved API (a helper, not a family: its name starts with ``_``)."""

from __future__ import annotations

from enum import Enum

from ...api.classify import is_device_runtime
from ...api.records import ApiInfo, Resolution
from ..recipes.layout import TENSOR_CLASS

MEMBER_KINDS = ("method", "classmethod", "staticmethod", "property", "attribute")
CALLABLE_KINDS = ("function", "builtin", "method", "classmethod", "staticmethod")


def under(r: Resolution, prefix: str) -> bool:
    """Whether the API (or its owner class) is spelled under ``prefix``."""
    names = [r.canonical, r.path, *r.aliases, r.owner_class or ""]
    return any(n == prefix or n.startswith(prefix + ".") for n in names if n)


class Base(Enum):
    """What the API's kind makes it; the ``storage``, ``runtime``, ``context``, ``opinfo``,
    ``tensor`` and ``signature`` families start from it."""

    STORAGE = "a storage class"
    RUNTIME = "the device runtime"
    CONTEXT = "a context manager or its member"
    TENSOR_METHOD = "a method of torch.Tensor"
    TENSOR = "another member of torch.Tensor"
    CALLABLE = "a callable"
    NONE = "none of these"


def base(info: ApiInfo, backend_module: str) -> Base:
    """What the API's kind makes it: the first of ``Base`` that fits, in its order."""
    r = info.resolution
    if r.kind == "storage-class":
        return Base.STORAGE
    if is_device_runtime(r, backend_module):
        return Base.RUNTIME
    if r.kind == "context-manager" or (
        r.owner_kind == "context-manager" and r.kind in MEMBER_KINDS
    ):
        return Base.CONTEXT
    if r.owner_class == TENSOR_CLASS:
        return Base.TENSOR_METHOD if r.kind == "method" else Base.TENSOR
    if r.kind in CALLABLE_KINDS:
        return Base.CALLABLE
    return Base.NONE
