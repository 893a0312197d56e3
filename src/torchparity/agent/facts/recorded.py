"""Calls of ATen operators and private torch builtins recorded from public code: the ``recorded`` family.

``torch.ops.aten.squeeze_.dims``, ``torch._C._nn.gelu`` or ``torch._lazy_clone``
has no OpInfo entry of its own, but running the OpInfo entries' samples
(forward and backward) calls it. Once per agent process every entry's first
samples are run under a ``TorchFunctionMode`` (which sees the torch-level
builtins: ``torch._pad_packed_sequence``, ``torch._C._nn.gelu``) and a
``TorchDispatchMode`` (which sees the ATen overloads below autograd), and the
arguments of the first small calls of each are kept (cloned before the call, so
an in-place operator's input is the one it was given).

For one API, measured on the CPU: a recorded call whose arguments the test can
write out (float inputs rounded to four decimals), that gives the same results
twice from fresh arguments and under another seed (so its values can be written
into the test), whose results hold at least one tensor or number, and what it
returned and left in its tensor arguments (an in-place operator's effect). The
test makes that call on the device and compares with those values.

The recording is ``recorded_calls.py``'s; this module picks an API's calls among those recorded, checks
them and describes the one chosen.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Tuple, Union, cast

from ..protocol import Json, TorchModule
from .literal import error_text
from .recipes.recorded import TAKES_CALLS_OF
from .recorded_calls import (
    _CALLS,
    _DONE,
    MAX_ARGS,
    MAX_LARGE_ARGS,
    Key,
    _cloned,
    _numel,
    _record,
)
from .schema_calls import ArgLiteral, RecordedFacts, SparseLiteral

#: the most tensor elements a recorded call's results may have (its arguments: ``recorded_calls.MAX_ARGS``)
MAX_RESULTS = 400
#: how close the device's floating results must be to the CPU's
RTOL, ATOL = 1e-3, 1e-4
#: significant digits of the floating results written into the test
DIGITS = 8
#: checked calls the most telling one is chosen from
CANDIDATES = 8


def _bases(name: str) -> List[str]:
    """The operators whose calls an aliased variant takes (``squeeze_`` -> ``squeeze``, ``slice_copy`` ->
    ``slice``, ``_unsafe_index`` -> ``index``, ``_reshape_alias_copy`` -> ``_reshape_alias`` -> ``view``)."""
    out: List[str] = []
    todo = [name]
    while todo:
        n = todo.pop(0)
        if n in out:
            continue
        out.append(n)
        if n.endswith("_copy"):
            todo.append(n[: -len("_copy")])
        if n.endswith("_functional"):
            todo.append(n[: -len("_functional")])
        if n == name and not n.endswith("_"):
            todo.append(
                n + "_"
            )  # the in-place variant's calls (their arguments as they were before it)
        if n.endswith("_") and not n.endswith("__"):
            todo.append(n[:-1])
        if n.startswith("_unsafe_"):
            todo.append(n[len("_unsafe_") :])
        if n.startswith("_") and not n.startswith("__"):
            todo.append(n[1:])
        todo += list(TAKES_CALLS_OF.get(n, ()))
    return out[1:]


def _overload_rank(ov: str, wanted: str) -> int:
    """Calls of the overload asked for first, then those of its ``hacked_twin``'s base, then the rest."""
    base = wanted.replace("_hacked_twin", "").replace("hacked_twin", "default")
    return 0 if ov == wanted else 1 if ov == base else 2


def _target(torch: TorchModule, obj: Any, res: Json) -> Tuple[List[Key], bool]:
    """(keys of the recorded calls to use, best first; whether they are the API's own calls)."""
    if isinstance(obj, torch._ops.OpOverload):
        s = obj._schema
        name, wanted = s.name, s.overload_name or "default"
    elif isinstance(obj, torch._ops.OpOverloadPacket):
        name, wanted = obj._qualified_op_name, ""
    elif callable(obj):
        leaf = res["path"].rsplit(".", 1)[-1]
        name, wanted = "aten::" + getattr(obj, "__name__", leaf), ""
        if ("function", id(obj)) in _CALLS:
            return [("function", id(obj))] + _aten_keys(name, wanted), True
    else:
        return [], False
    own = _aten_keys(name, wanted)
    if own:
        return own, True
    ns, op = name.split("::", 1) if "::" in name else ("aten", name)
    keys: List[Key] = []
    for base in _bases(op):
        keys += _aten_keys("%s::%s" % (ns, base), wanted, exact=False)
    return keys, False


