"""ATen operator overloads and packets (``torch.ops.aten.X.ov``, ``torch.ops.aten.X``): facts for the ``overload`` family.

Two kinds of facts, measured on the CPU:

* ``opinfo``: the OpInfo entry of the operator's name ``X`` (the entry whose
  ``name`` or ``aten_name`` is ``X``), its sample inputs filtered by what the
  overload's schema accepts (``torch._C._check_schema_allow_fake_script_object``,
  so a ``Tensor q`` overload never gets a float ``q``, a bitwise overload gets
  integer and bool samples), bound to the schema's positional order by the
  OpInfo function's parameter names (``where``'s OpInfo takes ``self`` first,
  ``aten.where.self`` takes ``condition`` first). Per dtype the overload's
  result is compared here with an independent reference: OpInfo's NumPy
  ``ref``, or the OpInfo's own function in float64 for lower-precision floats.
* ``norm``: a batch-norm operator (its schema names ``input``/``grad_out`` and
  the per-channel ``running_mean``/``running_var``/``save_mean``/``invstd``):
  which of training and eval its kernel runs here, so the test can compare it
  with the normalisation worked out by hand (mean and variance of each channel)
  and the running statistics' update.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ..protocol import Json, TorchModule
from .literal import error_text
from .opinfo import (
    LOW_PRECISION,
    TOLERANCES,
    _close,
    _device_dtypes,
    _op_db,
    _same_metadata,
    _to_meta,
    _undefined_values,
    _widen,
    wanted_dtypes,
    widened_dtype,
)
from .recipes.layout import BACKWARD_INFIX, BACKWARD_SUFFIX, OUT, SEEDED_WRAPPER, TORCH
from .schema_calls import NormFacts, OverloadFacts, OverloadOpinfo
from .schema_common import Excluded

#: the seed the test draws each dtype's samples with
SEED = 0
#: draws of the samples each dtype must hold on
DRAWS = 3
#: samples a test of recorded arguments checks at most per dtype (recording each sample's calls costs
#: a run of the OpInfo's function: max_pool2d_with_indices_backward has 1440 samples)
CAPTURED_LIMIT = 40
#: argument names of the batch-norm kernels the ``norm`` facts know how to fill
NORM_ARGS = {
    "input",
    "grad_out",
    "weight",
    "bias",
    "running_mean",
    "running_var",
    "save_mean",
    "save_invstd",
    "mean",
    "invstd",
    "training",
    "train",
    "momentum",
    "eps",
    "cudnn_enabled",
    "output_mask",
}


def _kind(torch: TorchModule, obj: Any) -> str:
    if isinstance(obj, torch._ops.OpOverload):
        return "overload"
    if isinstance(obj, torch._ops.OpOverloadPacket):
        return "packet"
    return "function"


def _schemas(
    torch: TorchModule, obj: Any, kind: str, res: Json
) -> Tuple[str, Optional[str], List[Any]]:
    """(qualified name, overload name or None, schemas) of the API."""
    if kind == "overload":
        s = obj._schema
        return s.name, s.overload_name, [s]
    if kind == "packet":
        qual = obj._qualified_op_name
        return qual, None, [getattr(obj, o)._schema for o in obj.overloads()]
    leaf = res["path"].rsplit(".", 1)[-1]
    if not res["path"].startswith(TORCH + ".") or res["path"].count(".") != 1:
        return "", None, []
    qual = "aten::" + leaf
    try:
        return qual, None, list(torch._C._jit_get_schemas_for_operator(qual))
    except Exception:
        return qual, None, []


def _fits(
    torch: TorchModule, schemas: Sequence[Any], args: Sequence[Any], kwargs: Dict[str, Any]
) -> bool:
    for s in schemas:
        try:
            torch._C._check_schema_allow_fake_script_object(s, *args, **kwargs)
            return True
        except Exception:
            continue
    return False


def _order(op: Any, schemas: Sequence[Any]) -> Optional[List[int]]:
    """Positions of the OpInfo call's positional arguments in the schema's order (None: as they are)."""
    try:
        params = list(inspect.signature(op.op).parameters.values())
    except (TypeError, ValueError):
        return None
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    schema_names = [a.name for a in schemas[0].arguments if not a.kwarg_only]
    if not names or any(n not in schema_names for n in names):
        return None
    order = [names.index(n) for n in schema_names if n in names]
    return None if order == list(range(len(order))) else order


def _find(name: str, obj: Any) -> List[Any]:
    entries = [
        op
        for op in _op_db()
        if (op.name == name or getattr(op, "aten_name", None) == name) and op.op is not obj
    ]
    entries.sort(key=lambda op: (op.name != name, op.variant_test_name != "", op.name))
    return entries


def _arranged(sample: Any, order: Optional[List[int]]) -> Tuple[Any, ...]:
    args = (sample.input,) + tuple(sample.args)
    if order is not None:
        args = tuple(args[i] for i in order if i < len(args))
    return args


def _needs_out(schemas: Sequence[Any]) -> bool:
    """Whether the (single) overload's schema requires an ``out=`` tensor."""
    if len(schemas) != 1:
        return False
    return any(
        a.name == OUT and a.kwarg_only and a.default_value is None for a in schemas[0].arguments
    )


