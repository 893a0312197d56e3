"""Module-level registries: the dicts, lists and sets a function reaches by name, saved, given a probe
entry or emptied before a call, and restored after it (in the test's ``finally`` too).
"""

from __future__ import annotations

import collections
import inspect
import sys
import types
from typing import Any, List, Tuple

from ..api.objects import try_walk
from .recipes.layout import TORCH

CONTAINERS = (dict, list, set, collections.deque)


def touched_containers(fn: Any, limit: int = 8) -> List[str]:
    """Source paths, from ``fn``'s module, of the dicts, lists and sets its code reaches by name: a
    global, an attribute of a global module or class, and what the function or bound method named
    there reaches in turn (``reduction.register`` is ``ForkingPickler.register``: its ``_extra_reducers``)."""
    out: List[str] = []
    code = getattr(fn, "__code__", None)
    # the module the function's globals are (``__module__`` may name where it is exported from)
    base = (getattr(fn, "__globals__", None) or {}).get("__name__")
    if not isinstance(base, str) or code is None or not base.startswith(TORCH):
        return out

    def add(path: str, obj: Any) -> None:
        # kept only where the path leads back to it (a function may hide a submodule of its name)
        if isinstance(obj, CONTAINERS) and path not in out and len(out) < limit:
            found = try_walk(path)
            if found is not None and found.obj is obj:
                out.append(path)

    def deeper(path: str, holder: Any, sub: Any) -> None:
        inner = getattr(sub, "__func__", sub)
        icode = getattr(inner, "__code__", None)
        if icode is None:
            return
        owner: Any = getattr(sub, "__self__", None)
        owner_name = owner.__name__ if isinstance(owner, type) else ""
        if owner_name and getattr(holder, owner_name, None) is owner:
            for k in icode.co_names:
                add("%s.%s.%s" % (path, owner_name, k), inspect.getattr_static(owner, k, None))
        if getattr(inner, "__globals__", None) is getattr(holder, "__dict__", 0):
            for k in icode.co_names:
                add("%s.%s" % (path, k), inner.__globals__.get(k))

    names = [
        n for n in code.co_names if not n.startswith("__") and n != "torch"
    ]  # torch itself: too wide
    for n in names:
        if n not in fn.__globals__:
            continue
        obj, path = fn.__globals__[n], "%s.%s" % (base, n)
        add(path, obj)
        if isinstance(obj, (types.ModuleType, type)):
            for m in names:
                sub = (
                    inspect.getattr_static(obj, m, None)
                    if isinstance(obj, type)
                    else getattr(obj, m, None)
                )
                add("%s.%s" % (path, m), sub)
                deeper(path, obj, getattr(obj, m, None) if sub is not None else None)
        elif isinstance(obj, types.FunctionType):
            mod = sys.modules.get(obj.__module__ or "")
            if mod is not None and (obj.__module__ or "").startswith("torch"):
                deeper(obj.__module__, mod, obj)
    return out


def obj_at(path: str) -> Any:
    """The object at ``path``; AttributeError where nothing is reached."""
    found = try_walk(path)
    if found is None:
        raise AttributeError("nothing is reached at %s" % path)
    return found.obj


def _kind(path: str) -> str:
    """``dict``, ``list`` or ``set``: the builtin container the object at ``path`` is."""
    return type(obj_at(path)).__mro__[-2].__name__


def registry_setup(path: str, dirty: bool) -> List[str]:
    kind = _kind(path)
    setup = ["saved = %s(%s)" % ("list" if kind == "deque" else kind, path), "%s.clear()" % path]
    if dirty:
        setup.append(
            {
                "dict": '%s["torchparity_probe"] = "value"',
                "list": '%s.append("torchparity_probe")',
                "deque": '%s.append("torchparity_probe")',
                "set": '%s.add("torchparity_probe")',
            }[kind]
            % path
        )
    return setup + ["registry = %s" % path]


def registry_restore(path: str) -> List[str]:
    kind = _kind(path)
    if kind == "list":
        return ["%s[:] = saved" % path]
    if kind == "deque":  # a bounded deque keeps its maxlen
        return ["%s.clear()" % path, "%s.extend(saved)" % path]
    return ["%s.clear()" % path, "%s.update(saved)" % path]


def container_guard(holder_path: str, holder: Any) -> Tuple[List[str], List[str]]:
    """Statements saving a module-level container and giving it a probe entry, and restoring it after the
    test; a list or set holds only that entry (so what its method does to it is the same wherever the
    test runs) and is watched as ``registry``."""
    if not isinstance(
        holder, CONTAINERS
    ):  # a subclass too (``counters``: a defaultdict of Counters)
        return [], []
    saved = "saved = %s(%s)" % (
        "dict" if isinstance(holder, dict) else "set" if isinstance(holder, set) else "list",
        holder_path,
    )
    if isinstance(
        holder, dict
    ):  # kept as it is, with an entry of the probe's (its size is the environment's)
        setup = [saved, '%s["torchparity_probe"] = "value"' % holder_path]
        return setup, ["%s.clear()" % holder_path, "%s.update(saved)" % holder_path]
    setup = [saved, "%s.clear()" % holder_path]
    if isinstance(holder, list):
        setup.append('%s.append("torchparity_probe")' % holder_path)
        restore = ["%s[:] = saved" % holder_path]
    elif isinstance(holder, collections.deque):
        setup.append('%s.append("torchparity_probe")' % holder_path)
        restore = ["%s.clear()" % holder_path, "%s.extend(saved)" % holder_path]
    else:
        setup.append('%s.add("torchparity_probe")' % holder_path)
        restore = ["%s.clear()" % holder_path, "%s.update(saved)" % holder_path]
    return setup + ["registry = %s" % holder_path], restore
