"""An operator's OpInfo entry (found by the identity of the API object) and which dtypes it can test.

For each dtype the test's own comparison runs here on the CPU against an
independent reference (NumPy ``ref``, or a float64 computation for
lower-precision floats); dtypes whose reference disagrees are left out with
the reason. On another device the CPU is the reference.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, Iterable, Iterator, List, Optional, Set, Tuple, cast

from ..protocol import Json, TorchModule
from .literal import error_text
from .opinfo_wrappers import as_called, wrapped_call
from .recipes.dtypes import DEFAULT_DTYPES, FALLBACK_DTYPES, LOW_PRECISION, TOLERANCES, WIDE
from .schema import ErrorInputs, OpinfoFacts
from .schema_common import Excluded


def wanted_dtypes(supported: Set[str], dtypes: Optional[Iterable[str]] = None) -> List[str]:
    """The dtypes to try: those asked for, else DEFAULT_DTYPES, else (the OpInfo lists none of them)
    the FALLBACK_DTYPES it lists."""
    if dtypes:
        return list(dtypes)
    if any(d in supported for d in DEFAULT_DTYPES):
        return list(DEFAULT_DTYPES)
    return [d for d in FALLBACK_DTYPES if d in supported] or list(DEFAULT_DTYPES)


def _op_db() -> Any:
    from torch.testing._internal.common_methods_invocations import op_db

    return op_db


def _variants(op: Any) -> Iterator[Tuple[str, Any]]:
    yield "function", op.op
    yield "method", op.method_variant
    yield "inplace", op.inplace_variant
    for alias in getattr(op, "aliases", ()) or ():
        yield "function", getattr(alias, "op", None)
        yield "method", getattr(alias, "method_variant", None)
        yield "inplace", getattr(alias, "inplace_variant", None)


def api_opinfos(api: str, backend_module: str = "") -> List[str]:
    """The names of the OpInfo entries of the API named ``api`` ([] when none, or it does not resolve)."""
    if not api:
        return []
    try:
        from ..api.lookup import locate

        return list(find_opinfo(locate(api, backend_module).obj)[2])
    except Exception:
        return []


def find_opinfo(obj: Any) -> Tuple[Any, Optional[str], List[str]]:
    """(OpInfo, variant kind, names of every matching entry) for the API object, or (None, ...)."""
    matches: List[Tuple[Any, str]] = []
    for op in _op_db():
        for kind, fn in _variants(op):
            if fn is not None and fn is obj:
                matches.append((op, kind))
                break
    if not matches:
        return _find_wrapper(obj)
    matches.sort(key=lambda m: (m[0].variant_test_name != "", m[0].name))
    names = [
        "%s%s" % (m[0].name, "." + m[0].variant_test_name if m[0].variant_test_name else "")
        for m in matches
    ]
    return matches[0][0], matches[0][1], names


def _find_wrapper(obj: Any) -> Tuple[Any, Optional[str], List[str]]:
    """(OpInfo, "wrapper", names) for an entry whose ``op`` is a lambda calling ``obj`` (see
    opinfo_wrappers), or (None, None, [])."""
    if str(getattr(obj, "__qualname__", "")).startswith(("Tensor.", "TensorBase.")):
        return (
            None,
            None,
            [],
        )  # Tensor members: their method variants, and the tensor family's formulas
    for op in _op_db():
        if getattr(op.op, "__name__", "") == "<lambda>" and wrapped_call(op.op, obj) is not None:
            name = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
            return op, "wrapper", [name]
    return None, None, []


def _device_dtypes(op: Any, device_type: str) -> Any:
    try:
        return op.supported_dtypes(device_type)
    except Exception:  # a device type this torch's OpInfo does not know: its generic list
        return op.dtypes


def _to_cpu(value: Any, torch: TorchModule) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, (tuple, list)):
        return tuple(_to_cpu(v, torch) for v in value)
    return torch.as_tensor(value)


def _close(torch: TorchModule, actual: Any, expected: Any, dtype_name: str) -> None:
    rtol, atol = TOLERANCES.get(dtype_name, (None, None))
    torch.testing.assert_close(
        _to_cpu(actual, torch),
        _to_cpu(expected, torch),
        check_dtype=False,
        equal_nan=True,
        rtol=rtol,
        atol=atol,
    )


def _widen(torch: TorchModule, t: Any) -> Any:
    if isinstance(t, torch.Tensor) and t.is_floating_point():
        return t.to(torch.float64)
    if isinstance(t, torch.Tensor) and t.is_complex():
        return t.to(torch.complex128)
    return t


def widened_dtype(torch: TorchModule, dtype: Any) -> Any:
    """The dtype a ``dtype=`` keyword gets in the widened reference (float64, complex128), or itself."""
    if isinstance(dtype, torch.dtype) and dtype.is_floating_point:
        return torch.float64
    if isinstance(dtype, torch.dtype) and dtype.is_complex:
        return torch.complex128
    return dtype


def _decorator_reasons(op: Any) -> List[str]:
    """The reasons of the skips and expected failures the OpInfo's own tests are decorated with."""
    out: List[str] = []
    for info in getattr(op, "decorators", ()) or ():
        for dec in getattr(info, "decorators", None) or (info,):
            for cell in getattr(dec, "__closure__", None) or ():
                try:
                    value = cell.cell_contents
                except ValueError:
                    continue
                if isinstance(value, str):
                    out.append(value)
    return out


