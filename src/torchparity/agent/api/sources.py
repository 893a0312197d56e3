"""Where an object is defined (``torch/autograd/grad_mode.py:NN`` or C extension) and its signature."""

from __future__ import annotations

import ast
import enum
import inspect
import os
import re
import sys
import types
from typing import TYPE_CHECKING, Any

from .objects import Found, is_op_packet

if TYPE_CHECKING:
    from typing import TypeGuard

C_EXTENSION = "C extension"

_AST_CACHE: dict[str, ast.Module] = {}


def _relpath(path: str) -> str:
    """``torch/autograd/grad_mode.py`` for a file under a sys.path entry, else the path."""
    real = os.path.realpath(path)
    best = None
    for entry in sys.path:
        if not entry:
            continue
        base = os.path.realpath(entry)
        if real.startswith(base.rstrip(os.sep) + os.sep):
            rel = os.path.relpath(real, base)
            if best is None or len(rel) < len(best):
                best = rel
    return (best or path).replace(os.sep, "/")


def _python_file(path: str | None) -> TypeGuard[str]:
    return path is not None and path.endswith(".py") and os.path.exists(path)


def _python_source(obj: Any) -> bool:
    try:
        return _python_file(inspect.getsourcefile(obj))
    except (TypeError, OSError):
        return False


def _def_line(fn: Any) -> int:
    """Line of the ``def`` (decorators skipped)."""
    lines, start = inspect.getsourcelines(fn)
    for i, text in enumerate(lines):
        if re.match(r"\s*(async\s+)?def\s", text):
            return start + i
    return start


def _class_line(path: str, qualname: str) -> int | None:
    tree = _AST_CACHE.get(path)
    if tree is None:
        try:
            with open(path, "rb") as fh:
                tree = ast.parse(fh.read())
        except (OSError, SyntaxError, ValueError):
            return None
        _AST_CACHE[path] = tree
    nodes: list[ast.AST] = [tree]
    found: ast.AST | None = None
    for part in qualname.split("."):
        found = None
        for node in nodes:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.ClassDef, ast.FunctionDef)) and child.name == part:
                    found = child
                    break
            if found is not None:
                break
        if found is None:
            return None
        nodes = [found]
    return getattr(found, "lineno", None)


def class_source(cls: type) -> tuple[str, int] | None:
    """(file, line) of a Python class, even when its ``__module__`` was rewritten."""
    files = []
    try:
        f = inspect.getsourcefile(cls)
        if f:
            files.append(f)
    except (TypeError, OSError):
        pass
    for value in vars(cls).values():
        target = getattr(value, "__func__", None) or getattr(value, "fget", None) or value
        code = getattr(inspect.unwrap(target) if callable(target) else target, "__code__", None)
        if code is not None and code.co_filename not in files:
            files.append(code.co_filename)
    qual = getattr(cls, "__qualname__", cls.__name__)
    for f in files:
        if _python_file(f):
            line = _class_line(f, qual)
            if line:
                return f, line
    return None


def _module_source(mod: types.ModuleType) -> str:
    f = getattr(mod, "__file__", None)
    if _python_file(f):
        return _relpath(f)
    return C_EXTENSION


def _function_source(fn: Any) -> str | None:
    target = inspect.unwrap(fn)
    try:
        f = inspect.getsourcefile(target)
    except (TypeError, OSError):
        return None
    if not _python_file(f):
        return None
    try:
        return "%s:%d" % (_relpath(f), _def_line(target))
    except (OSError, TypeError, IndexError):
        return _relpath(f)


def source_of(hit: Found, kind: str, raw: Any) -> str:
    obj = hit.obj
    if kind == "module":
        return _module_source(obj)
    if kind == "enum-member":
        cls = type(obj)
        where = class_source(cls) if _python_source(cls) or isinstance(obj, enum.Enum) else None
        return "%s:%d" % (_relpath(where[0]), where[1]) if where else C_EXTENSION
    if kind in ("staticmethod", "classmethod") and hasattr(raw, "__func__"):
        return _function_source(raw.__func__) or C_EXTENSION
    if kind == "property":
        fget = getattr(raw, "fget", None) or getattr(raw, "func", None)
        return (_function_source(fget) if fget is not None else None) or C_EXTENSION
    if isinstance(obj, type):
        where = class_source(obj)
        return "%s:%d" % (_relpath(where[0]), where[1]) if where else C_EXTENSION
    if kind in ("function", "method"):
        fn = raw if inspect.isfunction(raw) else obj
        return _function_source(getattr(fn, "__func__", fn)) or C_EXTENSION
    if kind == "builtin":
        return C_EXTENSION
    # attribute: the value's own type is C -> C extension; else the holder's file
    vtype = type(obj)
    if vtype.__module__ != "builtins" and not _python_source(vtype) and not isinstance(obj, type):
        return C_EXTENSION
    holder = hit.parent
    if isinstance(holder, types.ModuleType):
        return _module_source(holder)
    if isinstance(holder, type):
        where = class_source(holder)
        return "%s:%d" % (_relpath(where[0]), where[1]) if where else C_EXTENSION
    return C_EXTENSION


def defining_module(hit: Found, kind: str, definer: type | None) -> str:
    obj = hit.obj
    if kind == "module":
        return obj.__name__
    if kind == "enum-member":
        return getattr(type(obj), "__module__", "") or ""
    if definer is not None:
        return getattr(definer, "__module__", "") or ""
    if kind in ("function", "class", "context-manager", "storage-class", "builtin"):
        mod = getattr(inspect.unwrap(obj) if callable(obj) else obj, "__module__", None)
        if isinstance(mod, str) and mod:
            return mod
    holder = hit.parent
    if isinstance(holder, types.ModuleType):
        return holder.__name__
    return getattr(holder, "__module__", "") or ""


def _doc_signature(obj: Any, leaf: str) -> str | None:
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str):
        return None
    for line in doc.strip().splitlines()[:3]:
        line = line.strip()
        if line.startswith(leaf + "(") and ")" in line:
            return line[len(leaf) :]
    return None


def signature_of(hit: Found, kind: str, raw: Any) -> str | None:
    if kind in ("module", "attribute", "enum-member", "property") or is_op_packet(hit.obj):
        return None
    target = hit.obj
    if kind in ("staticmethod", "classmethod") and hasattr(raw, "__func__"):
        target = raw.__func__
    try:
        return str(inspect.signature(target))
    except (TypeError, ValueError):
        pass
    text = getattr(target, "__text_signature__", None)
    if isinstance(text, str) and text:
        return text.replace("$", "")
    return _doc_signature(hit.obj, hit.attr)
