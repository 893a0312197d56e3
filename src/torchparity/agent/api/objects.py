"""Reach an object by its dotted name, and name an object back (where it says it lives)."""

from __future__ import annotations

import difflib
import importlib
import inspect
import sys
import types
from typing import Any, Iterable, Iterator

MAX_SUGGESTIONS = 5


class NotFound(Exception):
    """The name does not resolve; ``furthest`` is the deepest module/object reached."""

    def __init__(
        self,
        name: str,
        furthest: str,
        missing: str,
        suggestions: Iterable[str],
        candidates: Iterable[str] = (),
    ) -> None:
        Exception.__init__(self, name)
        self.name = name
        self.furthest = furthest
        self.missing = missing
        self.suggestions = list(suggestions)
        self.candidates = list(candidates)


class Found(object):
    """A resolved path: the object, where it was read from, and how it was found."""

    def __init__(self, path: str, obj: Any, parent: Any, attr: str, via: str = "") -> None:
        self.path = path
        self.obj = obj
        self.parent = parent
        self.attr = attr
        self.via = via


def import_name(name: str) -> types.ModuleType | None:
    mod = sys.modules.get(name)
    if isinstance(mod, types.ModuleType):
        return mod
    try:
        return importlib.import_module(name)
    except Exception:
        return None


def is_dunder(segment: str) -> bool:
    return segment.startswith("__") and segment.endswith("__") and len(segment) > 4


def _getattr(obj: Any, name: str) -> tuple[bool, Any]:
    """(found, value): getattr that also imports a submodule of a module."""
    try:
        return True, getattr(obj, name)
    except Exception:
        pass
    if isinstance(obj, types.ModuleType):
        sub = import_name("%s.%s" % (obj.__name__, name))
        if sub is not None:
            return True, sub
    return False, None


def walk(path: str, with_suggestions: bool = True) -> Found:
    """Resolve a fully qualified dotted ``path``; raises NotFound with the furthest point (and, unless
    told not to, the names close to the missing one: difflib over a module's names, milliseconds)."""
    parts = path.split(".")
    root = import_name(parts[0])
    if root is None:
        raise NotFound(path, "", parts[0], [])
    obj: Any = root
    parent: Any = None
    attr = parts[0]
    reached = parts[0]
    for i, part in enumerate(parts[1:], 1):
        ok, value = _getattr(obj, part)
        if not ok:
            close = suggest(obj, reached, part) if with_suggestions else []
            raise NotFound(path, reached, part, close, ())
        parent, attr, obj = obj, part, value
        reached = ".".join(parts[: i + 1])
    return Found(path, obj, parent, attr)


def subclasses(cls: type) -> Iterator[type]:
    """Every subclass of ``cls``, nearest first, each once (a class reached twice, by two bases, once)."""
    todo: list[type] = list(cls.__subclasses__())
    seen: set[type] = set()
    while todo:
        sub = todo.pop(0)
        if sub in seen:
            continue
        seen.add(sub)
        todo.extend(sub.__subclasses__())
        yield sub


def try_walk(path: str) -> Found | None:
    try:
        return walk(path, with_suggestions=False)
    except NotFound:
        return None


def suggest(obj: Any, reached: str, missing: str) -> list[str]:
    try:
        names = dir(obj)
    except Exception:
        names = []
    if not missing.startswith("_"):
        names = [n for n in names if not n.startswith("_")]
    close = difflib.get_close_matches(missing, names, n=MAX_SUGGESTIONS, cutoff=0.6)
    if not close:
        low = missing.lower()
        close = [n for n in names if low in n.lower() or n.lower() in low][:MAX_SUGGESTIONS]
    return ["%s.%s" % (reached, n) for n in close]


def loaded_modules(prefix: str) -> list[tuple[str, types.ModuleType]]:
    """Loaded modules named ``prefix`` or under it, public ones first, then by name length."""
    out = []
    for name, mod in list(sys.modules.items()):
        if not isinstance(mod, types.ModuleType):
            continue
        if name == prefix or name.startswith(prefix + "."):
            out.append((name, mod))
    out.sort(key=lambda item: (private_segment(item[0]) is not None, len(item[0]), item[0]))
    return out


def private_segment(path: str) -> str | None:
    for seg in path.split("."):
        if seg.startswith("_") and not is_dunder(seg):
            return seg
    return None


def class_path(cls: type) -> str:
    """``module.qualname``; a pybind class whose qualname is already its path keeps it
    (``torch.jit.ScriptFunction``, not ``torch.jit.torch.jit.ScriptFunction``)."""
    mod, qual = cls.__module__, cls.__qualname__
    return qual if qual.startswith(mod + ".") else "%s.%s" % (mod, qual)


def qualified_name(obj: Any) -> str:
    mod = getattr(obj, "__module__", None) or ""
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", "?")
    if mod and isinstance(qual, str) and qual.startswith(mod + "."):
        return qual  # a pybind class whose qualname is already its path
    return "%s.%s" % (mod, qual) if mod and mod != "builtins" else str(qual)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:  # bound methods compare by function and self
        return inspect.ismethod(a) and inspect.ismethod(b) and bool(a == b)
    except Exception:
        return False


def _named_path(obj: Any) -> str | None:
    """``module.qualname`` (or ``module.name``) when that path leads back to ``obj``."""
    mod = getattr(obj, "__module__", None)
    if not isinstance(mod, str) or not mod:
        return None
    for leaf in (getattr(obj, "__qualname__", None), getattr(obj, "__name__", None)):
        if not isinstance(leaf, str) or "<" in leaf:
            continue
        path = "%s.%s" % (mod, leaf)
        hit = try_walk(path)
        if hit is not None and _same(hit.obj, obj):
            return path
    return None


def holder_name(parent: Any) -> str | None:
    if isinstance(parent, types.ModuleType):
        return parent.__name__
    if isinstance(parent, type):
        return _named_path(parent) or qualified_name(parent)
    return None


def canonical_name(hit: Found) -> str:
    obj = hit.obj
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if isinstance(hit.parent, type) and not isinstance(obj, type):
        return "%s.%s" % (holder_name(hit.parent), hit.attr)
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)) or callable(obj):
        named = _named_path(obj)
        if named:
            return named
    holder = holder_name(hit.parent)
    if holder:
        return "%s.%s" % (holder, hit.attr)
    return hit.path


def is_op_packet(obj: Any) -> bool:
    mod = type(obj).__module__ or ""
    return mod.startswith("torch._ops") and type(obj).__name__ in ("OpOverloadPacket", "OpOverload")
