"""Facts a scaffolded test needs from the environment under test, measured there.

The controller never imports torch, so everything a test template must know
about the installed torch is asked here: the OpInfo entry of an operator (its
dtypes, whether it has a NumPy reference, which dtypes agree with the reference
on the CPU), how a context manager moves the global states it touches (measured
from every start value), what a Tensor member returns for a few shapes, which
calls of a plain function succeed and which raise (measured on the CPU), and
what a storage or device-runtime object offers.

Values that a test will hold literally travel as Python source text
(``torch.Size([2, 3])``); candidate arguments are source text evaluated here
with ``DEVICE`` bound to the CPU, so the test and the measurement run the very
same expressions.
"""

import inspect
import itertools
import math
import os
import re
import shutil
import sys
import tempfile
import traceback
import warnings

from . import resolve as resolve_mod
from . import state as state_mod

#: dtypes tried, in this order, when no list is asked for
DEFAULT_DTYPES = ("float32", "float16", "bfloat16", "int64", "bool")
#: floating dtypes a float64 computation can serve as the reference for
LOW_PRECISION = ("float32", "float16", "bfloat16")
#: per dtype (rtol, atol) for comparing with a reference; others use assert_close's defaults
TOLERANCES = {"float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2)}
#: shapes a Tensor member is read on: 0-d, empty, 1-d, 2-d, empty 3-d
SHAPES = ((), (0,), (3,), (2, 3), (2, 0, 4))
MAX_TENSOR_LITERAL = 16
MAX_VALID_CALLS = 10
MAX_INVALID_CALLS = 4
MAX_BASE_TRIES = 64


class _NotLiteral(Exception):
    pass


def _torch():
    import torch

    return torch


# -- literals ----------------------------------------------------------------------------

def _float_src(value):
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else '-float("inf")'
    return repr(float(value))


def _dtype_src(torch, dtype):
    name = str(dtype).split(".", 1)[-1]
    if getattr(torch, name, None) is dtype:
        return "torch.%s" % name
    raise _NotLiteral(str(dtype))


def literal(value, torch=None):
    """Python source that evaluates (with ``torch`` bound) to ``value``; raises _NotLiteral."""
    torch = torch or _torch()
    if value is None or isinstance(value, (bool, str)):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        return _float_src(value)
    if isinstance(value, complex):
        return "complex(%s, %s)" % (_float_src(value.real), _float_src(value.imag))
    if isinstance(value, torch.dtype):
        return _dtype_src(torch, value)
    if isinstance(value, torch.Size):
        return "torch.Size([%s])" % ", ".join(repr(int(v)) for v in value)
    if isinstance(value, torch.device):
        return 'torch.device("%s")' % value
    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided or value.numel() > MAX_TENSOR_LITERAL or value.is_meta:
            raise _NotLiteral("tensor")
        data = value.detach().cpu()
        if data.dtype in (torch.bfloat16, torch.float16):
            data = data.float()
        return "torch.tensor(%s, dtype=%s)" % (literal(data.tolist(), torch), _dtype_src(torch, value.dtype))
    if isinstance(value, tuple) and type(value) is tuple:
        inner = [literal(v, torch) for v in value]
        return "(%s,)" % inner[0] if len(inner) == 1 else "(%s)" % ", ".join(inner)
    if isinstance(value, list):
        return "[%s]" % ", ".join(literal(v, torch) for v in value)
    raise _NotLiteral(type(value).__name__)


def _try_literal(value, torch):
    try:
        return literal(value, torch)
    except _NotLiteral:
        return None


def _exc_name(exc):
    """The exception's name as a test can spell it: builtins bare, others qualified."""
    cls = type(exc)
    for klass in cls.__mro__:
        if klass.__module__ == "builtins":
            return klass.__name__
    return cls.__name__


def _error(exc):
    text = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, text[0][:200] if text else "")


# -- states and context managers -----------------------------------------------------------

