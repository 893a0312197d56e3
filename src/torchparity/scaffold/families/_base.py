"""What several families read of the resolved API (a helper, not a family: its name starts with ``_``)."""

from __future__ import annotations

from ...api.classify import is_device_runtime
from ...api.records import ApiInfo, Resolution

MEMBER_KINDS = ("method", "classmethod", "staticmethod", "property", "attribute")
CALLABLE_KINDS = ("function", "builtin", "method", "classmethod", "staticmethod")


def under(r: Resolution, prefix: str) -> bool:
    """Whether the API (or its owner class) is spelled under ``prefix``."""
    names = [r.canonical, r.path, *r.aliases, r.owner_class or ""]
    return any(n == prefix or n.startswith(prefix + ".") for n in names if n)


def base(info: ApiInfo, backend_module: str) -> str:
    """What the API's kind makes it, the first that fits: ``storage`` (a storage class), ``runtime``
    (the device runtime), ``context`` (a context manager or its member), ``tensor-method``/``tensor``
    (a method/other member of ``torch.Tensor``), ``callable``; "" for none. The ``storage``,
    ``runtime``, ``context``, ``opinfo``, ``tensor`` and ``signature`` families start from it."""
    r = info.resolution
    if r.kind == "storage-class":
        return "storage"
    if is_device_runtime(r, backend_module):
        return "runtime"
    if r.kind == "context-manager" or (
        r.owner_kind == "context-manager" and r.kind in MEMBER_KINDS
    ):
        return "context"
    if r.owner_class == "torch.Tensor":
        return "tensor-method" if r.kind == "method" else "tensor"
    if r.kind in CALLABLE_KINDS:
        return "callable"
    return ""