def _undefined_values(op: Any) -> bool:
    """Whether the OpInfo marks its results' values as undefined: its tests skip comparing them
    (``unittest.skip("Expected: empty_like is not comparable")``)."""
    return any("not comparable" in reason for reason in _decorator_reasons(op))


def _to_meta(torch: TorchModule, sample: Any) -> Any:
    moved = sample.transform(lambda t: t.to("meta") if isinstance(t, torch.Tensor) else t)
    kwargs = dict(moved.kwargs)
    if "device" in kwargs:
        kwargs["device"] = "meta"
    moved.kwargs = kwargs
    return moved


#: factory keywords whose documented meaning is the result's attribute of the same name
KEYWORDS = ("dtype", "layout", "requires_grad")


def _same_metadata(
    torch: TorchModule, actual: Any, expected: Any, kwargs: Optional[Json] = None
) -> None:
    """What an operator of undefined values defines: type, shape, dtype, layout, strides, requires_grad
    (against the meta kernels' result), and the ``dtype=``/``layout=``/``requires_grad=`` it was given."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            raise AssertionError("not a tensor: %r" % type(actual).__name__)
        given = kwargs or {}
        for what in KEYWORDS:
            if given.get(what) is not None and getattr(actual, what) != given[what]:
                raise AssertionError(
                    "%s %s, given %s=%s" % (what, getattr(actual, what), what, given[what])
                )
        for what in ("shape", "dtype", "layout", "requires_grad"):
            if getattr(actual, what) != getattr(expected, what):
                raise AssertionError(
                    "%s %s, the meta kernels give %s"
                    % (what, getattr(actual, what), getattr(expected, what))
                )
        if actual.layout == torch.strided and actual.stride() != expected.stride():
            raise AssertionError(
                "strides %s, the meta kernels give %s" % (actual.stride(), expected.stride())
            )
        return
    if isinstance(expected, (tuple, list)):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(expected):
            raise AssertionError("not a sequence of %d results" % len(expected))
        for i in range(len(expected)):  # zip(strict=) is Python 3.10's
            _same_metadata(torch, actual[i], expected[i])
        return
    raise AssertionError("a result that is not a tensor: %r" % type(expected).__name__)


def _cpu_check(
    torch: TorchModule, op: Any, fn: Any, kind: Optional[str], dtype: Any, reference: str
) -> Tuple[int, str]:
    """Run the test's comparison on the CPU for one dtype: (samples checked, problem or "")."""
    checked = 0
    dtype_name = str(dtype).split(".")[-1]
    torch.manual_seed(
        0
    )  # as the test seeds them: a dtype kept on one draw of the samples holds on the test's
    for sample in op.sample_inputs("cpu", dtype):
        if kind == "inplace" and sample.broadcasts_input:
            continue
        try:
            if reference == "numpy":
                ref = sample.numpy()
                expected = op.ref(ref.input, *ref.args, **ref.kwargs)
            elif reference == "meta":  # the test calls the API itself on the meta device
                meta = _to_meta(torch, sample)
                expected = fn(meta.input, *meta.args, **meta.kwargs)
            else:
                wide = sample.transform(lambda t: _widen(torch, t))
                expected = op.op(wide.input, *wide.args, **wide.kwargs)
        except Exception as exc:
            return checked, "the %s reference fails: %s" % (reference, error_text(exc))
        dev = sample.transform(
            lambda t: t.to("cpu", copy=True) if isinstance(t, torch.Tensor) else t
        )
        try:
            actual = fn(dev.input, *dev.args, **dev.kwargs)
        except RuntimeError:
            if kind == "inplace":
                continue
            raise
        try:
            if reference == "meta":
                _same_metadata(torch, actual, expected, dev.kwargs)
            else:
                _close(torch, actual, expected, dtype_name)
        except Exception as exc:
            return checked, "differs from the %s reference on the CPU: %s" % (
                reference,
                error_text(exc),
            )
        checked += 1
    if not checked:
        return 0, "no sample input could be checked"
    return checked, ""