def _aten_keys(name: str, wanted: str, exact: bool = True) -> List[Key]:
    keys = [
        k
        for k in _CALLS
        if k[0] == "aten" and k[1] == name and (not exact or not wanted or k[2] == wanted)
    ]
    keys = sorted(keys, key=lambda k: _overload_rank(k[2], wanted or k[2]))
    # a composite operator never reaches the dispatcher's Python mode: the torch-level builtin of its name does
    return keys + [
        ("function", id(f))
        for f in _builtins(name.split("::", 1)[-1])
        if ("function", id(f)) in _CALLS
    ]


def _builtins(leaf: str) -> List[Any]:
    import torch

    C: Any = torch._C  # (its private submodules are not in torch's stubs)
    out: List[Any] = []
    for module in (
        C._VariableFunctions,
        C._nn,
        C._linalg,
        C._special,
        C._fft,
    ):
        f = getattr(module, leaf, None)
        if f is not None and f not in out:
            out.append(f)
    return out


def _build(torch: TorchModule, lit: ArgLiteral) -> Any:
    """The value a literal description stands for (as the test builds it)."""
    if "sparse" in lit:
        sp = lit["sparse"]
        return torch.sparse_coo_tensor(
            _build(torch, sp["indices"]),
            _build(torch, sp["values"]),
            sp["shape"],
            is_coalesced=True if sp["coalesced"] else None,
        )
    if "tensor" in lit:
        return torch.tensor(lit["tensor"], dtype=getattr(torch, lit["dtype"])).reshape(lit["shape"])
    if "value" in lit:
        return lit["value"]
    if "list" in lit:
        items = [_build(torch, v) for v in lit["list"]]
        return tuple(items) if lit["tuple"] else items
    if "torch" in lit:
        return getattr(torch, lit["torch"])
    return torch.device(lit["device"])


def _literal(torch: TorchModule, value: Any, digits: int = 0) -> ArgLiteral:
    """A JSON-able description of a value (floats of tensors rounded), or raise ValueError."""
    if (
        isinstance(value, torch.Tensor)
        and value.layout == torch.sparse_coo
        and not value.is_complex()
    ):
        # a COO tensor: its coalesced indices and values (the test builds it with is_coalesced as it was)
        coalesced = value.detach().coalesce()
        return {
            "sparse": {
                "indices": _literal(torch, coalesced.indices(), digits),
                "values": _literal(torch, coalesced.values(), digits),
                "shape": list(value.shape),
                "coalesced": bool(value.is_coalesced()),
            }
        }
    if isinstance(value, torch.Tensor) and value.is_nested:
        # a nested tensor: its components (the test compares each)
        return {"nested": [_literal(torch, t, digits) for t in value.detach().unbind()]}
    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided or value.is_complex() or value.is_quantized:
            raise ValueError("a %s tensor" % value.layout)
        if value._is_zerotensor():  # an efficient zero tensor has no storage to read
            value = value.detach() + 0
        values = value.detach().cpu().reshape(-1).tolist()
        if value.is_floating_point():
            if digits:
                values = [float("%.*g" % (digits, v)) for v in values]
            else:
                values = [round(float(v), 4) for v in values]
        return {
            "tensor": values,
            "shape": list(value.shape),
            "dtype": str(value.dtype).split(".")[-1],
            "stride": list(value.stride()),
        }
    if value is None or isinstance(value, (bool, int, str)):
        return {"value": value}
    if isinstance(value, float):
        return {"value": float("%.*g" % (digits or 17, value))}
    if isinstance(value, (list, tuple)):
        return {
            "list": [_literal(torch, v, digits) for v in value],
            "tuple": isinstance(value, tuple),
        }
    if isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
        return {"torch": str(value).split(".")[-1]}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        raise ValueError("a symbolic value")
    raise ValueError("a value of type %s" % type(value).__name__)


