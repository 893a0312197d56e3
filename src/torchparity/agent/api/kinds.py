"""What a resolved object is: module, function, class, method, property, storage class, ..."""

from __future__ import annotations

import enum
import inspect
import sys
import types
from typing import Any

from .objects import Found, is_op_packet, qualified_name
from .sources import class_source

KINDS = (
    "module",
    "function",
    "builtin",
    "class",
    "context-manager",
    "method",
    "classmethod",
    "staticmethod",
    "property",
    "attribute",
    "storage-class",
    "enum-member",
)

MEMBER_KINDS = ("method", "classmethod", "staticmethod", "property")


def _static_member(cls: type, attr: str) -> tuple[Any, type | None]:
    """(raw descriptor, defining class) as stored in the MRO, or (None, None)."""
    try:
        mro = inspect.getmro(cls)
    except Exception:
        mro = (cls,)
    for klass in mro:
        try:
            d = vars(klass)
        except TypeError:
            continue
        if attr in d:
            return d[attr], klass
    meta = type(cls)
    for klass in inspect.getmro(meta):
        d = vars(klass)
        if attr in d:
            return d[attr], klass
    return None, None


def _is_enum_member(obj: Any) -> bool:
    if isinstance(obj, enum.Enum):
        return True
    members = getattr(type(obj), "__members__", None)  # pybind11 enums
    if isinstance(members, dict) and not isinstance(obj, type):
        try:
            return any(v is obj or v == obj for v in members.values())
        except Exception:
            return False
    return False


def _storage_bases() -> tuple[type, ...]:
    torch = sys.modules.get("torch")
    bases: list[type] = []
    for path in (
        "storage.TypedStorage",
        "storage.UntypedStorage",
        "storage._StorageBase",
        "UntypedStorage",
        "TypedStorage",
        "_C.StorageBase",
    ):
        obj = torch
        for part in path.split("."):
            obj = getattr(obj, part, None)
        if isinstance(obj, type):
            bases.append(obj)
    return tuple(bases)


def is_context_manager(cls: Any) -> bool:
    return hasattr(cls, "__enter__") and hasattr(cls, "__exit__")


def kind_of(hit: Found) -> tuple[str, str, Any, type | None]:
    """(kind, detail, raw descriptor, defining class)."""
    obj, parent, attr = hit.obj, hit.parent, hit.attr
    if isinstance(obj, types.ModuleType):
        return "module", "package" if hasattr(obj, "__path__") else "module", None, None
    if _is_enum_member(obj):
        return "enum-member", "member of %s" % qualified_name(type(obj)), None, None
    raw, definer = (None, None)
    if isinstance(parent, type):
        raw, definer = _static_member(parent, attr)
    if raw is not None and not isinstance(raw, type):
        tname = type(raw).__name__
        if isinstance(raw, staticmethod):
            lang = "C" if inspect.isbuiltin(raw.__func__) else "Python"
            return "staticmethod", "%s staticmethod" % lang, raw, definer
        if isinstance(raw, classmethod):
            return "classmethod", "Python classmethod", raw, definer
        if tname == "classmethod_descriptor":
            return "classmethod", "C classmethod", raw, definer
        if isinstance(raw, property):
            return "property", "Python property", raw, definer
        if inspect.isgetsetdescriptor(raw):
            return "property", "C getset descriptor", raw, definer
        if tname == "cached_property":
            return "property", "functools.cached_property", raw, definer
        if inspect.ismemberdescriptor(raw):
            return "attribute", "slot (member descriptor)", raw, definer
        if inspect.isfunction(raw):
            return "method", "Python method", raw, definer
        if (
            inspect.ismethoddescriptor(raw)
            or inspect.isbuiltin(raw)
            or tname == "wrapper_descriptor"
        ):
            return "method", "C method (%s)" % tname, raw, definer
        if callable(raw) and hasattr(raw, "__get__"):
            return "method", "callable descriptor (%s)" % tname, raw, definer
    if isinstance(obj, type):
        storage = _storage_bases()
        if storage and issubclass(obj, storage):
            return "storage-class", "storage class", raw, definer
        if is_context_manager(obj):
            deco = "__call__" in class_attrs(obj)
            return (
                "context-manager",
                "context manager and decorator" if deco else "context manager",
                raw,
                definer,
            )
        python = class_source(obj) is not None
        return "class", "Python class" if python else "C extension class", raw, definer
    if inspect.isfunction(inspect.unwrap(obj)) if callable(obj) else False:
        return "function", "Python function", raw, definer
    if inspect.isbuiltin(obj):
        return "builtin", "C builtin", raw, definer
    if is_op_packet(obj):
        return "builtin", "ATen operator (%s)" % type(obj).__name__, raw, definer
    if inspect.ismethod(obj) or (
        callable(obj)
        and not isinstance(parent, types.ModuleType)
        and parent is not None
        and not isinstance(parent, type)
    ):
        return "method", "bound method", raw, definer
    return "attribute", "instance of %s" % qualified_name(type(obj)), raw, definer


def class_attrs(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in inspect.getmro(cls):
        if klass is object:
            continue
        try:
            names.update(vars(klass))
        except TypeError:
            pass
    return names
