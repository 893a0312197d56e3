"""Paired functions: an API and its partner found by name, measured by the state one moves and the other reads.

Three shapes, each measured here (and the state restored after):

* ``toggle``: ``enable_X``/``disable_X`` (``_enable_functionalization`` and
  ``_disable_functionalization``; a class's ``enable``/``disable`` with its
  ``is_enabled``), read through readers found by name (``is_X_enabled``,
  ``X_enabled``, ``is_enabled``), zero-argument functions whose name holds X
  (``_functionalization_reapply_views_tls``) and the thread-local dispatch key
  named like X (``Functionalize``). Kept: the readers whose value after the
  enable differs from their value after the disable, both times. The enable is
  tried with no argument and with ``True``.
* ``receiver``: ``enable_X(mod)``/``disable_X(mod)`` acting on an object
  (``torch.ao.quantization.enable_observer``): an instance of a class of the
  function's module built with no argument, whose attributes (plain values,
  small tensors) the two calls set apart.
* ``getter``: a getter API (``get_X``, ``is_X_enabled``) whose setter is found
  by name: the switch facts of that setter (values set through it and read
  back through the API).
"""

from __future__ import annotations

import re
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple, cast

from ..api.objects import class_path
from ..protocol import Json, TorchModule
from .literal import NotLiteral, literal
from .schema_probe import PairFacts, SwitchFacts

#: the two sides of a nesting pair, as they appear in a name (``autocast_increment_nesting``, ``_enter_inference_mode``)
NEST_VERBS = (("increment", "decrement"), ("enter", "exit"), ("push_on", "pop"), ("push", "pop"))
NEST = re.compile(r"(^|_)(increment|decrement|enter|exit|push_on|push|pop)(_|$)")
#: what an increment is tried with: nothing, a flag, a batch size and a randomness (``_vmap_increment_nesting``)
NEST_ARGS = ((), (True,), (2, "error"), (2,))
TOGGLE = re.compile(r"^(_?)(enable|disable)(?:_(.+))?$")
READER = re.compile(r"^(_?)(?:is_enabled|is_(.+)_enabled|(.+)_enabled|get_(.+)|is_(.+))$")
#: a reader: (source, zero-argument function)
Reader = Tuple[str, Callable[..., Any]]
#: what an enable is tried with (a flag it may take: ``_enable_functionalization(reapply_views=True)``)
ENABLE_ARGS = ((), (True,))


def _homes(torch: TorchModule, obj: Any, owner: Any) -> List[Tuple[str, Any]]:
    out: List[Tuple[str, Any]] = []
    if isinstance(owner, type):
        out.append((class_path(owner), owner))
    holder = sys.modules.get(getattr(obj, "__module__", None) or "")
    if holder is not None and holder is not torch:
        out.append((holder.__name__, holder))
    out += [("torch", torch), ("torch._C", torch._C)]
    return out


def _find(
    homes: Sequence[Tuple[str, Any]], names: Sequence[str], api: Any = None
) -> Tuple[str, Any]:
    """(source, callable) of the first name found in a home, or ("", None); the API itself is ``_API_``
    (the test spells it as the API is spelled)."""
    for name in names:
        for hname, home in homes:
            fn = getattr(home, name, None)
            if callable(fn) and not isinstance(fn, type):
                return ("_API_" if api is not None and fn is api else "%s.%s" % (hname, name)), fn
    return "", None


def _args(args: Sequence[Any]) -> str:
    """Arguments as a test spells them (strings in double quotes)."""
    return ", ".join('"%s"' % a if isinstance(a, str) and '"' not in a else repr(a) for a in args)


def _lit(value: Any) -> Any:
    try:
        return literal(value)
    except NotLiteral:
        return None
    except Exception:
        return None