def _error_inputs(torch: TorchModule, op: Any, fn: Any) -> ErrorInputs:
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
                    return {
                        "count": 0,
                        "problem": "an error input raised %s, not %s"
                        % (error_text(exc), error.error_type.__name__),
                    }
                return {
                    "count": 0,
                    "problem": "an error input did not raise %s" % error.error_type.__name__,
                }
    except Exception as exc:
        return {"count": 0, "problem": "error_inputs failed: %s" % error_text(exc)}
    return {"count": count, "problem": ""}


def opinfo_facts(
    torch: TorchModule, obj: Any, device_type: str, dtypes: Optional[Iterable[str]] = None
) -> OpinfoFacts:
    try:
        op, kind, names = find_opinfo(obj)
    except Exception as exc:
        return {"found": False, "error": "importing op_db failed: %s" % error_text(exc)}
    if op is None:
        return {"found": False, "error": ""}
    # a wrapper entry is checked through its lambda, which calls the API with the arguments rearranged
    # (a wrapper entry was found by wrapped_call answering, so its arguments are a string)
    fn = as_called(obj, cast(str, wrapped_call(op.op, obj))) if kind == "wrapper" else obj
    supported = set(str(d).split(".")[-1] for d in _device_dtypes(op, device_type))
    wanted = wanted_dtypes(supported, dtypes)
    # an independent reference (NumPy, or float64 for lower-precision floats) on every device; on
    # another device the CPU result is compared too, and serves alone for dtypes with no other
    reference = "numpy" if op.ref is not None else "float64"
    if _undefined_values(op):  # empty_permuted, new_empty, ...: the metadata the meta kernels give
        reference = "meta"
    on_device = device_type != "cpu"
    kept: List[str] = []
    cpu_kept: List[str] = []
    excluded: List[Excluded] = []
    samples: Dict[str, int] = {}
    for name in wanted:
        dtype = getattr(torch, name, None)
        if not isinstance(dtype, torch.dtype):
            excluded.append({"dtype": name, "reason": "this torch has no torch.%s" % name})
            continue
        if name not in supported:
            excluded.append(
                {"dtype": name, "reason": "the OpInfo does not list it for %s" % device_type}
            )
            continue
        if reference == "float64" and (name not in LOW_PRECISION or WIDE[name] not in supported):
            problem = (
                "no independent reference on the CPU (no NumPy ref; a float64 or complex128 "
                "computation serves only lower-precision floating and complex dtypes)"
            )
            count = 0
        else:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    count, problem = _cpu_check(torch, op, fn, kind, dtype, reference)
            except Exception as exc:
                count, problem = 0, "checking failed: %s" % error_text(exc)
        if not problem:
            kept.append(name)
            samples[name] = count
            continue
        if on_device and reference != "meta":  # undefined values: never compared with the CPU's
            try:
                count = sum(1 for _ in op.sample_inputs("cpu", dtype))
            except Exception as exc:
                count, problem = 0, "sample inputs failed: %s" % error_text(exc)
            if count:
                cpu_kept.append(name)
                samples[name] = count
                continue
        excluded.append({"dtype": name, "reason": problem})
    if (
        on_device and not kept and reference != "meta"
    ):  # no independent reference: the CPU is the only one
        reference, kept, cpu_kept = "cpu", cpu_kept, []
    errors: ErrorInputs = (
        _error_inputs(torch, op, obj) if kind == "function" else {"count": 0, "problem": ""}
    )
    return {
        "found": True,
        "name": op.name,
        "variant_test_name": op.variant_test_name,
        "matches": names,
        "error_inputs": errors,
        "call": cast(str, kind),  # an entry found has its variant kind
        "wrapper_args": cast(str, wrapped_call(op.op, obj)) if kind == "wrapper" else "",
        "has_ref": op.ref is not None,
        "reference": reference,
        "cpu_reference": on_device and reference != "meta",
        "cpu_dtypes": cpu_kept,
        "supported": sorted(supported),
        "dtypes": kept,
        "excluded": excluded,
        "samples": samples,
        "tolerances": dict((k, list(v)) for k, v in TOLERANCES.items()),
    }
