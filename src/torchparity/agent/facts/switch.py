"""Runtime switches: a setter with a paired getter, measured by setting each value, reading it back, restoring.

``torch._C._set_autograd_fallback_mode(mode)`` returns None and changes a mode
only ``torch._C._get_autograd_fallback_mode()`` shows; the signature family
finds no result to hold. Here the getter is found by name (the probe's
``getters.getter_names``), its value read, and by its type:

* a bool: both values set and read back;
* a str: the current value and the candidate mode words the setter accepts
  (the getter reads each back), and a made-up word it refuses (its exception);
* a ``torch.device``: the default device kind (tensors made after it live there).

A tensor's version counter setter (``_unsafe_set_version_counter``) is its own
kind: the counter is read back through ``Tensor._version``. The state is
restored after each measurement.
"""

from __future__ import annotations

import re
import sys
from typing import Any, List, Optional, Tuple

from ..protocol import Json, TorchModule
from .literal import error_text, exc_name
from .schema_probe import SwitchFacts

#: mode words a str switch is tried with (kept: those its getter reads back)
MODE_WORDS = (
    "nothing",
    "warn",
    "error",
    "default",
    "none",
    "off",
    "on",
    "ignore",
    "raise",
    "strict",
    "relaxed",
    "disabled",
    "enabled",
    "global",
    "thread_local",
    "all",
    "eager",
    "lazy",
    "fast",
    "slow",
    "high",
    "highest",
    "medium",
    "low",
)
VERSION = re.compile(r"^_?(unsafe_)?set_version_counter$")


def _more_names(leaf: str) -> List[str]:
    """Getter names the probe's list leaves out: the public spelling of a private setter's getter
    (``_set_grad_enabled`` is read by ``is_grad_enabled``) and ``is_X`` for a setter ``set_X_enabled``."""
    out: List[str] = []
    m = re.match(r"^(_?)set_(.+)$", leaf)
    if m:
        under, rest = m.groups()
        out += ["is_%s" % rest, "get_%s" % rest, "_is_%s" % rest, "_get_%s" % rest]
        if not rest.endswith("_enabled"):
            out.append("is_%s_enabled" % rest)
    m = re.match(
        r"^(_?[a-z]+_)set_(.+)$", leaf
    )  # a prefix before the verb: _jit_set_X, _debug_set_X
    if m:
        pre, rest = m.groups()
        out += ["%sget_%s" % (pre, rest), "%s%s" % (pre, rest), "%sis_%s" % (pre, rest)]
    return [n for n in dict.fromkeys(out)]


def _getter(
    torch: TorchModule, leaf: str, holder: Any, bound: Optional[Tuple[str, Any]] = None
) -> Tuple[str, Any]:
    """(source, value) of the first getter paired with the setter ``leaf``, or ("", None); ``bound``: the
    (spelling, instance) a bound method's getter is looked up on first."""
    from .getters import getters

    hit = next(getters(leaf, holder), None) if bound is None else None
    if hit is not None:
        return hit
    homes = ([(holder.__name__, holder)] if holder is not None and holder is not torch else []) + [
        ("torch", torch),
        ("torch._C", torch._C),
    ]
    if (
        bound is not None
    ):  # a method of an instance (``torch.default_generator.set_state``): its getter there
        homes.insert(0, bound)
    for name in _more_names(leaf):
        for hname, home in homes:
            fn = getattr(home, name, None)
            if not callable(fn) or isinstance(fn, type):
                continue
            try:
                return "%s.%s()" % (hname, name), fn()
            except Exception:
                continue
    return ("", None)


#: draws that move a generator state a state getter reads (``get_rng_state``)
MOVERS = ("torch.rand(3)",)


GETTER = re.compile(r"^(_?)(?:get_(.+)|is_(.+)_enabled)$")


def _homes(torch: TorchModule, obj: Any) -> List[Tuple[str, Any]]:
    holder = sys.modules.get(getattr(obj, "__module__", None) or "")
    homes = [("torch", torch), ("torch._C", torch._C)]
    if holder is not None and holder is not torch:
        homes.insert(0, (holder.__name__, holder))
    return homes


def _spelled(torch: TorchModule, value: Any) -> str:
    return "torch.%s" % str(value).split(".")[-1] if isinstance(value, torch.dtype) else repr(value)