def _readers(
    torch: TorchModule,
    homes: Sequence[Tuple[str, Any]],
    under: str,
    rest: str,
    leaf_names: Set[str],
) -> List[Reader]:
    """Candidate reader expressions (source, zero-argument function) of the state X names."""
    out: List[Reader] = []
    names = (
        ["%sis_%s_enabled" % (u, rest) for u in (under, "_", "")]
        + ["%s%s_enabled" % (u, rest) for u in (under, "_", "")]
        + ["%sis_%s" % (u, rest) for u in (under, "_", "")]
    )
    if not rest:
        names = ["is_enabled", "enabled"]
    for name in dict.fromkeys(names):
        for hname, home in homes:
            fn = getattr(home, name, None)
            if callable(fn) and not isinstance(fn, type):
                out.append(("%s.%s()" % (hname, name), fn))
    token = rest.strip("_")
    if len(token) >= 5:
        for hname, home in homes[-2:]:  # torch and torch._C: functions whose name holds X
            for name in sorted(dir(home)):
                low = name.lower()
                if (
                    token not in low
                    or name in leaf_names
                    or re.search(r"(enable|disable|set)", low)
                ):
                    continue
                fn = getattr(home, name, None)
                if callable(fn) and not isinstance(fn, type):
                    out.append(("%s.%s()" % (hname, name), fn))
        keys = getattr(torch._C, "DispatchKey", None)
        included = getattr(torch._C, "_dispatch_tls_is_dispatch_key_included", None)
        squashed = token.replace("_", "").lower()
        for key in sorted(getattr(keys, "__members__", {}) or {}):
            if len(key) >= 6 and included is not None and squashed.startswith(key.lower()[:-1]):
                src = (
                    "torch._C._dispatch_tls_is_dispatch_key_included(torch._C.DispatchKey.%s)" % key
                )
                out.append((src, lambda k=getattr(keys, key): included(k)))
    seen: Set[str] = set()
    kept: List[Reader] = []
    for src, fn in out:
        if src not in seen:
            seen.add(src)
            kept.append((src, fn))
    return kept[:40]


def _read(readers: Sequence[Reader]) -> List[Any]:
    values: List[Any] = []
    for _, fn in readers:
        try:
            values.append(fn())
        except Exception as exc:  # a reader that needs arguments reads nothing
            values.append(exc.__class__)
    return values


def _toggle(
    torch: TorchModule, obj: Any, owner: Any, res: Json, leaf: str, m: re.Match[str]
) -> PairFacts:
    under, verb, rest = m.group(1), m.group(2), m.group(3) or ""
    homes = _homes(torch, obj, owner)
    stem = "%s%%s%s" % (under, "_" + rest if rest else "")
    enable_src, enable = _find(homes, [stem % "enable"], obj)
    disable_src, disable = _find(homes, [stem % "disable"], obj)
    if enable is None or disable is None:
        return {
            "found": False,
            "problem": "no partner %s of %s was found"
            % (stem % ("disable" if verb == "enable" else "enable"), leaf),
        }
    readers = _readers(torch, homes, under, rest, {leaf, stem % "enable", stem % "disable"})
    return _measure_toggle(torch, enable_src, enable, disable_src, disable, readers)


def _measure_toggle(
    torch: TorchModule,
    enable_src: str,
    enable: Any,
    disable_src: str,
    disable: Any,
    readers: Sequence[Reader],
) -> PairFacts:
    if not readers:
        return {"found": False, "problem": "no reader of the state %s moves was found" % enable_src}
    before = _read(readers)
    for args in ENABLE_ARGS:
        try:
            disable()
            off = _read(readers)
            on_ret = enable(*args)
            on = _read(readers)
            off_ret = disable()
            off2 = _read(readers)
            enable(*args)
            on2 = _read(readers)
        except Exception:
            continue
        finally:
            _put_back(readers, before, enable, args, disable)
        keep: List[List[Any]] = []
        for (src, _), a, b, a2, b2 in zip(readers, on, off, on2, off2):
            if (
                a != b
                and a == a2
                and b == b2
                and not isinstance(a, type)
                and not isinstance(b, type)
            ):
                la, lb = _lit(a), _lit(b)
                if la is not None and lb is not None:
                    keep.append([src, la, lb])
        if not keep or _read(readers) != before:
            continue
        return {
            "found": True,
            "kind": "toggle",
            "enable": enable_src,
            "disable": disable_src,
            "args": _args(args),
            "readers": keep[:4],
            "enable_returns_none": on_ret is None,
            "disable_returns_none": off_ret is None,
        }
    return {
        "found": False,
        "problem": "no reader found tells %s from %s" % (enable_src, disable_src),
    }


def _put_back(
    readers: Sequence[Reader], before: List[Any], enable: Any, args: Sequence[Any], disable: Any
) -> None:
    for call in (disable, lambda: enable(*args)):
        if _read(readers) == before:
            return
        try:
            call()
        except Exception:
            pass


def _reader_toggle(
    torch: TorchModule, obj: Any, owner: Any, res: Json, leaf: str
) -> Optional[PairFacts]:
    """The API reads the state: its enable/disable partners (a class's ``enable``/``disable``)."""
    # (called where READER matches the leaf)
    m = cast("re.Match[str]", READER.match(leaf))
    under = m.group(1)
    rest = next((g for g in m.groups()[1:] if g), "")
    homes = _homes(torch, obj, owner)
    names = ["%s%s_%s" % (under, "%s", rest)] if rest else ["%s"]
    enable_src, enable = _find(homes, [n % "enable" for n in names])
    disable_src, disable = _find(homes, [n % "disable" for n in names])
    if enable is None or disable is None:
        return None
    return _measure_toggle(torch, enable_src, enable, disable_src, disable, [("_API_()", obj)])