def _seeded(op: Any) -> bool:
    """Whether the OpInfo's function draws random values under its own seed (``wrapper_set_seed``)."""
    code = getattr(op.op, "__code__", None)
    return code is not None and SEEDED_WRAPPER in code.co_names


def _backward_kernel(name: str) -> bool:
    """An ATen backward kernel by its name (``max_pool2d_with_indices_backward``, ``_backward_data``)."""
    return name.endswith(BACKWARD_SUFFIX) or BACKWARD_INFIX in name


def _aten_calls(
    torch: TorchModule, op: Any, sample: Any, qual: str, overload_name: Optional[str]
) -> List[Tuple[Any, Dict[str, Any]]]:
    """The (args, kwargs) of each call of the operator ``qual`` (``overload_name``: that overload
    only) that the OpInfo's function makes for the sample, recorded under a TorchDispatchMode."""
    from torch.utils._python_dispatch import TorchDispatchMode

    calls: List[Tuple[Any, Dict[str, Any]]] = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Optional[Dict[str, Any]] = None
        ) -> Any:
            kwargs = kwargs or {}
            schema = func._schema
            if schema.name == qual and (
                overload_name is None or schema.overload_name == overload_name
            ):
                calls.append((args, kwargs))
            return func(*args, **kwargs)

    with Record():
        op.op(sample.input, *sample.args, **sample.kwargs)
    return calls


def _copy(torch: TorchModule, sample: Any) -> Any:
    return sample.transform(lambda t: t.clone() if isinstance(t, torch.Tensor) else t)


def _check_dtype(
    torch: TorchModule,
    op: Any,
    obj: Any,
    schemas: Sequence[Any],
    order: Optional[List[int]],
    dtype: Any,
    reference: str,
    captured: Optional[Tuple[str, Optional[str]]] = None,
) -> Tuple[int, str]:
    """(samples checked, problem or "") for one dtype, only samples the schema accepts.

    ``captured`` ((qualified name, overload name)): each sample's arguments are those the OpInfo's
    function passes to the operator (recorded), not the sample's own; a sample whose function calls
    the operator other than once is skipped."""
    checked = 0
    dtype_name = str(dtype).split(".")[-1]
    out = _needs_out(schemas)
    for sample in op.sample_inputs("cpu", dtype):
        if captured and checked >= CAPTURED_LIMIT:
            break
        if captured:
            calls = _aten_calls(torch, op, sample, *captured)
            if len(calls) != 1:
                continue
            args, kwargs = tuple(calls[0][0]), dict(calls[0][1])
        else:
            args = _arranged(sample, order)
            kwargs = dict(sample.kwargs)
        if out:
            kwargs["out"] = torch.empty(0, dtype=dtype)
        if not _fits(torch, schemas, args, kwargs):
            continue
        try:
            if reference == "numpy":
                ref = sample.numpy()
                expected = op.ref(ref.input, *ref.args, **ref.kwargs)
            elif reference == "seeded":
                same = _copy(torch, sample)
                expected = op.op(same.input, *same.args, **same.kwargs)
            elif reference == "meta":
                meta = _to_meta(torch, sample)
                expected = op.op(meta.input, *meta.args, **meta.kwargs)
            else:
                wide = sample.transform(lambda t: _widen(torch, t))
                wkwargs = dict(wide.kwargs)
                if "dtype" in wkwargs:
                    wkwargs["dtype"] = widened_dtype(torch, wkwargs["dtype"])
                expected = op.op(wide.input, *wide.args, **wkwargs)
        except Exception as exc:
            return checked, "the %s reference fails: %s" % (reference, error_text(exc))
        try:
            if reference == "seeded":
                torch.manual_seed(42)  # the seed wrapper_set_seed draws the reference with
            actual = obj(*args, **kwargs)
        except Exception as exc:
            return checked, "a sample the schema accepts fails: %s" % error_text(exc)
        if out and actual is not kwargs["out"]:
            return checked, "the call does not return the out= tensor"
        try:
            if reference == "meta":
                _same_metadata(torch, actual, expected, kwargs)
            else:
                _close(torch, actual, expected, dtype_name)
        except Exception as exc:
            return checked, "differs from the %s reference on the CPU: %s" % (
                reference,
                error_text(exc),
            )
        checked += 1
    if not checked:
        return 0, "no sample input fits the schema"
    return checked, ""