def _state_names(resolution):
    for name in [resolution.get("canonical", "")] + list(resolution.get("aliases", [])):
        found = state_mod.states_for_api(name)
        if found:
            return list(found)
    return []


def state_facts(resolution, device_type):
    """The states the API touches (registry entries), with their values and availability."""
    specs = state_mod.registry(device_type)
    out = []
    for name in _state_names(resolution):
        spec = specs.get(name)
        if spec is None:
            out.append({"name": name, "available": False, "why": "not in this registry", "values": []})
            continue
        why = spec.available()
        values = [state_mod._jsonable(v) for v in spec.values(device_type)] if not why else []
        out.append({"name": name, "available": not why, "why": why, "values": values})
    return out


def _bool_specs(states, device_type):
    specs = state_mod.registry(device_type)
    return [(s["name"], specs[s["name"]]) for s in states
            if s["available"] and s["values"] and all(isinstance(v, bool) for v in s["values"])]


def _snapshot(specs):
    return dict((name, spec.get()) for name, spec in specs)


def _ctor_params(cls):
    """(parameter names, first parameter if it takes a bool mode, else None)."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return None, None
    params = [p for p in sig.parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if not params:
        return [], None
    first = params[0]
    required = [p for p in params[1:] if p.default is p.empty]
    boolish = (first.annotation in (bool, "bool") or isinstance(first.default, bool))
    if boolish and not required:
        return [p.name for p in params], first.name
    if all(p.default is not p.empty for p in params):  # ``no_grad(orig_func=None)``: used without arguments
        return [p.name for p in params], None
    return [p.name for p in params], False


def _mode_attrs(cls, specs):
    """Instance attributes that hold the mode argument (``mode``), for both values."""
    found = None
    for value in (False, True):
        undo = _push_all(specs, [spec.get() for _, spec in specs])
        try:
            inst = cls(value)
            attrs = set(k for k, v in vars(inst).items() if v is value and not k.startswith("_")
                        and k != "prev")
        except Exception:
            return []
        finally:
            _undo_all(undo)
        found = attrs if found is None else found & attrs
    return sorted(found or [])


def _push_all(specs, combo):
    undo = []
    for i, (_, spec) in enumerate(specs):
        undo.append(spec.push(combo[i]))
    return undo


def _undo_all(undo):
    for fn in reversed(undo):
        fn()


def context_facts(torch, resolution, obj, owner, device_type):
    """How the context manager (or its member) moves each state, from every start value."""
    states = state_facts(resolution, device_type)
    cls = obj if isinstance(obj, type) else owner
    member = None if obj is cls else resolution["path"].rsplit(".", 1)[-1]
    out = {"states": states, "member": member, "runs": [], "decorator_runs": [],
           "decorator": False, "params": [], "mode_param": None, "mode_attrs": [], "problem": ""}
    if not isinstance(cls, type):
        out["problem"] = "no context-manager class to construct"
        return out
    params, mode_param = _ctor_params(cls)
    if params is None:
        out["problem"] = "the signature of %s cannot be read" % cls.__name__
        return out
    if mode_param is False:
        out["problem"] = "%s takes (%s): only a single bool mode (or no argument) is measured" % (
            cls.__name__, ", ".join(params))
        return out
    out["params"], out["mode_param"] = params, mode_param
    arg_sets = [(False,), (True,)] if mode_param else [()]
    specs = _bool_specs(states, device_type)
    if not specs:
        out["problem"] = "no usable bool state is linked to %s" % resolution["canonical"]
        return out
    if mode_param:
        out["mode_attrs"] = _mode_attrs(cls, specs)
    out["decorator"] = "__call__" in resolve_mod._class_attrs(cls) and member in (None, "clone", "__call__")
    combos = list(itertools.product(*[spec.values(device_type) for _, spec in specs]))
    for args in arg_sets:
        for combo in combos:
            undo = _push_all(specs, combo)
            try:
                run = {"args": list(args), "outer": dict((specs[i][0], v) for i, v in enumerate(combo))}
                run["before"] = _snapshot(specs)
                ctx = cls(*args)
                target = ctx.clone() if member == "clone" else ctx
                if member == "clone":
                    run["identity"] = {"is_not": target is not ctx, "same_type": type(target) is cls,
                                       "attrs": dict((a, getattr(target, a, None) == getattr(ctx, a, None))
                                                     for a in out["mode_attrs"])}
                run["after_construct"] = _snapshot(specs)
                if member in ("__enter__", "__exit__"):
                    target.__enter__()
                    run["inside"] = _snapshot(specs)
                    target.__exit__(None, None, None)
                else:
                    with target:
                        run["inside"] = _snapshot(specs)
                run["after_exit"] = _snapshot(specs)
            except Exception as exc:
                out["problem"] = "measuring %s%r failed: %s" % (cls.__name__, args, _error(exc))
                return out
            finally:
                _undo_all(undo)
            out["runs"].append(run)
    if out["decorator"]:
        for args in arg_sets:
            undo = _push_all(specs, [spec.get() for _, spec in specs])
            try:
                deco = cls(*args)
                if member == "clone":
                    deco = deco.clone()
                probe = deco(lambda: _snapshot(specs))
            finally:
                _undo_all(undo)
            for combo in combos:
                undo = _push_all(specs, combo)
                try:
                    before = _snapshot(specs)
                    inside = probe()
                except Exception as exc:
                    out["decorator"] = False
                    out["problem"] = "calling a function decorated with %s failed: %s" % (cls.__name__, _error(exc))
                    break
                finally:
                    _undo_all(undo)
                out["decorator_runs"].append({"args": list(args), "before": before, "inside": inside})
    return out


# -- OpInfo ----------------------------------------------------------------------------------

def _op_db():
    from torch.testing._internal.common_methods_invocations import op_db

    return op_db


def _variants(op):
    yield "function", op.op
    yield "method", op.method_variant
    yield "inplace", op.inplace_variant
    for alias in getattr(op, "aliases", ()) or ():
        yield "function", getattr(alias, "op", None)
        yield "method", getattr(alias, "method_variant", None)
        yield "inplace", getattr(alias, "inplace_variant", None)


def find_opinfo(obj):
    """(OpInfo, variant kind, names of every matching entry) for the API object, or (None, ...)."""
    matches = []
    for op in _op_db():
        for kind, fn in _variants(op):
            if fn is not None and fn is obj:
                matches.append((op, kind))
                break
    if not matches:
        return None, None, []
    matches.sort(key=lambda m: (m[0].variant_test_name != "", m[0].name))
    names = ["%s%s" % (m[0].name, "." + m[0].variant_test_name if m[0].variant_test_name else "")
             for m in matches]
    return matches[0][0], matches[0][1], names


def _device_dtypes(op, device_type):
    try:
        return op.supported_dtypes(device_type)
    except Exception:  # a device type this torch's OpInfo does not know: its generic list
        return op.dtypes


def _to_cpu(value, torch):
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, (tuple, list)):
        return tuple(_to_cpu(v, torch) for v in value)
    return torch.as_tensor(value)


def _close(torch, actual, expected, dtype_name):
    rtol, atol = TOLERANCES.get(dtype_name, (None, None))
    torch.testing.assert_close(_to_cpu(actual, torch), _to_cpu(expected, torch), check_dtype=False,
                               equal_nan=True, rtol=rtol, atol=atol)


def _widen(torch, t):
    if isinstance(t, torch.Tensor) and t.is_floating_point():
        return t.to(torch.float64)
    return t


def _cpu_check(torch, op, fn, kind, dtype, reference):
    """Run the test's comparison on the CPU for one dtype: (samples checked, problem or "")."""
    checked = 0
    dtype_name = str(dtype).split(".")[-1]
    for sample in op.sample_inputs("cpu", dtype):
        if kind == "inplace" and sample.broadcasts_input:
            continue
        try:
            if reference == "numpy":
                ref = sample.numpy()
                expected = op.ref(ref.input, *ref.args, **ref.kwargs)
            else:
                wide = sample.transform(lambda t: _widen(torch, t))
                expected = op.op(wide.input, *wide.args, **wide.kwargs)
        except Exception as exc:
            return checked, "the %s reference fails: %s" % (reference, _error(exc))
        dev = sample.transform(lambda t: t.to("cpu", copy=True) if isinstance(t, torch.Tensor) else t)
        try:
            actual = fn(dev.input, *dev.args, **dev.kwargs)
        except RuntimeError:
            if kind == "inplace":
                continue
            raise
        try:
            _close(torch, actual, expected, dtype_name)
        except Exception as exc:
            return checked, "differs from the %s reference on the CPU: %s" % (reference, _error(exc))
        checked += 1
    if not checked:
        return 0, "no sample input could be checked"
    return checked, ""


