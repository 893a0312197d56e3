"""What calls and member reads give on the CPU: Tensor members per shape, plain functions per argument.

Candidate arguments are source text (``torch.ones(2, 3, device=DEVICE)``)
evaluated here with ``DEVICE`` bound to the CPU, so the test and the
measurement run the very same expressions. Each call starts from every value
of the API's states, which are put back afterwards.
"""

from __future__ import annotations

import inspect
import itertools
import math
import re
import warnings
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, cast

from ..protocol import Json, TorchModule
from ..state import StateSpec
from .context import api_specs, push_all, undo_all
from .literal import error_text, exc_name, torch_module, try_literal
from .schema import CallsFacts, InvalidCall, TensorFacts, TensorRow, ValidCall

#: shapes a Tensor member is read on: 0-d, empty, 1-d, 2-d, empty 3-d
SHAPES = ((), (0,), (3,), (2, 3), (2, 0, 4))
MAX_VALID_CALLS = 10
MAX_INVALID_CALLS = 4
MAX_BASE_TRIES = 64


# -- Tensor members ------------------------------------------------------------------------------


def _shape_tensor(torch: TorchModule, shape: Tuple[int, ...]) -> Any:
    n = 1
    for d in shape:
        n *= d
    return torch.arange(1, n + 1, dtype=torch.float32).reshape(shape)


def tensor_facts(torch: TorchModule, name: str, kind: str, formula: str = "") -> TensorFacts:
    """Per shape: the member's value as source (or the exception it raises), and the formula check."""
    rows: List[TensorRow] = []
    for shape in SHAPES:
        x = _shape_tensor(torch, shape)
        row: TensorRow = {"shape": list(shape), "literal": None, "raises": None, "formula_ok": None}
        try:
            value = getattr(x, name)
            if kind not in ("property", "attribute"):
                value = value()
        except Exception as exc:
            row["raises"] = exc_name(exc)
            row["error"] = error_text(exc)
            rows.append(row)
            continue
        row["literal"] = try_literal(value, torch)
        if formula:
            try:
                want = eval(formula, {"torch": torch, "math": math, "shape": tuple(shape), "x": x})
                row["formula_ok"] = type(want) is type(value) and bool(want == value)
            except Exception as exc:
                row["formula_ok"] = False
                row["error"] = error_text(exc)
        rows.append(row)
    return {"shapes": rows}


# -- plain calls ----------------------------------------------------------------------------------

_TENSORS = (
    "torch.tensor([1.5, -2.0, 3.0], device=DEVICE)",
    "torch.tensor([0.0], device=DEVICE)",
    "torch.ones(2, 3, device=DEVICE)",
    "torch.tensor(7, device=DEVICE)",
    "torch.zeros(0, device=DEVICE)",
)
POOLS = {
    "bool": ("False", "True"),
    "int": ("0", "1", "2", "-1"),
    "float": ("0.0", "1.5", "-2.0"),
    "str": ('"cpu"', '""'),
    "none": ("None",),
    "dtype": ("torch.int64", "torch.float32", "torch.bool", "torch.float16"),
    "device": ('torch.device("cpu")', '"cpu"', "0", "1"),
    "tensor": _TENSORS,
    "sequence": ("[1, 2]", "(2, 3)", "[]"),
    "size": ("(2, 3)", "(3,)", "()"),
}
#: a value of no expected type: the invalid-argument probe
INVALID = "object()"
_TYPE_WORDS = (
    (r"\bbool(ean)?\b", "bool"),
    (r"\bint(eger)?s?\b", "int"),
    (r"\bfloat\b|\bnumber\b", "float"),
    (r"\bstr(ing)?\b", "str"),
    (r"\bNone\b|\boptional\b", "none"),
    (r"\bdtype\b", "dtype"),
    (r"\bdevice\b", "device"),
    (r"\bTensor\b", "tensor"),
    (r"\bSize\b|\bshape\b", "size"),
    (r"\blist\b|\btuple\b|\bsequence\b|\bSequence\b", "sequence"),
)
ANY_POOLS = ("int", "none", "device", "bool", "str", "tensor", "dtype", "sequence")