def _snapshot(torch: TorchModule, inst: Any) -> Dict[str, Tuple[str, Any]]:
    out: Dict[str, Tuple[str, Any]] = {}
    for name, value in sorted(vars(inst).items()):
        if name.startswith("__") or isinstance(value, dict):
            continue
        if isinstance(value, (bool, int, str)):
            out[name] = ("%s", value)
    for name, value in getattr(inst, "_buffers", {}).items():
        if isinstance(value, torch.Tensor) and value.numel() <= 4 and not value.is_floating_point():
            out[name] = ("%s.tolist()", value.tolist())
    return out


def _receiver(
    torch: TorchModule, obj: Any, res: Json, leaf: str, m: re.Match[str]
) -> Optional[PairFacts]:
    under, verb, rest = m.group(1), m.group(2), m.group(3) or ""
    holder = sys.modules.get(getattr(obj, "__module__", None) or "")
    if holder is None or not rest:
        return None
    partner_name = "%s%s_%s" % (under, "disable" if verb == "enable" else "enable", rest)
    partner = getattr(holder, partner_name, None)
    if not callable(partner):
        return None
    classes = sorted(
        (
            c
            for c in vars(holder).values()
            if isinstance(c, type) and c.__module__ == holder.__name__
        ),
        key=lambda c: (len(c.__name__), c.__name__),
    )
    partner_src = "%s.%s" % (holder.__name__, partner_name)
    for cls in classes[:12]:
        try:
            inst = cls()
        except Exception:
            continue
        try:
            off_fn, on_fn = (partner, obj) if verb == "enable" else (obj, partner)
            off_ret = off_fn(inst)
            off = _snapshot(torch, inst)
            on_ret = on_fn(inst)
            on = _snapshot(torch, inst)
            off_fn(inst)
            off2 = _snapshot(torch, inst)
        except Exception:
            continue
        moved = [
            [pattern % ("mod." + name), _lit(on[name][1]), _lit(off[name][1])]
            for name, (pattern, _) in on.items()
            if name in off and on[name][1] != off[name][1] and off2.get(name) == off[name]
        ]
        moved = [x for x in moved if x[1] is not None and x[2] is not None]
        if moved:
            return {
                "found": True,
                "kind": "receiver",
                "receiver": "%s.%s()" % (holder.__name__, cls.__qualname__),
                "enable": "_API_" if verb == "enable" else partner_src,
                "disable": partner_src if verb == "enable" else "_API_",
                "moved": moved[:4],
                "enable_returns_none": on_ret is None,
                "disable_returns_none": off_ret is None,
            }
    return None


def _getter_side(
    torch: TorchModule, obj: Any, owner: Any, res: Json, leaf: str
) -> Optional[PairFacts]:
    """A getter API: its setter by name, measured as a switch (set through it, read back through the API)."""
    from .switch import switch_facts

    m = re.match(r"^(_?)(?:get_(.+)|is_(.+_enabled))$", leaf)
    if not m:
        return None
    under, got, enabled = m.groups()
    rest = got or enabled
    homes = _homes(torch, obj, owner)
    for name in dict.fromkeys(["%sset_%s" % (under, rest), "set_%s" % rest, "_set_%s" % rest]):
        for hname, home in homes:
            setter = getattr(home, name, None)
            if not callable(setter) or isinstance(setter, type):
                continue
            sw = switch_facts(torch, setter, {"path": "%s.%s" % (hname, name)})
            if sw.get("found") and sw.get("kind") not in ("keyed", "version", "device"):
                getter = str(sw.get("getter") or "")
                if getter.rsplit(".", 1)[-1] != leaf + "()":
                    continue  # the setter is read by another getter, not the API
                sw = cast(SwitchFacts, dict(sw, getter="_API_()"))
                return {
                    "found": True,
                    "kind": "getter",
                    "setter": "%s.%s" % (hname, name),
                    "switch": sw,
                }
    return None


def _partner_name(leaf: str) -> Optional[Tuple[str, str]]:
    """(up, down) names of the nesting pair ``leaf`` is a side of, or None."""
    m = NEST.search(leaf)
    if not m:
        return None
    verb = m.group(2)
    for up, down in NEST_VERBS:
        if verb in (up, down):
            other = down if verb == up else up
            if any(  # a longer verb starts here (``push_onto``): not this one
                v != verb and v.startswith(verb) and leaf[m.start(2) :].startswith(v)
                for pair in NEST_VERBS
                for v in pair
            ):
                continue
            new = leaf[: m.start(2)] + other + leaf[m.end(2) :]
            return (leaf, new) if verb == up else (new, leaf)
    return None