def _error_inputs(torch, op, fn):
    """How many of the OpInfo's error inputs raise their error type on the CPU (all must)."""
    if getattr(op, "error_inputs_func", None) is None:
        return {"count": 0, "problem": ""}
    count = 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for error in op.error_inputs("cpu"):
                s = error.sample_input
                try:
                    fn(s.input, *s.args, **s.kwargs)
                except error.error_type:
                    count += 1
                    continue
                except Exception as exc:
                    return {"count": 0, "problem": "an error input raised %s, not %s" % (
                        _error(exc), error.error_type.__name__)}
                return {"count": 0, "problem": "an error input did not raise %s" % error.error_type.__name__}
    except Exception as exc:
        return {"count": 0, "problem": "error_inputs failed: %s" % _error(exc)}
    return {"count": count, "problem": ""}


def opinfo_facts(torch, obj, device_type, dtypes=None):
    try:
        op, kind, names = find_opinfo(obj)
    except Exception as exc:
        return {"found": False, "error": "importing op_db failed: %s" % _error(exc)}
    if op is None:
        return {"found": False, "error": ""}
    supported = set(str(d).split(".")[-1] for d in _device_dtypes(op, device_type))
    wanted = list(dtypes) if dtypes else list(DEFAULT_DTYPES)
    if device_type != "cpu":
        reference = "cpu"
    elif op.ref is not None:
        reference = "numpy"
    else:
        reference = "float64"
    kept, excluded, samples = [], [], {}
    for name in wanted:
        dtype = getattr(torch, name, None)
        if not isinstance(dtype, torch.dtype):
            excluded.append({"dtype": name, "reason": "this torch has no torch.%s" % name})
            continue
        if name not in supported:
            excluded.append({"dtype": name, "reason": "the OpInfo does not list it for %s" % device_type})
            continue
        if reference == "float64" and (name not in LOW_PRECISION or "float64" not in supported):
            excluded.append({"dtype": name, "reason": "no independent reference on the CPU "
                             "(no NumPy ref; a float64 computation serves only lower-precision floats)"})
            continue
        fn = obj
        try:
            if reference == "cpu":
                count = sum(1 for _ in op.sample_inputs("cpu", dtype))
                problem = "" if count else "no sample input for this dtype"
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    count, problem = _cpu_check(torch, op, fn, kind, dtype, reference)
        except Exception as exc:
            count, problem = 0, "checking failed: %s" % _error(exc)
        if problem:
            excluded.append({"dtype": name, "reason": problem})
        else:
            kept.append(name)
            samples[name] = count
    errors = _error_inputs(torch, op, obj) if kind == "function" else {"count": 0, "problem": ""}
    return {
        "found": True, "name": op.name, "variant_test_name": op.variant_test_name, "matches": names,
        "error_inputs": errors,
        "call": kind, "has_ref": op.ref is not None, "reference": reference,
        "supported": sorted(supported), "dtypes": kept, "excluded": excluded, "samples": samples,
        "tolerances": dict((k, list(v)) for k, v in TOLERANCES.items()),
    }


