"""Replace an API, at every name it is reached by, with a stand-in that returns a sentinel.

A generated test that still passes once its API only answers ``SENTINEL``
checks nothing about that API. ``install(resolution)`` performs the
replacement in this interpreter (a forked child, or a fresh one) and says
where it replaced the API, or why it could not (a member of a C type, a
bound method of a builtin object).
"""

from __future__ import annotations

import inspect
import itertools
import types
from typing import Any, Callable, List

from ..api.objects import Found, subclasses, try_walk
from ..protocol import Json
from .schema import StandinReport


class Sentinel(object):
    """What a stand-in returns: equal to nothing, with no attribute a test could use."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<torchparity stand-in sentinel>"

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def __hash__(self) -> int:
        return 0


SENTINEL = Sentinel()


def _standin(*args: Any, **kwargs: Any) -> Sentinel:
    return SENTINEL


def _names(resolution: Json) -> List[str]:
    names = [resolution.get("path", ""), resolution.get("canonical", "")] + list(
        resolution.get("aliases", [])
    )
    return [n for n in dict.fromkeys(names) if n and "." in n]


def _spelled(resolution: Json, kind: str, replaced: List[str], problems: List[str]) -> None:
    """The name the test spells the API by (``torch.npu.Event`` for ``torch.cuda.Event``), replaced too."""
    name = resolution.get("spelled") or ""
    if not name or name in replaced:
        return
    hit = try_walk(name)
    if hit is None or hit.parent is None:
        return
    problem = _patch(name, hit, kind)
    if problem:
        problems.append(problem)
        return
    replaced.append(name)


def _raw_member(holder: type, attr: str) -> Any:
    """The member as stored in the class dict that defines it (staticmethod/classmethod kept)."""
    for klass in inspect.getmro(holder):
        d = getattr(klass, "__dict__", {})
        if attr in d:
            return d[attr]
    return None


def _replacement(holder: Any, attr: str, kind: str) -> Any:
    if kind == "property":
        return property(lambda self: SENTINEL)
    if isinstance(holder, type):
        raw = _raw_member(holder, attr)
        if isinstance(raw, staticmethod):
            return staticmethod(_standin)
        if isinstance(raw, classmethod) or type(raw).__name__ == "classmethod_descriptor":
            return classmethod(_standin)
        if kind == "attribute":
            return SENTINEL
        return _standin
    if kind in ("attribute", "enum-member"):
        return SENTINEL
    return _standin


def install(resolution: Json) -> StandinReport:
    """Replace the API everywhere it is spelled; returns {"replaced": [names], "problem": str}."""
    kind = resolution.get("kind", "")
    target = try_walk(resolution.get("path", ""))
    if target is None:
        return {"replaced": [], "problem": "%s is not found here" % resolution.get("path")}
    original = target.obj
    replaced: List[str] = []
    problems: List[str] = []
    for name in _names(resolution):
        hit = try_walk(name)
        if hit is None or hit.parent is None:
            continue
        same = hit.obj is original
        try:
            same = same or hit.obj == original
        except Exception:
            pass
        if not same:
            continue
        problem = _patch(name, hit, kind)
        if problem:
            problems.append(problem)
            continue
        replaced.append(name)
    _spelled(resolution, kind, replaced, problems)
    if replaced:
        _replace_in_subclasses(resolution, kind, original)
        if isinstance(target.parent, type):
            replaced += _replace_overrides(target.parent, target.attr, kind)
    return {
        "replaced": replaced,
        "problem": "" if replaced else "; ".join(problems) or "no holder found",
    }


def _replace_overrides(owner: type, attr: str, kind: str, limit: int = 50) -> List[str]:
    """Subclasses of ``owner`` (in torch) that define ``attr`` again: an instance reaches theirs."""
    out: List[str] = []
    for sub in itertools.islice(subclasses(owner), limit):
        if attr not in getattr(sub, "__dict__", {}) or not (sub.__module__ or "").startswith(
            "torch"
        ):
            continue
        try:
            setattr(sub, attr, _replacement(sub, attr, kind))
        except (TypeError, AttributeError):
            continue
        out.append("%s.%s.%s" % (sub.__module__, sub.__qualname__, attr))
    return out


def _replace_in_subclasses(resolution: Json, kind: str, original: Any) -> None:
    """A member defined on a base class but overridden by none: also patch the defining class."""
    definer = resolution.get("defined_in") or ""
    if not definer or kind not in ("method", "classmethod", "staticmethod", "property"):
        return
    hit = try_walk(definer)
    leaf = resolution.get("path", "").rsplit(".", 1)[-1]
    if hit is None or not isinstance(hit.obj, type):
        return
    try:
        if getattr(hit.obj, leaf, None) is original or _raw_member(hit.obj, leaf) is not None:
            setattr(hit.obj, leaf, _replacement(hit.obj, leaf, kind))
    except (TypeError, AttributeError):
        pass


class _Proxy(object):
    """Stands where an instance was (a C object's member cannot be patched): the member answers
    the sentinel, everything else is the instance's."""

    def __init__(self, wrapped: Any, attr: str, value: Any) -> None:
        object.__setattr__(self, "_torchparity_wrapped", wrapped)
        object.__setattr__(self, attr, value)

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_torchparity_wrapped"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_torchparity_wrapped"), name, value)