def _check_draws(
    torch: TorchModule,
    op: Any,
    obj: Any,
    schemas: Sequence[Any],
    order: Optional[List[int]],
    dtype: Any,
    reference: str,
    captured: Optional[Tuple[str, Optional[str]]] = None,
) -> Tuple[int, str]:
    """``_check_dtype`` on several draws of the samples (the test's seed first): a dtype whose
    comparison holds on only some draws (float16 against float64 within 1e-3) is left out."""
    count, problem = 0, ""
    for seed in range(SEED, SEED + DRAWS):
        with warnings.catch_warnings(), torch.random.fork_rng():
            warnings.simplefilter("ignore")
            torch.manual_seed(seed)
            n, problem = _check_dtype(torch, op, obj, schemas, order, dtype, reference, captured)
        if problem:
            return n, problem + (
                "" if seed == SEED else " (on one of %d draws of the samples)" % DRAWS
            )
        count = count or n
    return count, problem


def _opinfo(
    torch: TorchModule,
    obj: Any,
    name: str,
    schemas: Sequence[Any],
    device_type: str,
    dtypes: Optional[Iterable[str]],
    overload_name: Optional[str] = None,
) -> OverloadOpinfo:
    entries = _find(name, obj)
    if not entries:
        return {"found": False, "problem": "no OpInfo entry is named %s" % name}
    tried: List[str] = []
    qual = "aten::" + name
    for op in entries:
        order = _order(op, schemas)
        supported = set(str(d).split(".")[-1] for d in _device_dtypes(op, device_type))
        if _undefined_values(
            op
        ):  # values undefined (empty, empty_like, ...): what the meta kernels give
            reference = "meta"
        elif _seeded(op):
            reference = "seeded"
        elif op.ref is not None:
            reference = "numpy"
        else:
            reference = "float64"
        # the sample's own arguments first; where none fits the schema, those the OpInfo's function
        # passes to the operator (F.max_unpool2d computes output_size from kernel_size and stride)
        # (not for a backward kernel, aten::X_backward: the recorded family writes out autograd's call)
        for captured in (None,) if _backward_kernel(name) else (None, (qual, overload_name)):
            kept: List[str] = []
            excluded: List[Excluded] = []
            samples: Dict[str, int] = {}
            for dname in wanted_dtypes(supported, dtypes):
                dtype = getattr(torch, dname, None)
                if not isinstance(dtype, torch.dtype) or dname not in supported:
                    continue  # the OpInfo does not list it
                if reference == "float64" and dname not in LOW_PRECISION:
                    excluded.append(
                        {
                            "dtype": dname,
                            "reason": "no independent reference on the CPU (no NumPy ref; "
                            "a float64 computation serves only lower-precision floats)",
                        }
                    )
                    continue
                try:
                    count, problem = _check_draws(
                        torch, op, obj, schemas, order, dtype, reference, captured
                    )
                except Exception as exc:
                    count, problem = 0, "checking failed: %s" % error_text(exc)
                if problem:
                    excluded.append({"dtype": dname, "reason": problem})
                else:
                    kept.append(dname)
                    samples[dname] = count
            if kept:
                return {
                    "found": True,
                    "name": op.name,
                    "variant_test_name": op.variant_test_name,
                    "order": order,
                    "out": _needs_out(schemas),
                    "captured": bool(captured),
                    "limit": CAPTURED_LIMIT if captured else 0,
                    "reference": reference,
                    "dtypes": kept,
                    "excluded": excluded,
                    "samples": samples,
                    "tolerances": dict((k, list(v)) for k, v in TOLERANCES.items()),
                }
            if not all(e["reason"].startswith("no sample input fits") for e in excluded):
                break  # samples fit and fail: recording their calls would not change that
        tried.append(
            "%s (%s)" % (op.name, "; ".join("%s: %s" % (e["dtype"], e["reason"]) for e in excluded))
        )
    return {"found": False, "problem": "no dtype of OpInfo %s could be checked" % ", ".join(tried)}