# -- Tensor members ------------------------------------------------------------------------------

def _shape_tensor(torch, shape):
    n = 1
    for d in shape:
        n *= d
    return torch.arange(1, n + 1, dtype=torch.float32).reshape(shape)


def tensor_facts(torch, name, kind, formula=""):
    """Per shape: the member's value as source (or the exception it raises), and the formula check."""
    rows = []
    for shape in SHAPES:
        x = _shape_tensor(torch, shape)
        row = {"shape": list(shape), "literal": None, "raises": None, "formula_ok": None}
        try:
            value = getattr(x, name)
            if kind not in ("property", "attribute"):
                value = value()
        except Exception as exc:
            row["raises"] = _exc_name(exc)
            row["error"] = _error(exc)
            rows.append(row)
            continue
        row["literal"] = _try_literal(value, torch)
        if formula:
            try:
                want = eval(formula, {"torch": torch, "math": math, "shape": tuple(shape), "x": x})
                row["formula_ok"] = type(want) is type(value) and bool(want == value)
            except Exception as exc:
                row["formula_ok"] = False
                row["error"] = _error(exc)
        rows.append(row)
    return {"shapes": rows}


# -- plain calls ----------------------------------------------------------------------------------

_TENSORS = ("torch.tensor([1.5, -2.0, 3.0], device=DEVICE)", "torch.tensor([0.0], device=DEVICE)",
            "torch.ones(2, 3, device=DEVICE)", "torch.tensor(7, device=DEVICE)",
            "torch.zeros(0, device=DEVICE)")
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
    (r"\bbool(ean)?\b", "bool"), (r"\bint(eger)?s?\b", "int"), (r"\bfloat\b|\bnumber\b", "float"),
    (r"\bstr(ing)?\b", "str"), (r"\bNone\b|\boptional\b", "none"), (r"\bdtype\b", "dtype"),
    (r"\bdevice\b", "device"), (r"\bTensor\b", "tensor"), (r"\bSize\b|\bshape\b", "size"),
    (r"\blist\b|\btuple\b|\bsequence\b|\bSequence\b", "sequence"),
)
ANY_POOLS = ("int", "none", "device", "bool", "str", "tensor", "dtype", "sequence")


