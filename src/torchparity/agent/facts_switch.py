"""Runtime switches: a setter with a paired getter, measured by setting each value, reading it back, restoring.

``torch._C._set_autograd_fallback_mode(mode)`` returns None and changes a mode
only ``torch._C._get_autograd_fallback_mode()`` shows; the signature family
finds no result to hold. Here the getter is found by name (the probe's
``_getter_names``), its value read, and by its type:

* a bool: both values set and read back;
* a str: the current value and the candidate mode words the setter accepts
  (the getter reads each back), and a made-up word it refuses (its exception);
* a ``torch.device``: the default device kind (tensors made after it live there).

A tensor's version counter setter (``_unsafe_set_version_counter``) is its own
kind: the counter is read back through ``Tensor._version``. The state is
restored after each measurement.
"""

import re
import sys

from .facts_literal import error_text, exc_name

#: mode words a str switch is tried with (kept: those its getter reads back)
MODE_WORDS = ("nothing", "warn", "error", "default", "none", "off", "on", "ignore", "raise", "strict", "relaxed",
              "disabled", "enabled", "global", "thread_local", "all", "eager", "lazy", "fast", "slow", "high",
              "highest", "medium", "low")
VERSION = re.compile(r"^_?(unsafe_)?set_version_counter$")


def _getter(torch, leaf, holder):
    from .facts_probe import _getter_names

    homes = []
    if holder is not None:
        homes.append((holder.__name__, holder))
    homes += [("torch", torch), ("torch._C", torch._C)]
    for name in _getter_names(leaf):
        for home_name, home in homes:
            fn = getattr(home, name, None)
            if not callable(fn) or isinstance(fn, type):
                continue
            try:
                value = fn()
            except Exception:
                continue
            return "%s.%s()" % (home_name, name), value
    return "", None


def switch_facts(torch, obj, res):
    leaf = res["path"].rsplit(".", 1)[-1]
    if VERSION.match(leaf):
        return {"found": True, "kind": "version"}
    if not callable(obj) or isinstance(obj, type):
        return {"found": False, "problem": "not a function"}
    holder = sys.modules.get(getattr(obj, "__module__", None) or "")
    getter, value = _getter(torch, leaf, holder)
    if not getter:
        return {"found": False, "problem": "no getter paired with %s was found" % leaf}
    env = {"torch": torch}
    out = {"found": True, "getter": getter}
    if isinstance(value, torch.device):
        out.update(kind="device", saved=str(value))
        return out
    if isinstance(value, bool):
        candidates, kind = [True, False], "bool"
    elif isinstance(value, str):
        candidates, kind = [value] + [w for w in MODE_WORDS if w != value], "str"
    else:
        return {"found": False, "problem": "the getter %s gives a %s, no switch kind" % (getter, type(value).__name__)}
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
    out.update(kind=kind, saved=value, accepted=accepted)
    return out