def _int_relation(values: List[Any]) -> Optional[List[int]]:
    """The returns of up, up, down, down as offsets from the first, if all are ints."""
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return None
    return [v - values[0] for v in values]


def _nesting(torch: TorchModule, obj: Any, owner: Any, res: Json, leaf: str) -> Optional[PairFacts]:
    names = _partner_name(leaf)
    if names is None:
        return None
    homes = _homes(torch, obj, owner)
    up_src, up = _find(homes, [names[0]], obj)
    down_src, down = _find(homes, [names[1]], obj)
    if up is None or down is None:
        return {
            "found": False,
            "problem": "no partner %s of %s was found"
            % (names[1] if names[0] == leaf else names[0], leaf),
        }
    stem = re.sub(r"(^|_)(increment|decrement|enter|exit|push_on|push|pop)(_|$)", "_", leaf).strip(
        "_"
    )
    readers = _readers(torch, homes, "_", stem, set(names)) if len(stem) >= 5 else []
    readers = [
        (src, fn) for src, fn in readers if not _partner_name(src.rsplit(".", 1)[-1].rstrip("()"))
    ]
    before = _read(readers)
    for args in NEST_ARGS:
        try:
            a = up(*args)
        except Exception:
            continue
        inside = _read(readers)
        takes: Tuple[str, ...] = ()
        try:
            try:
                down()
            except (
                TypeError
            ):  # the exit takes what the enter gave (``_exit_inference_mode(guard)``)
                down(a)
                takes = ("token",)
        except Exception:
            return {"found": False, "problem": "%s after %s failed" % (down_src, up_src)}
        after = _read(readers)
        keep: List[List[Any]] = []
        for (src, _), x, y, z in zip(readers, before, inside, after):
            if x == z and x != y and not isinstance(y, type):
                lx, ly = _lit(x), _lit(y)
                if lx is not None and ly is not None:
                    keep.append([src, ly, lx])
        relation: Optional[List[int]] = None
        if not takes:
            try:
                values = [up(*args), up(*args), down(), down()]
                relation = _int_relation(values)
            except Exception:
                relation = None
        if _read(readers) != before:
            return {
                "found": False,
                "problem": "%s and %s did not leave the state as they found it"
                % (up_src, down_src),
            }
        if not keep and not (relation and relation[1] == 1):
            continue
        return {
            "found": True,
            "kind": "nesting",
            "up": up_src,
            "down": down_src,
            "args": _args(args),
            "token": bool(takes),
            "readers": keep[:4],
            "relation": relation if relation and relation[1] == 1 else None,
        }
    return {"found": False, "problem": "no reader found tells inside %s from outside" % up_src}


def _version(torch: TorchModule, obj: Any) -> Optional[PairFacts]:
    """A single side whose effect is its tensor's version counter (``autograd.graph.increment_version``):
    the counter after one call and after a second, the values untouched."""
    try:
        t = torch.zeros(3)
        before = t._version
        returned = obj(t)
        once = t._version
        obj(t)
        twice = t._version
    except Exception:
        return None
    step = once - before
    if step <= 0 or twice - once != step or t.tolist() != [0.0, 0.0, 0.0]:
        return None
    return {"found": True, "kind": "version", "step": step, "returns_none": returned is None}


def pair_facts(torch: TorchModule, obj: Any, owner: Any, res: Json) -> PairFacts:
    leaf = res["path"].rsplit(".", 1)[-1]
    if not callable(obj) or isinstance(obj, type):
        return {"found": False, "problem": "not a function"}
    found = _nesting(torch, obj, owner, res, leaf)
    if found is not None and not found.get("found") and "version" in leaf:
        found = _version(torch, obj) or found
    if found is not None:
        return found
    m = TOGGLE.match(leaf)
    if m:
        found = _receiver(torch, obj, res, leaf, m)
        return found or _toggle(torch, obj, owner, res, leaf, m)
    if READER.match(leaf):
        found = _reader_toggle(torch, obj, owner, res, leaf)
        if found and found.get("found"):
            return found
        found = _getter_side(torch, obj, owner, res, leaf)
        if found:
            return found
        return {
            "found": False,
            "problem": "no partner of %s moving the state it reads was found" % leaf,
        }
    return {"found": False, "problem": "%s is named like no pair" % leaf}