def _doc_types(doc):
    """``{param: type text}`` from an ``Args:`` section (``name (type): text`` lines)."""
    out = {}
    if not isinstance(doc, str):
        return out
    sections = re.split(r"^\s*(?:Args|Arguments|Parameters|Keyword args|Keyword arguments)\s*:\s*$", doc, flags=re.M)
    doc = "\n".join(sections[1:])
    for m in re.finditer(r"^\s*\*{0,2}([A-Za-z_][A-Za-z0-9_\\]*)\s*\(([^)]*)\)\s*:?", doc, re.M):
        name = m.group(1).replace("\\", "")
        out.setdefault(name, m.group(2))
    return out


def _pools_for(text):
    found = []
    for pattern, pool in _TYPE_WORDS:
        if text and re.search(pattern, text, re.I) and pool not in found:
            found.append(pool)
    return found


def _param_pools(param, annotation_text, doc_text):
    pools = []
    if isinstance(param.get("default_obj"), bool):
        pools.append("bool")
    pools += [p for p in _pools_for(annotation_text) if p not in pools]
    pools += [p for p in _pools_for(doc_text) if p not in pools]
    if not pools or annotation_text in ("Any", "typing.Any", "object"):
        pools += [p for p in ANY_POOLS if p not in pools]
    values = []
    if param["has_default"] and param["default"] is not None and param["default"] not in values:
        values.append(param["default"])
    for pool in pools:
        for v in POOLS[pool]:
            if v not in values:
                values.append(v)
    return values