def _strip(lit: ArgLiteral) -> ArgLiteral:
    """The literal without strides (arguments are written contiguous)."""
    if "sparse" in lit:
        sp = lit["sparse"]
        return {
            "sparse": cast(
                SparseLiteral,
                dict(sp, indices=_strip(sp["indices"]), values=_strip(sp["values"])),
            )
        }
    if "tensor" in lit:
        return cast(ArgLiteral, dict((k, v) for k, v in lit.items() if k != "stride"))
    if "list" in lit:
        return {"list": [_strip(v) for v in lit["list"]], "tuple": lit["tuple"]}
    return lit


def _run(
    torch: TorchModule,
    obj: Any,
    lit_args: List[ArgLiteral],
    lit_kwargs: Dict[str, ArgLiteral],
    seed: int,
) -> Tuple[Any, List[Any], Dict[str, Any], List[int], List[str]]:
    args = [_build(torch, v) for v in lit_args]
    kwargs = dict((k, _build(torch, v)) for k, v in lit_kwargs.items())
    before = (
        [_cloned(torch, a) for a in args],
        dict((k, _cloned(torch, v)) for k, v in kwargs.items()),
    )
    torch.manual_seed(seed)
    out = obj(*args, **kwargs)
    changed = [i for i, (b, a) in enumerate(zip(before[0], args)) if _differs(torch, b, a)]
    kwchanged = [k for k in kwargs if _differs(torch, before[1][k], kwargs[k])]
    return out, args, kwargs, changed, kwchanged


def _differs(torch: TorchModule, before: Any, after: Any) -> bool:
    """Whether a tensor argument (or a list of them) was changed by the call."""
    if isinstance(after, (list, tuple)) and isinstance(before, (list, tuple)):
        return any(_differs(torch, b, a) for b, a in zip(before, after))
    if not isinstance(after, torch.Tensor):
        return False
    if before.shape != after.shape or before.dtype != after.dtype or before.layout != after.layout:
        return True
    if after.layout == torch.sparse_coo:
        before, after = before.coalesce(), after.coalesce()
        return before.indices().shape != after.indices().shape or not (
            torch.equal(before.indices(), after.indices())
            and torch.equal(before.values(), after.values())
        )
    return not torch.equal(before, after)


#: arguments documented to stay on the CPU whatever the device (a packed sequence's ``batch_sizes``)
CPU_ARGUMENTS = ("batch_sizes", "lengths")


def _cpu_arguments(torch: TorchModule, func: Any, count: int) -> List[int]:
    """Positions of the call's arguments whose schema names them as CPU-only."""
    schema = getattr(func, "_schema", None)
    schemas = [schema] if schema is not None else []
    if not schemas:
        try:
            schemas = list(
                torch._C._jit_get_schemas_for_operator("aten::" + getattr(func, "__name__", ""))
            )
        except Exception:
            schemas = []
    out: List[int] = []
    for s in schemas[:1]:
        names = [a.name for a in s.arguments if not a.kwarg_only]
        out = [i for i, n in enumerate(names[:count]) if n in CPU_ARGUMENTS]
    return out


def _has_value(torch: TorchModule, lit: ArgLiteral) -> bool:
    if "tensor" in lit or "sparse" in lit or "nested" in lit:
        return True
    if "list" in lit:
        return any(_has_value(torch, v) for v in lit["list"])
    return "value" in lit and lit["value"] is not None