def _doc_types(doc: Any) -> Dict[str, str]:
    """``{param: type text}`` from an ``Args:`` section (``name (type): text`` lines)."""
    out: Dict[str, str] = {}
    if not isinstance(doc, str):
        return out
    sections = re.split(
        r"^\s*(?:Args|Arguments|Parameters|Keyword args|Keyword arguments)\s*:\s*$", doc, flags=re.M
    )
    doc = "\n".join(sections[1:])
    for m in re.finditer(r"^\s*\*{0,2}([A-Za-z_][A-Za-z0-9_\\]*)\s*\(([^)]*)\)\s*:?", doc, re.M):
        name = m.group(1).replace("\\", "")
        out.setdefault(name, m.group(2))
    return out


def _pools_for(text: str) -> List[str]:
    found: List[str] = []
    for pattern, pool in _TYPE_WORDS:
        if text and re.search(pattern, text, re.I) and pool not in found:
            found.append(pool)
    return found


def _param_pools(param: Json, annotation_text: str, doc_text: str) -> List[str]:
    pools: List[str] = []
    if isinstance(param.get("default_obj"), bool):
        pools.append("bool")
    pools += [p for p in _pools_for(annotation_text) if p not in pools]
    pools += [p for p in _pools_for(doc_text) if p not in pools]
    if not pools or annotation_text in ("Any", "typing.Any", "object"):
        pools += [p for p in ANY_POOLS if p not in pools]
    values: List[str] = []
    if param["has_default"] and param["default"] is not None and param["default"] not in values:
        values.append(param["default"])
    for pool in pools:
        for v in POOLS[pool]:
            if v not in values:
                values.append(v)
    return values


def _signature_params(obj: Any, resolution: Json) -> Optional[List[Json]]:
    """[{name, kind, has_default, default (source), annotation text}] or None."""
    sig = None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        text = resolution.get("signature") or ""
        try:
            sig = inspect.signature(eval("lambda %s: None" % _strip_sig(text)))
        except Exception:
            return None
    out: List[Json] = []
    for p in sig.parameters.values():
        if p.name in ("self", "cls") and not out:
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            out.append(
                {
                    "name": p.name,
                    "kind": "var",
                    "has_default": True,
                    "default": None,
                    "annotation": "",
                }
            )
            continue
        has_default = p.default is not p.empty
        default_src = try_literal(p.default, torch_module()) if has_default else None
        ann = p.annotation
        ann_text = (
            ""
            if ann is p.empty
            else (ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann)))
        )
        kinds: Dict[Any, str] = {p.KEYWORD_ONLY: "keyword", p.POSITIONAL_ONLY: "posonly"}
        kind = kinds.get(p.kind, "positional")
        out.append(
            {
                "name": p.name,
                "kind": kind,
                "has_default": has_default,
                "default": default_src,
                "default_obj": p.default if has_default else None,
                "annotation": str(ann_text),
            }
        )
    return out


def _strip_sig(text: str) -> str:
    """``(type1, type2) -> dtype`` -> ``type1, type2`` (annotations dropped)."""
    inner = text.strip()
    if "->" in inner:
        inner = inner[: inner.rindex("->")].strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    parts: List[str] = []
    for part in inner.split(","):
        part = part.strip()
        if not part:
            continue
        if part in ("*", "/") or part.startswith("*"):
            parts.append(part.split(":")[0].strip())
            continue
        name = part.split(":")[0].split("=")[0].strip()
        default = part.split("=", 1)[1].strip() if "=" in part else None
        parts.append("%s=%s" % (name, default) if default is not None else name)
    return ", ".join(p for p in parts if p != "/")


def _args_src(params: List[Json], values: Sequence[Optional[str]]) -> str:
    """Call arguments as source; ``None`` omits a parameter (later ones then go by keyword)."""
    pos: List[str] = []
    kw: List[str] = []
    omitted = False
    for i, p in enumerate(params):
        v = values[i]
        if v is None:
            omitted = True
            continue
        if p["kind"] == "keyword" or (p["kind"] == "positional" and (omitted or kw)):
            kw.append("%s=%s" % (p["name"], v))
        else:
            pos.append(v)
    return ", ".join(pos + kw)