def _signature_params(obj, resolution):
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
    out = []
    for p in sig.parameters.values():
        if p.name in ("self", "cls") and not out:
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            out.append({"name": p.name, "kind": "var", "has_default": True, "default": None,
                        "annotation": ""})
            continue
        has_default = p.default is not p.empty
        default_src = _try_literal(p.default, _torch()) if has_default else None
        ann = p.annotation
        ann_text = "" if ann is p.empty else (ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann)))
        kind = {p.KEYWORD_ONLY: "keyword", p.POSITIONAL_ONLY: "posonly"}.get(p.kind, "positional")
        out.append({"name": p.name, "kind": kind,
                    "has_default": has_default, "default": default_src,
                    "default_obj": p.default if has_default else None, "annotation": str(ann_text)})
    return out


def _strip_sig(text):
    """``(type1, type2) -> dtype`` -> ``type1, type2`` (annotations dropped)."""
    inner = text.strip()
    if "->" in inner:
        inner = inner[:inner.rindex("->")].strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    parts = []
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


def _args_src(params, values):
    """Call arguments as source; ``None`` omits a parameter (later ones then go by keyword)."""
    pos, kw = [], []
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


def _api_specs(resolution, device_type):
    """Registry specs of the states the API touches that this torch has (any value type)."""
    specs = state_mod.registry(device_type)
    return [(s["name"], specs[s["name"]]) for s in state_facts(resolution, device_type)
            if s["available"] and s["name"] in specs]


def _call_once(fn, args_src, ns, torch, specs, start):
    """One call from the states in ``start``; the states are put back afterwards."""
    undo = _push_all(specs, start)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval("fn(%s)" % args_src, dict(ns, fn=fn))
        after = dict((name, _try_literal(spec._getter(), torch)) for name, spec in specs)
    except Exception as exc:
        return {"args": args_src, "raises": _exc_name(exc), "error": _error(exc)}
    finally:
        _undo_all(undo)
    return {"args": args_src, "literal": _try_literal(value, torch), "type": type(value).__name__,
            "tensor": isinstance(value, torch.Tensor), "after": after}


def _outcome(fn, args_src, ns, torch, specs, device_type="cpu"):
    """The call from every start value of the API's states: what does not depend on the start.

    ``literal`` is None when the result differs between starts; ``states`` holds
    the states whose value after the call is the same from every start.
    """
    starts = list(itertools.product(*[spec.values(device_type) for _, spec in specs]))[:8] or [()]
    runs = [_call_once(fn, args_src, ns, torch, specs, start) for start in starts]
    raised = [r for r in runs if "raises" in r]
    if raised:
        return raised[0] if len(raised) == len(runs) else {
            "args": args_src, "raises": None, "error": "raises from some start values only"}
    first = runs[0]
    if any(r["literal"] != first["literal"] for r in runs):
        first = dict(first, literal=None)
    states = []
    for name, _ in specs:
        values = set(r["after"][name] for r in runs)
        if len(values) == 1 and None not in values:
            states.append([name, values.pop()])
    out = dict(first, states=states)
    out.pop("after", None)
    return out


def _pairs(params, pools, base):
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
    flags = [i for i, p in enumerate(params) if isinstance(p.get("default_obj"), bool) and p["has_default"]]
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


def _pick(outcomes, key, limit, per_key):
    """Up to ``limit`` outcomes, round-robin over what they vary (``per_key`` each at most)."""
    groups = {}
    for o in outcomes:
        groups.setdefault(o[key], []).append(o)
    for name, group in groups.items():  # results not seen before in the group come first
        seen = set()
        fresh, repeats = [], []
        for o in group:
            (repeats if o.get("literal", o.get("raises")) in seen else fresh).append(o)
            seen.add(o.get("literal", o.get("raises")))
        groups[name] = fresh + repeats
    out = []
    for rank in range(per_key):
        for group in groups.values():
            if rank < len(group) and len(out) < limit:
                out.append(group[rank])
    order = dict((id(o), n) for n, o in enumerate(outcomes))
    return sorted(out, key=lambda o: order[id(o)])