def _delegate(dunder: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(object.__getattribute__(self, "_torchparity_wrapped"), dunder)(
            *args, **kwargs
        )

    method.__name__ = dunder
    return method


for _dunder in (
    "__call__",
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__contains__",
    "__iter__",
    "__len__",
    "__repr__",
    "__bool__",
    "__enter__",
    "__exit__",
):
    setattr(_Proxy, _dunder, _delegate(_dunder))


def _reaches(holder: Any, attr: str, value: Any) -> bool:
    try:
        return getattr(holder, attr) is value or (
            isinstance(value, property) and getattr(holder, attr, None) is SENTINEL
        )
    except Exception:
        return False


def _set_checked(holder: Any, attr: str, value: Any) -> bool:
    """Set ``holder.attr``, through the instance's own dict where its ``__setattr__`` refuses (a
    config module); True only where the holder now answers the stand-in. A flag whose setter checks
    its argument (``torch.backends.cudnn.enabled``) refuses both: its holder gets a proxy instead."""
    try:
        setattr(holder, attr, value)
    except Exception:  # a flag whose setter checks its argument raises what it likes (RuntimeError)
        if isinstance(holder, type) or not hasattr(holder, "__dict__"):
            return False
        try:
            object.__setattr__(holder, attr, value)
        except Exception:
            return False
    if isinstance(holder, type) or isinstance(value, property):
        return True
    return _reaches(holder, attr, value)


def _patch(name: str, hit: Found, kind: str) -> str:
    """Replace ``name`` where it is read from; '' when done, else why not.

    A class or module gets the stand-in as its attribute; an instance gets it in its own dict.
    Where neither takes it (a C type, an instance with no dict), the holder itself is replaced
    where it is read from: a C type by a subclass that overrides the member, an instance by a
    proxy whose member is the stand-in."""
    holder, attr = hit.parent, hit.attr
    value = (
        _replacement(holder, attr, kind)
        if isinstance(holder, (type, types.ModuleType))
        else (
            property(lambda self: SENTINEL)
            if kind == "property"
            else (SENTINEL if kind in ("attribute", "enum-member") else _standin)
        )
    )
    if kind == "property" and not isinstance(holder, type):
        value = SENTINEL  # an instance's dict holds values, not descriptors
    if _set_checked(holder, attr, value):
        return ""
    outer = try_walk(name.rsplit(".", 1)[0]) if "." in name else None
    if outer is None or outer.parent is None or outer.obj is not holder:
        return "%s cannot be replaced: %s refuses the attribute" % (name, type(holder).__name__)
    stand: Any
    if isinstance(holder, type):
        try:
            stand = type(holder.__name__, (holder,), {attr: _replacement(holder, attr, kind)})
        except TypeError as exc:
            return "%s cannot be replaced: %s" % (name, exc)
        stand.__module__ = holder.__module__
    else:
        stand = _Proxy(holder, attr, value)
    if outer.parent is holder or not _set_checked(outer.parent, outer.attr, stand):
        return "%s cannot be replaced: neither %s nor what holds it takes the stand-in" % (
            name,
            outer.path,
        )
    return ""
