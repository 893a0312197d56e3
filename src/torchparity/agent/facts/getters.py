"""Getters of the state a setter sets: the zero-argument functions or members whose names pair with the
setter's (``set_X``/``get_X``, ``enable_X``/``X_enabled``), read before and after a call.
"""

from __future__ import annotations

import inspect
import re
import sys
import types
from typing import Any, Iterator, List, Tuple


def getter_names(leaf: str) -> List[str]:
    """Names the getter of a setter ``leaf`` goes by, most likely first."""
    out: List[str] = []
    m = re.match(r"^(_?)(.*?)(?:_?)set_?(.+)$", leaf)
    if m:
        under, pre, rest = m.groups()
        rest_l = rest[:1].lower() + rest[1:]
        for name in (
            "%s%sget_%s" % (under, pre, rest),
            "%s%sget%s" % (under, pre, rest),
            "%sis_%s_enabled" % (under, rest),
            "%sis_%s" % (under, rest),
            "%s%s_enabled" % (under, rest),
            "%s%s%s" % (under, pre, rest),
            "%sget_%s" % (under, rest_l),
            "%s%sget_%s" % (under, pre, rest_l),
        ):
            name = name.replace("__", "_") if not name.startswith("__") else name
            if name not in out:
                out.append(name)
    if "override_" in leaf:
        out.append(leaf.replace("override_", ""))
    m = re.match(r"^(_?)enable_(.+)$", leaf)
    if m:
        out += ["%s%s_enabled" % m.groups(), "%sis_%s_enabled" % m.groups()]
    m = re.match(
        r"^(_?)allow_(.+)$", leaf
    )  # torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp
    if m:
        out += ["%s%s_allowed" % m.groups(), "%sis_%s_allowed" % m.groups()]
    return out


def member_getters(owner: Any, leaf: str, recv: str) -> List[str]:
    """``recv.buffer()`` for ``recv.set_buffer(...)``: the zero-argument method or property of ``owner`` that
    reads what the setter member ``leaf`` sets, as a getter a scenario reads before and after its call."""
    for name in getter_names(leaf):
        raw = inspect.getattr_static(owner, name, None)
        if raw is None or name == leaf:
            continue
        if isinstance(raw, property):
            return ["%s.%s" % (recv, name)]
        if callable(raw) and not isinstance(raw, (staticmethod, classmethod, type)):
            return ["%s.%s()" % (recv, name)]
    return []


def getters(leaf: str, holder: Any) -> Iterator[Tuple[str, Any]]:
    """(source, value) of each zero-argument getter that may read the state setter ``leaf`` sets, most
    likely first: the names ``getter_names`` gives, in ``holder`` (a module), ``torch`` and ``torch._C``."""
    torch = sys.modules.get("torch")
    homes: List[Tuple[str, Any]] = []
    if isinstance(holder, types.ModuleType):
        homes.append((holder.__name__, holder))
    homes += [("torch", torch), ("torch._C", getattr(torch, "_C", None))]
    for name in getter_names(leaf):
        for home_name, home in homes:
            fn = getattr(home, name, None) if home is not None else None
            if not callable(fn) or isinstance(fn, type):
                continue
            try:
                value = fn()
            except Exception:
                continue
            yield "%s.%s()" % (home_name, name), value


def state_getters(state: str, holder: Any) -> Iterator[Tuple[str, Any]]:
    """(source, value) of zero-argument getters of the state named ``state`` (``inference_mode``):
    ``is_<state>_enabled``, ``<state>_enabled``, ``is_<state>`` in ``holder``, ``torch`` and ``torch._C``."""
    torch = sys.modules.get("torch")
    homes: List[Tuple[str, Any]] = []
    if isinstance(holder, types.ModuleType):
        homes.append((holder.__name__, holder))
    homes += [("torch", torch), ("torch._C", getattr(torch, "_C", None))]
    for name in ("is_%s_enabled" % state, "%s_enabled" % state, "is_%s" % state):
        for home_name, home in homes:
            fn = getattr(home, name, None) if home is not None else None
            if not callable(fn) or isinstance(fn, type):
                continue
            try:
                yield "%s.%s()" % (home_name, name), fn()
            except Exception:
                continue


def paired_getter(leaf: str, holder: Any) -> str:
    """Source of a zero-argument getter reading the state setter ``leaf`` sets (a plain value), or ""."""
    for source, value in getters(leaf, holder):
        if isinstance(value, (bool, int, float, str)):
            return source
    return ""