def call_facts(torch, obj, resolution, device_type):
    """Valid calls (values measured on the CPU) and invalid ones (the exception measured)."""
    params = _signature_params(obj, resolution)
    if params is None:
        return {"problem": "no signature could be read for %s" % resolution["canonical"], "valid": [],
                "invalid": []}
    params = [p for p in params if p["kind"] != "var"]
    doc = _doc_types(getattr(obj, "__doc__", None))
    specs = _api_specs(resolution, device_type)
    ns = {"torch": torch, "DEVICE": torch.device("cpu")}
    pools = [_param_pools(p, p["annotation"], doc.get(p["name"], "")) for p in params]
    required = [i for i, p in enumerate(params) if not p["has_default"]]
    base = None
    tried = 0
    for combo in itertools.product(*[pools[i] for i in required]):
        if tried >= MAX_BASE_TRIES:
            break
        tried += 1
        values = [None] * len(params)
        for k, i in enumerate(required):
            values[i] = combo[k]
        got = _outcome(obj, _args_src(params, values), ns, torch, specs, device_type)
        if got.get("raises") is None and "raises" not in got and got.get("literal") is not None:
            base = values
            break
    if base is None:
        return {"problem": "no call of %s with candidate arguments succeeded with a result a test can "
                "hold (%d tried)" % (resolution["canonical"], tried), "valid": [], "invalid": [],
                "params": [p["name"] for p in params]}
    valid, invalid, seen = [], [], set()
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
    return {"problem": "", "valid": _pick(valid, "varies", MAX_VALID_CALLS, 3),
            "invalid": _pick(invalid, "varies", MAX_INVALID_CALLS, 1),
            "params": [p["name"] for p in params], "states": [n for n, _ in specs]}


# -- storages and device runtimes ------------------------------------------------------------

_STORAGE_VALUES = {"bool": "[True, False, True]", "complex": "[complex(1.0, 2.0), complex(0.0, -1.0)]",
                   "float": "[1.0, 2.5, -3.0]", "int": "[1, 2, 3]"}


def storage_facts(torch, obj):
    untyped = isinstance(obj, type) and issubclass(obj, torch.UntypedStorage)
    out = {"untyped": untyped, "problem": ""}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if untyped:
                s = obj(4, device="cpu")
                s.fill_(7)
                out.update(size=s.size(), values=s.tolist(), nbytes=s.nbytes())
                return out
            probe = obj(0)
            dtype = probe.dtype
            kind = ("bool" if dtype == torch.bool else "complex" if dtype.is_complex
                    else "float" if dtype.is_floating_point else "int")
            values_src = _STORAGE_VALUES[kind]
            s = obj(eval(values_src))
            moved = s.to(device="cpu")
            out.update(dtype=_dtype_src(torch, dtype), values=values_src, tolist=literal(s.tolist(), torch),
                       element_size=s.element_size(), size=s.size(), moved_ok=moved.tolist() == s.tolist())
        except Exception as exc:
            out["problem"] = "using %s on the CPU failed: %s" % (getattr(obj, "__name__", obj), _error(exc))
    return out


#: zero-argument methods of streams and events, called in this order
_RUNTIME_METHODS = ("record", "synchronize", "query")