def _call_once(
    fn: Any,
    args_src: str,
    ns: Dict[str, Any],
    torch: TorchModule,
    specs: List[Tuple[str, StateSpec]],
    start: Sequence[Any],
) -> Json:
    """One call from the states in ``start``; the states are put back afterwards."""
    undo = push_all(specs, start)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval("fn(%s)" % args_src, dict(ns, fn=fn))
        after = dict((name, try_literal(spec._getter(), torch)) for name, spec in specs)
    except Exception as exc:
        return {"args": args_src, "raises": exc_name(exc), "error": error_text(exc)}
    finally:
        undo_all(undo)
    return {
        "args": args_src,
        "literal": try_literal(value, torch),
        "type": type(value).__name__,
        "tensor": isinstance(value, torch.Tensor),
        "after": after,
    }


def _outcome(
    fn: Any,
    args_src: str,
    ns: Dict[str, Any],
    torch: TorchModule,
    specs: List[Tuple[str, StateSpec]],
    device_type: str = "cpu",
) -> Json:
    """The call from every start value of the API's states: what does not depend on the start.

    ``literal`` is None when the result differs between starts; ``states`` holds
    the states whose value after the call is the same from every start.
    """
    starts = list(itertools.product(*[spec.values(device_type) for _, spec in specs]))[:8] or [()]
    runs = [_call_once(fn, args_src, ns, torch, specs, start) for start in starts]
    raised = [r for r in runs if "raises" in r]
    if raised:
        return (
            raised[0]
            if len(raised) == len(runs)
            else {"args": args_src, "raises": None, "error": "raises from some start values only"}
        )
    first = runs[0]
    if any(r["literal"] != first["literal"] for r in runs):
        first = dict(first, literal=None)
    states: List[List[Any]] = []
    for name, _ in specs:
        values = set(r["after"][name] for r in runs)
        if len(values) == 1 and None not in values:
            states.append([name, values.pop()])
    out = dict(first, states=states)
    out.pop("after", None)
    return out


def _pairs(
    params: List[Json], pools: List[List[str]], base: List[Optional[str]]
) -> List[List[Optional[str]]]:
    """Argument lists: each parameter varied alone, then each bool flag flipped with the others varied."""
    cases = [list(base)]
    for i, p in enumerate(params):
        for v in pools[i]:
            if v == base[i] or (p["has_default"] and v == p["default"] and base[i] is None):
                continue
            values = list(base)
            values[i] = v
            cases.append(values)
        values = list(base)
        values[i] = INVALID
        cases.append(values)
    flags = [
        i
        for i, p in enumerate(params)
        if isinstance(p.get("default_obj"), bool) and p["has_default"]
    ]
    for i in flags:
        for j, q in enumerate(params):
            if j == i:
                continue
            for v in pools[j]:
                if v == base[j] or (q["has_default"] and v == q["default"]):
                    continue
                values = list(base)
                values[i] = repr(not params[i]["default_obj"])
                values[j] = v
                cases.append(values)
    return cases


def _pick(outcomes: List[Json], key: str, limit: int, per_key: int) -> List[Json]:
    """Up to ``limit`` outcomes, round-robin over what they vary (``per_key`` each at most)."""
    groups: Dict[Any, List[Json]] = {}
    for o in outcomes:
        groups.setdefault(o[key], []).append(o)
    for name, group in groups.items():  # results not seen before in the group come first
        seen: Set[Any] = set()
        fresh: List[Json] = []
        repeats: List[Json] = []
        for o in group:
            (repeats if o.get("literal", o.get("raises")) in seen else fresh).append(o)
            seen.add(o.get("literal", o.get("raises")))
        groups[name] = fresh + repeats
    out: List[Json] = []
    for rank in range(per_key):
        for group in groups.values():
            if rank < len(group) and len(out) < limit:
                out.append(group[rank])
    order = dict((id(o), n) for n, o in enumerate(outcomes))
    return sorted(out, key=lambda o: order[id(o)])