def _check(
    torch: TorchModule, obj: Any, func: Any, args: Any, kwargs: Dict[str, Any]
) -> Union[RecordedFacts, str]:
    """The facts of one recorded call, or a problem string."""
    # its results: at most MAX_RESULTS elements, or as many as a large call's arguments had before it
    size = _numel(torch, (args, kwargs))
    most = MAX_RESULTS if size <= MAX_ARGS else min(size, MAX_LARGE_ARGS)
    try:
        lit_args = [_strip(_literal(torch, a)) for a in args]
        lit_kwargs = dict((k, _strip(_literal(torch, v))) for k, v in kwargs.items())
    except ValueError as exc:
        return "a recorded call takes %s" % exc
    runs: List[Tuple[ArgLiteral, Dict[str, ArgLiteral], Dict[str, ArgLiteral]]] = []
    try:
        with torch.random.fork_rng():
            for seed in (0, 0, 1):
                out, a, kw, changed_at, kwchanged_at = _run(torch, obj, lit_args, lit_kwargs, seed)
                if _numel(torch, out) > most:
                    return "its results have more than %d elements" % most
                runs.append(
                    (
                        _literal(torch, out, DIGITS),
                        dict((str(i), _literal(torch, a[i], DIGITS)) for i in changed_at),
                        dict((k, _literal(torch, kw[k], DIGITS)) for k in kwchanged_at),
                    )
                )
    except ValueError as exc:
        return "it returns %s" % exc
    except Exception as exc:
        return "calling it with the recorded arguments failed: %s" % error_text(exc)
    if runs[0] != runs[1]:
        return (
            "two calls with the same arguments and seed give different results (values undefined)"
        )
    if runs[0] != runs[2]:
        return "its results depend on the random seed (the device draws other numbers)"
    # what it returned, and the tensor arguments it changed (an in-place or out= operator)
    result, changed, kwchanged = runs[0]
    if not _has_value(torch, result) and not changed and not kwchanged:
        return "it returns nothing and changes none of its arguments (nothing to compare)"
    name = getattr(func, "__name__", "") or str(func)
    schema = getattr(func, "_schema", None)
    if schema is not None:
        name = "%s.%s" % (schema.name, schema.overload_name or "default")
    return {
        "found": True,
        "args": lit_args,
        "kwargs": lit_kwargs,
        "result": result,
        "cpu_args": _cpu_arguments(torch, func, len(lit_args)),
        "changed": changed,
        "kwchanged": kwchanged,
        "recorded": name,
        "tolerance": [RTOL, ATOL],
    }


def _tensors(lit: ArgLiteral) -> List[ArgLiteral]:
    if "tensor" in lit:
        return [lit]
    if "sparse" in lit:
        return [lit["sparse"]["values"]]
    if "nested" in lit:
        return [t for v in lit["nested"] for t in _tensors(v)]
    return [t for v in lit.get("list", []) for t in _tensors(v)]


def _score(torch: TorchModule, facts: RecordedFacts) -> Tuple[bool, int, bool]:
    """How much a call's results tell: results or changes unlike every input, and their size."""
    inputs = [(t["shape"], t["tensor"]) for a in facts["args"] for t in _tensors(a)]
    outs = _tensors(facts["result"]) + [t for v in facts["changed"].values() for t in _tensors(v)]
    outs += [t for v in facts["kwchanged"].values() for t in _tensors(v)]
    new = [t for t in outs if (t["shape"], t["tensor"]) not in inputs]
    size = sum(len(t["tensor"]) for t in new)
    return (bool(new), min(size, 16), bool(facts["result"].get("value") not in (None, True, False)))


def recorded_facts(torch: TorchModule, obj: Any, res: Json) -> RecordedFacts:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _record(torch)
        if _DONE[0]:
            return {"found": False, "problem": _DONE[0]}
        keys, own = _target(torch, obj, res)
        keys = [k for k in keys if _CALLS.get(k)]
        if not keys:
            return {"found": False, "problem": "no OpInfo sample's code calls %s" % res["path"]}
        problems: List[str] = []
        found: List[RecordedFacts] = []
        for key in keys:
            for func, args, kwargs in _CALLS[key]:
                if len(found) >= CANDIDATES:
                    break
                try:
                    got = _check(torch, obj, func, args, kwargs)
                except Exception as exc:
                    got = "checking a recorded call failed: %s" % error_text(exc)
                if isinstance(got, dict):
                    got["own"] = own
                    found.append(got)
                else:
                    problems.append(got)
        if (
            found
        ):  # the most telling call: one whose result is not an input as it was, with a few values
            return max(found, key=lambda f: _score(torch, f))
        return {
            "found": False,
            "problem": "no recorded call of %s could be used: %s"
            % (res["path"], "; ".join(dict.fromkeys(problems).keys())[:600]),
        }