def runtime_facts(torch, obj, resolution, device_type):
    out = {"callable": callable(obj), "is_class": isinstance(obj, type), "problem": "",
           "module": resolution.get("module", ""), "leaf": resolution["path"].rsplit(".", 1)[-1]}
    if isinstance(obj, type):
        inst = None
        for how, make in (("device", lambda: obj(device=device_type)), ("plain", lambda: obj())):
            try:
                inst = make()
                out["construct"] = how
                break
            except Exception as exc:
                out["problem"] = "constructing %s failed: %s" % (obj.__name__, _error(exc))
        if inst is None:
            return out
        out["problem"] = ""
        methods = {}
        for name in _RUNTIME_METHODS:
            if not callable(getattr(inst, name, None)):
                continue
            try:
                value = getattr(inst, name)()
                methods[name] = {"ok": True, "literal": _try_literal(value, torch)}
            except Exception as exc:
                methods[name] = {"ok": False, "error": _error(exc)}
        out["methods"] = methods
        dev = getattr(inst, "device", None)
        out["device"] = str(dev) if dev is not None else None
        return out
    try:
        value = obj()
        out["zero_arg"] = {"ok": True, "literal": _try_literal(value, torch), "type": type(value).__name__}
    except Exception as exc:
        out["zero_arg"] = {"ok": False, "error": _error(exc), "raises": _exc_name(exc)}
    return out


# -- the job ---------------------------------------------------------------------------------

def _guard(what, fn, *args):
    """``fn(*args)``, or a record of why it failed (the traceback goes to the job's log)."""
    try:
        return fn(*args)
    except Exception as exc:
        traceback.print_exc()
        return {"problem": "measuring the %s facts failed: %s" % (what, _error(exc)), "found": False}


def _in_scratch_folder(fn, *args):
    """Run ``fn`` in an empty temporary folder: a call given a string path writes nothing elsewhere."""
    here = os.getcwd()
    folder = tempfile.mkdtemp(prefix="torchparity-facts-")
    os.chdir(folder)
    try:
        return fn(*args)
    finally:
        os.chdir(here)
        shutil.rmtree(folder, ignore_errors=True)


def facts_for(ctx, res, wants, dtypes=None, formula=""):
    """The facts ``wants`` names for one resolved API (a resolution record)."""
    torch = ctx.torch
    hit = resolve_mod.walk(res["path"])
    obj = hit.obj
    owner = hit.parent if isinstance(hit.parent, type) else None
    device_type = ctx.device_type
    out = {"device_type": device_type, "torch_version": str(torch.__version__),
           "python_version": "%d.%d" % sys.version_info[:2]}
    if "states" in wants:
        out["states"] = _guard("state", state_facts, res, device_type)
    if "context" in wants:
        out["context"] = _guard("context-manager", context_facts, torch, res, obj, owner, device_type)
    if "opinfo" in wants:
        out["opinfo"] = _guard("OpInfo", opinfo_facts, torch, obj, device_type, dtypes)
    if "tensor" in wants:
        out["tensor"] = _guard("Tensor", tensor_facts, torch, res["path"].rsplit(".", 1)[-1], res["kind"], formula)
    if "calls" in wants and not (out.get("opinfo") or {}).get("found"):
        out["calls"] = _guard("call", _in_scratch_folder, call_facts, torch, obj, res, device_type)
    if "storage" in wants:
        out["storage"] = _guard("storage", storage_facts, torch, obj)
    if "runtime" in wants:
        out["runtime"] = _guard("runtime", runtime_facts, torch, obj, res, device_type)
    if isinstance(out.get("states"), dict):  # a failed state lookup reads as no states
        out["states"] = []
    return out


def op_scaffold_facts(ctx, args):
    """Agent job: facts for ``args["resolution"]`` (one API) or each of ``args["items"]``.

    An item is ``{"resolution", "wants", "dtypes", "formula"}``; a batch pays
    the op_db import once.
    """
    if "items" in args:
        items = [facts_for(ctx, i["resolution"], list(i.get("wants", [])), i.get("dtypes"),
                           i.get("formula", "")) for i in args["items"]]
        out = {"items": items, "exit_code": 0}
    else:
        out = facts_for(ctx, args["resolution"], list(args.get("wants", [])), args.get("dtypes"),
                        args.get("formula", ""))
        out["exit_code"] = 0
    sys.stdout.flush()
    return out
