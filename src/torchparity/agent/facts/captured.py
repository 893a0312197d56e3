"""ATen operators that OpInfo samples reach but no OpInfo entry names (``aten::_trilinear``): the ``captured`` family.

``torch._trilinear`` has no OpInfo entry, but ``nn.functional.bilinear``'s samples
call it. Measured on the CPU: the first such call of the smallest samples (its
arguments recorded below autograd by a ``TorchDispatchMode``), written out with
the float inputs rounded to four decimals, and that the call in float32 agrees
with the same call in float64 (the reference the ``opinfo`` family takes for
floats below float64), within the tolerances the test states.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Tuple, Union

from ..protocol import Json, TorchModule
from .backward import (
    _build,
    _flat,
    _index,
    _literal,
    _name,
    _numel,
    _recorder,
    _size_key,
    _targets,
    _widened,
)
from .literal import error_text
from .schema_calls import CapturedFacts

MAX_LITERAL = 1200
RTOL, ATOL = 1e-3, 1e-4


def _agrees(torch: TorchModule, got: Any, want: Any) -> str:
    """Whether each tensor of ``got`` (float32) matches ``want`` (float64): a problem or ""."""
    a = [t for t in _flat(torch, got) if isinstance(t, torch.Tensor)]
    b = [t for t in _flat(torch, want) if isinstance(t, torch.Tensor)]
    if len(a) != len(b) or not a:
        return "its float64 call returns %d tensors, its float32 call %d" % (len(b), len(a))
    floats = [(x, y) for x, y in zip(a, b) if x.is_floating_point()]
    for x, y in floats:
        if x.shape != y.shape:
            return "the float32 and float64 results differ in shape"
        if not torch.allclose(x.double(), y, rtol=RTOL, atol=ATOL, equal_nan=True):
            return "the float32 result differs from the float64 one beyond rtol=%g, atol=%g" % (
                RTOL,
                ATOL,
            )
    if not floats:
        return "no floating result to compare"
    # the integer results (offsets, bag sizes) are the kernel's bookkeeping, which differs by backend: not compared
    if not any(x.numel() and float(y.abs().max()) > 10 * ATOL for x, y in floats):
        return "its floating results are empty or nearly zero on that sample (a wrong kernel would agree)"
    return ""


def captured_facts(torch: TorchModule, obj: Any, res: Json) -> CapturedFacts:
    target, overload = _targets(torch, obj, res)
    if not target:
        return {"found": False, "problem": "not an ATen operator"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _search(torch, target, overload)


def _search(torch: TorchModule, target: str, overload: str) -> CapturedFacts:
    from torch.testing._internal.common_methods_invocations import op_db

    entries = _index(torch).get(target) or []
    if not entries:
        return {"found": False, "problem": "no OpInfo sample calls %s" % target}
    by_key = dict(((op.name, op.variant_test_name), op) for op in op_db)
    Recorder = _recorder(torch)
    problems: List[str] = []
    for key in entries[:6]:
        op = by_key[key]
        samples: List[Tuple[bool, Any]] = []
        for grad in (
            True,
            False,
        ):  # with grad the forward may call another operator (embedding_bag)
            with torch.random.fork_rng():
                torch.manual_seed(0)
                try:
                    samples += [
                        (grad, s)
                        for s in sorted(
                            op.sample_inputs("cpu", torch.float32, requires_grad=grad),
                            key=lambda s: _size_key(torch, s),
                        )[:6]
                    ]
                except Exception as exc:
                    problems.append("%s: %s" % (op.name, error_text(exc)))
        for grad, sample in samples:
            try:
                with Recorder() as rec, torch.set_grad_enabled(grad):
                    op.op(sample.input, *sample.args, **sample.kwargs)
            except Exception as exc:
                problems.append("%s: %s" % (op.name, error_text(exc)))
                continue
            calls = [
                c
                for c in rec.calls
                if _name(c[0])[0] == target and (not overload or _name(c[0])[1] == overload)
            ]
            if not calls:
                continue
            func, args, kwargs, _ = calls[0]
            got = _check(torch, func, args, kwargs)
            if isinstance(got, dict):
                got.update(
                    {
                        "target": target,
                        "overload": _name(func)[1],
                        "opinfo": op.name,
                        "variant_test_name": op.variant_test_name,
                    }
                )
                return got
            problems.append(got)
    return {
        "found": False,
        "problem": "no call of %s could be checked: %s"
        % (target, "; ".join(dict.fromkeys(problems).keys())[:600]),
    }


def _check(
    torch: TorchModule, func: Any, args: Any, kwargs: Dict[str, Any]
) -> Union[str, CapturedFacts]:
    try:
        lit_args = [_literal(torch, a) for a in args]
        lit_kwargs = dict((k, _literal(torch, v)) for k, v in kwargs.items())
    except ValueError as exc:
        return "%s takes %s" % (_name(func)[0], exc)
    if sum(_numel(v) for v in lit_args) + sum(_numel(v) for v in lit_kwargs.values()) > MAX_LITERAL:
        return "its inputs have more than %d elements" % MAX_LITERAL
    if func._schema.is_mutable:
        return "%s changes its arguments" % _name(func)[0]
    floats = [v for v in args if isinstance(v, torch.Tensor) and v.is_floating_point()]
    if not floats or any(v.dtype != torch.float32 for v in floats):
        return "no float32 tensor argument to widen"
    built = [_build(torch, v) for v in lit_args]
    bkw = dict((k, _build(torch, v)) for k, v in lit_kwargs.items())
    try:
        got = func(*built, **bkw)
        want = func(*_widened(torch, built), **_widened(torch, bkw))
    except Exception as exc:
        return "calling it in float32 and float64 failed: %s" % error_text(exc)
    problem = _agrees(torch, got, want)
    if problem:
        return problem
    results = [t for t in _flat(torch, got) if isinstance(t, torch.Tensor)]
    return {
        "found": True,
        "args": lit_args,
        "kwargs": lit_kwargs,
        "results": len(results),
        "float_results": [i for i, t in enumerate(results) if t.is_floating_point()],
        "dtypes": [str(t.dtype).split(".")[-1] for t in results],
        "tolerance": [RTOL, ATOL],
    }