def _norm(torch: TorchModule, obj: Any, schemas: Sequence[Any]) -> NormFacts:
    """Which of training/eval the batch-norm kernel runs on the CPU here (by the schema's names)."""
    schema = schemas[0]
    names = [a.name for a in schema.arguments]
    if not ({"input", "grad_out"} & set(names)) or not set(names) <= NORM_ARGS:
        return {"found": False, "problem": "not a batch-norm schema"}
    modes: List[bool] = []
    last, updates = "", False
    flag = "training" if "training" in names else ("train" if "train" in names else "")
    # eval normalises with the running statistics: without them only training is tried (the kernel of
    # _native_batch_norm_legit.no_stats crashes the interpreter in eval); a kernel with no flag is
    # eval where it is given running statistics (_no_training), else training
    running = "running_mean" in names
    for training in (True, False) if flag and running else (True,) if flag else (not running,):
        args = _norm_args(torch, names, training, flag)
        try:
            obj(*[args[n] for n in names])
            modes.append(training)
            if training and running and "input" in names:
                updates = not torch.equal(args["running_mean"], torch.zeros(2))
        except Exception as exc:
            last = error_text(exc)
    if not modes:
        return {
            "found": False,
            "problem": "its kernel does not run on the CPU here: %s" % last[:200],
        }
    mutates = [
        a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write
    ]
    return {
        "found": True,
        "arguments": names,
        "flag": flag,
        "modes": modes,
        "returns": len(schema.returns),
        "updates_running": updates,
        "mutates": mutates,
    }


def _norm_args(torch: TorchModule, names: List[str], training: bool, flag: str) -> Dict[str, Any]:
    x = torch.arange(24, dtype=torch.float32).reshape(4, 2, 3) / 7
    values: Dict[str, Any] = {
        "input": x,
        "grad_out": torch.ones(4, 2, 3),
        "weight": torch.ones(2),
        "bias": torch.zeros(2),
        "running_mean": torch.zeros(2),
        "running_var": torch.ones(2),
        "save_mean": torch.zeros(2),
        "save_invstd": torch.ones(2),
        "mean": torch.zeros(2),
        "invstd": torch.ones(2),
        "momentum": 0.1,
        "eps": 1e-5,
        "cudnn_enabled": False,
        "output_mask": [True, True, True],
    }
    out = {n: values.get(n) for n in names}
    if flag:
        out[flag] = training
    return out


def overload_facts(
    torch: TorchModule,
    obj: Any,
    res: Json,
    device_type: str,
    dtypes: Optional[Iterable[str]] = None,
) -> OverloadFacts:
    kind = _kind(torch, obj)
    qual, overload_name, schemas = _schemas(torch, obj, kind, res)
    if not schemas:
        return {"found": False, "problem": "no ATen schema for %s" % res["path"]}
    name = qual.split("::", 1)[-1]
    out: OverloadFacts = {
        "found": True,
        "kind": kind,
        "qualified": qual,
        "overload": overload_name,
        "name": name,
        "schemas": [str(s) for s in schemas],
    }
    out["norm"] = (
        _norm(torch, obj, schemas) if "batch_norm" in name else {"found": False, "problem": ""}
    )
    if kind == "function":
        out["opinfo"] = {"found": False, "problem": "a torch function: the opinfo family's"}
    else:
        out["opinfo"] = _opinfo(torch, obj, name, schemas, device_type, dtypes, overload_name)
    return out