def _keyed(torch: TorchModule, obj: Any, res: Json, device_type: str) -> Optional[SwitchFacts]:
    """A getter and setter keyed by a device type (``get_autocast_dtype(device_type)`` and
    ``set_autocast_dtype(device_type, dtype)``): each value set for the key, read back, restored."""
    leaf = res["path"].rsplit(".", 1)[-1]
    m = GETTER.match(leaf)
    if m:  # the API is the getter: its setter by name
        under, got, enabled = m.groups()
        getter_leaf, setter_leaves = (
            leaf,
            ["%sset_%s" % (under, got)] if got else ["%sset_%s_enabled" % (under, enabled)],
        )
    else:
        from .getters import getter_names

        getter_leaf, setter_leaves = None, [leaf]
    homes = _homes(torch, obj)
    names = [getter_leaf] if getter_leaf else getter_names(leaf)
    for key in dict.fromkeys([device_type or "cpu", "cpu"]):
        for gname in names:
            for setter_leaf in setter_leaves:
                for hname, home in homes:
                    get, put = getattr(home, gname, None), getattr(home, setter_leaf, None)
                    if not callable(get) or not callable(put) or isinstance(get, type):
                        continue
                    try:
                        value = get(key)
                    except Exception:
                        continue
                    if isinstance(value, bool):
                        candidates = [not value, value]
                    elif isinstance(value, torch.dtype):
                        candidates = [
                            d for d in (torch.float16, torch.bfloat16, torch.float32) if d != value
                        ] + [value]
                    else:
                        continue
                    accepted = []
                    try:
                        for v in candidates:
                            try:
                                put(key, v)
                            except Exception:
                                continue
                            if get(key) == v:
                                accepted.append(v)
                    finally:
                        put(key, value)
                    if get(key) != value or len(accepted) < 2:
                        continue
                    return {
                        "found": True,
                        "kind": "keyed",
                        "key": key,
                        "getter": "%s.%s" % (hname, gname),
                        "setter": "%s.%s" % (hname, setter_leaf),
                        "saved": _spelled(torch, value),
                        "accepted": [_spelled(torch, v) for v in accepted],
                    }
    return None


def switch_facts(torch: TorchModule, obj: Any, res: Json, device_type: str = "") -> SwitchFacts:
    leaf = res["path"].rsplit(".", 1)[-1]
    if VERSION.match(leaf):
        return {"found": True, "kind": "version"}
    if not callable(obj) or isinstance(obj, type):
        return {"found": False, "problem": "not a function"}
    keyed = _keyed(torch, obj, res, device_type)
    if keyed:
        return keyed
    if GETTER.match(leaf):
        return {"found": False, "problem": "no setter keyed like the getter %s was found" % leaf}
    holder = sys.modules.get(getattr(obj, "__module__", None) or "")
    owner = getattr(obj, "__self__", None)
    bound = None
    if owner is not None and not isinstance(owner, type(sys)) and "." in res["path"]:
        bound = (res["path"].rsplit(".", 1)[0], owner)
    getter, value = _getter(torch, leaf, holder, bound)
    if not getter:
        return {"found": False, "problem": "no getter paired with %s was found" % leaf}
    env = {"torch": torch}
    out: SwitchFacts = {"found": True, "getter": getter}
    if isinstance(value, torch.device):
        out.update({"kind": "device", "saved": str(value)})
        return out
    if hasattr(torch, "Tensor") and isinstance(value, torch.Tensor):
        return _state(torch, obj, getter, value, env, out)
    candidates: List[Any]
    if isinstance(value, bool):
        candidates, kind = [True, False], "bool"
    elif isinstance(value, torch.dtype):
        candidates, kind = (
            [value]
            + [
                d
                for d in (torch.float16, torch.bfloat16, torch.float32, torch.float64)
                if d != value
            ],
            "dtype",
        )
    elif isinstance(value, int):
        candidates, kind = [value] + [v for v in (value + 1, 1, 2) if v != value], "int"
    elif isinstance(value, str):
        candidates, kind = [value] + [w for w in MODE_WORDS if w != value], "str"
    else:
        return {
            "found": False,
            "problem": "the getter %s gives a %s, no switch kind" % (getter, type(value).__name__),
        }
    accepted = []
    try:
        for v in candidates:
            try:
                obj(v)
            except Exception:
                continue
            if eval(getter, env) == v:
                accepted.append(v)
        if kind == "str":
            try:
                obj("no_such_mode_word")
                out["refused"] = ""
            except Exception as exc:
                out["refused"] = exc_name(exc)
                out["refused_message"] = error_text(exc)[:200]
    finally:
        obj(value)
    if eval(getter, env) != value:
        return {"found": False, "problem": "%s did not restore the value it read" % leaf}
    if kind == "dtype":
        out.update(
            {
                "kind": kind,
                "saved": _spelled(torch, value),
                "accepted": [_spelled(torch, v) for v in accepted],
            }
        )
        return out
    out.update({"kind": kind, "saved": value, "accepted": accepted})
    return out


def _state(
    torch: TorchModule, obj: Any, getter: str, value: Any, env: Json, out: SwitchFacts
) -> SwitchFacts:
    """A tensor state (``set_rng_state``/``get_rng_state``): a draw moves it, the setter puts it back (the
    getter reads it back, the same draws follow)."""
    for mover in MOVERS:
        try:
            saved = value.clone()
            first = eval(mover, env)
            moved = eval(getter, env)
            if torch.equal(moved, saved):
                continue
            returned = obj(saved)
            back = eval(getter, env)
            again = eval(mover, env)
            obj(moved)
        except Exception:
            continue
        if torch.equal(back, saved) and torch.equal(first, again):
            owner = getattr(obj, "__self__", None)
            out.update(
                {
                    "kind": "state",
                    "mover": mover,
                    "returns": "none"
                    if returned is None
                    else "self"
                    if owner is not None and returned is owner
                    else "other",
                }
            )
            return out
    return {
        "found": False,
        "problem": "no draw moved the state %s reads and was repeated after it was set" % getter,
    }