def call_facts_here(torch: TorchModule, obj: Any, resolution: Json, device_type: str) -> CallsFacts:
    """Valid calls (values measured on the CPU) and invalid ones (the exception measured).

    A setter with a paired getter (``set_warn_always`` and ``is_warn_always_enabled``) gets the
    state it found back afterwards, so the facts of the APIs measured after it are not changed."""
    import sys

    from .getters import paired_getter

    getter = paired_getter(
        resolution["path"].rsplit(".", 1)[-1], sys.modules.get(getattr(obj, "__module__", ""))
    )
    saved: Optional[Tuple[Any]] = None
    if getter:
        try:
            saved = (eval(getter, {"torch": torch}),)
        except Exception:
            getter = ""
    try:
        return _call_facts(torch, obj, resolution, device_type)
    finally:
        if getter and saved is not None:
            try:
                obj(*saved)
            except Exception:
                pass


def _call_facts(torch: TorchModule, obj: Any, resolution: Json, device_type: str) -> CallsFacts:
    params = _signature_params(obj, resolution)
    if params is None:
        return {
            "problem": "no signature could be read for %s" % resolution["canonical"],
            "valid": [],
            "invalid": [],
        }
    params = [p for p in params if p["kind"] != "var"]
    doc = _doc_types(getattr(obj, "__doc__", None))
    specs = api_specs(resolution, device_type)
    ns = {"torch": torch, "DEVICE": torch.device("cpu")}
    pools = [_param_pools(p, p["annotation"], doc.get(p["name"], "")) for p in params]
    required = [i for i, p in enumerate(params) if not p["has_default"]]
    base: Optional[List[Optional[str]]] = None
    tried = 0
    for combo in itertools.product(*[pools[i] for i in required]):
        if tried >= MAX_BASE_TRIES:
            break
        tried += 1
        values: List[Optional[str]] = [None] * len(params)
        for k, i in enumerate(required):
            values[i] = combo[k]
        got = _outcome(obj, _args_src(params, values), ns, torch, specs, device_type)
        if got.get("raises") is None and "raises" not in got and got.get("literal") is not None:
            base = values
            break
    if base is None:
        return {
            "problem": "no call of %s with candidate arguments succeeded with a result a test can "
            "hold (%d tried)" % (resolution["canonical"], tried),
            "valid": [],
            "invalid": [],
            "params": [p["name"] for p in params],
        }
    valid: List[Json] = []
    invalid: List[Json] = []
    seen: Set[str] = set()
    for values in _pairs(params, pools, base):
        src = _args_src(params, values)
        if src in seen:
            continue
        seen.add(src)
        got = _outcome(obj, src, ns, torch, specs, device_type)
        changed = [params[i]["name"] for i, v in enumerate(values) if v != base[i]]
        got["varies"] = "+".join(changed)
        if "raises" in got:
            if got["raises"]:
                invalid.append(got)
        elif INVALID in values:
            continue  # an object of no expected type was accepted: nothing documented to hold
        elif got.get("literal") is not None and (got["literal"] != "None" or got["states"]):
            valid.append(got)
    return {
        "problem": "",
        # the outcomes kept: a result a test can hold, or the exception raised from every start
        "valid": cast(List[ValidCall], _pick(valid, "varies", MAX_VALID_CALLS, 3)),
        "invalid": cast(List[InvalidCall], _pick(invalid, "varies", MAX_INVALID_CALLS, 1)),
        "params": [p["name"] for p in params],
        "states": [n for n, _ in specs],
    }


def call_facts(torch: TorchModule, obj: Any, resolution: Json, device_type: str) -> CallsFacts:
    """``call_facts_here`` in a forked child (``isolate.run_isolated``): what its calls change
    in this interpreter (a global mode, a registry) stays there, and a call that aborts costs only the
    child."""
    from .isolate import isolated_facts

    return isolated_facts(
        "call", call_facts_here, (torch, obj, resolution, device_type), device_type
    )
