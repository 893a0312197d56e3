"""ATen backward kernels (``aten::X_backward`` and any operator autograd calls): facts for the ``backward`` family.

A backward kernel has no OpInfo entry of its own, but the OpInfo entries'
functions reach it: differentiating a sample of ``nn.functional.interpolate``
(bicubic) calls ``aten::upsample_bicubic2d_backward``. Measured on the CPU:

1. which OpInfo samples reach the kernel (every entry's first float32 sample,
   its forward and backward recorded by a ``TorchDispatchMode``; built once per
   process);
2. of the ATen calls that sample's forward made, the one whose own backward
   calls the kernel, replayed alone on inputs rounded to four decimals (so the
   test can write them out) with a seeded cotangent;
3. which of the kernel's outputs is the gradient of which of that forward's
   arguments (equal to what autograd accumulated there), and that it agrees
   with central differences of the forward in float64: the independent fact the
   test asserts on the device.

The test writes out the forward call, its rounded inputs, the cotangent and the
kernel's arguments as autograd passed them on the CPU (floats to seven significant
digits; the kernel is called on those here too), calls the kernel on the device
and compares with the central differences of the forward.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, Union

from ..protocol import Json, TorchModule
from .literal import error_text
from .schema_calls import ArgLiteral, BackwardFacts

#: how many decimals the forward's float inputs and the cotangent are written with
DECIMALS = 4
#: significant digits of the kernel's float arguments autograd computed (saved outputs, statistics)
SIGNIFICANT = 7
#: the most tensor elements the test may write out, and the most forward calls the differences take
MAX_LITERAL = 1200
MAX_EVALS = 3000
#: the finite-difference step, and how close the kernel (float32) must be to the float64 differences
EPS = 1e-6
RTOL, ATOL = 2e-3, 1e-3
#: a gradient whose elements are all smaller than this tells a wrong kernel from a right one too weakly
INFORMATIVE = 1e-2
#: candidates tried per kernel
MAX_TRIES = 12

_INDEX: Dict[str, List[Tuple[str, str]]] = {}


def _name(func: Any) -> Tuple[str, str]:
    schema = getattr(func, "_schema", None)
    return (schema.name, schema.overload_name or "default") if schema is not None else ("", "")


def _recorder(torch: TorchModule) -> Any:
    from torch.utils._python_dispatch import TorchDispatchMode

    class Recorder(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.calls: List[Tuple[Any, Any, Any, Any]] = []

        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            self.calls.append((func, args, kwargs, out))
            return out

    return Recorder


def _flat(torch: TorchModule, value: Any) -> List[Any]:
    from torch.utils._pytree import tree_flatten

    return tree_flatten(value)[0]


def _index(torch: TorchModule) -> Dict[str, List[Tuple[str, str]]]:
    """ATen operator name -> [(OpInfo name, variant)] of the entries whose first sample's forward or backward
    calls it (a sample with grad and one without: without grad a forward may call another operator)."""
    if _INDEX:
        return _INDEX
    from torch.testing._internal.common_methods_invocations import op_db

    Recorder = _recorder(torch)
    for op in op_db:
        rec = Recorder()
        with warnings.catch_warnings(), torch.random.fork_rng():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)
            for grad in (True, False) if op.supports_autograd else (False,):
                try:
                    sample = next(iter(op.sample_inputs("cpu", torch.float32, requires_grad=grad)))
                    with rec:
                        outs = [
                            o
                            for o in _flat(
                                torch, op.op(sample.input, *sample.args, **sample.kwargs)
                            )
                            if isinstance(o, torch.Tensor) and o.requires_grad
                        ]
                        if outs:
                            torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])
                except Exception:
                    continue
        for func, _, _, _ in rec.calls:
            name = _name(func)[0]
            if name:
                _INDEX.setdefault(name, [])
                if (op.name, op.variant_test_name) not in _INDEX[name]:
                    _INDEX[name].append((op.name, op.variant_test_name))
    return _INDEX


def _literal(torch: TorchModule, value: Any, significant: int = 0) -> ArgLiteral:
    """A JSON-able description of an argument (floats of tensors to DECIMALS decimals, or to ``significant``
    digits), or raise ValueError for what the test cannot write out."""
    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided or value.is_complex() or value.is_quantized:
            raise ValueError("a %s tensor argument" % value.layout)
        values = value.detach().cpu().reshape(-1).tolist()
        if value.is_floating_point():
            if significant:
                values = [float("%.*g" % (significant, v)) for v in values]
            else:
                values = [round(float(v), DECIMALS) for v in values]
        return {
            "tensor": values,
            "shape": list(value.shape),
            "dtype": str(value.dtype).split(".")[-1],
        }
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"value": value}
    if isinstance(value, (list, tuple)):
        return {
            "list": [_literal(torch, v, significant) for v in value],
            "tuple": isinstance(value, tuple),
        }
    if isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
        return {"torch": str(value).split(".")[-1]}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    raise ValueError("an argument of type %s" % type(value).__name__)


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


def _numel(lit: ArgLiteral) -> int:
    if "tensor" in lit:
        return len(lit["tensor"])
    return sum(_numel(v) for v in lit.get("list", []))


def _replay(
    torch: TorchModule,
    func: Any,
    args: Sequence[Any],
    kwargs: Dict[str, Any],
    leaves: List[int],
    cotangents: Optional[List[Any]],
    target: str,
    first_only: bool = False,
) -> Tuple[List[Any], List[Any], List[int], List[Any]]:
    """Run the forward with ``leaves`` requiring grad and its backward under a recorder: (kernel calls, grads,
    the outputs weighed, their cotangents); ``first_only``: weigh only the first differentiable output (with
    cotangents for the statistics too, ``native_group_norm``'s backward takes another formula)."""
    Recorder = _recorder(torch)
    args = list(args)
    for j in leaves:
        args[j] = args[j].detach().clone().requires_grad_(True)
    out = func(*args, **kwargs)
    outs = [o for o in _flat(torch, out) if isinstance(o, torch.Tensor)]
    diffs = [(i, o) for i, o in enumerate(outs) if o.requires_grad][: 1 if first_only else None]
    if cotangents is None:
        gen = torch.Generator().manual_seed(0)
        cotangents = [
            torch.tensor(
                [round(float(v), DECIMALS) for v in torch.randn(o.numel(), generator=gen)],
                dtype=o.dtype,
            ).reshape(o.shape)
            for _, o in diffs
        ]
    with Recorder() as rec:
        torch.autograd.backward([o for _, o in diffs], cotangents)
    calls = [c for c in rec.calls if _name(c[0])[0] == target]
    return calls, [args[j].grad for j in leaves], [i for i, _ in diffs], cotangents


def _widened(torch: TorchModule, value: Any) -> Any:
    from torch.utils._pytree import tree_map

    return tree_map(
        lambda t: t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t, value
    )


def _numerical(
    torch: TorchModule,
    func: Any,
    args: Sequence[Any],
    kwargs: Dict[str, Any],
    leaves: List[int],
    outputs: List[int],
    cotangents: List[Any],
) -> List[Any]:
    """Central differences of sum(cotangent * forward output) in float64, per leaf."""
    wide = _widened(torch, list(args))
    kwargs = _widened(torch, kwargs)
    cots = [c.double() for c in cotangents]

    def value() -> float:
        outs = [o for o in _flat(torch, func(*wide, **kwargs)) if isinstance(o, torch.Tensor)]
        return sum(float((outs[i] * c).sum()) for i, c in zip(outputs, cots))

    grads: List[Any] = []
    for j in leaves:
        x = wide[j].clone().contiguous()
        wide[j] = x
        flat = x.view(-1)
        g = torch.zeros(x.numel(), dtype=torch.float64)
        for i in range(x.numel()):
            orig = float(flat[i])
            flat[i] = orig + EPS
            hi = value()
            flat[i] = orig - EPS
            lo = value()
            flat[i] = orig
            g[i] = (hi - lo) / (2 * EPS)
        grads.append(g.reshape(x.shape))
    return grads


def _try_forward(
    torch: TorchModule, func: Any, args: Any, kwargs: Dict[str, Any], target: str, overload: str
) -> Union[str, BackwardFacts]:
    """Facts of one candidate forward call, or a problem string."""
    try:
        lit_args = [_literal(torch, a) for a in args]
        lit_kwargs = dict((k, _literal(torch, v)) for k, v in kwargs.items())
    except ValueError as exc:
        return "the forward %s takes %s" % (_name(func)[0], exc)
    leaves = [j for j, a in enumerate(args) if isinstance(a, torch.Tensor) and a.requires_grad]
    if not leaves:
        return "no argument of %s requires grad" % _name(func)[0]
    size = sum(_numel(v) for v in lit_args) + sum(_numel(v) for v in lit_kwargs.values())
    if size > MAX_LITERAL:
        return "its inputs have %d elements (at most %d are written out)" % (size, MAX_LITERAL)
    if 2 * sum(len(lit_args[j]["tensor"]) for j in leaves) > MAX_EVALS:
        return "central differences would take more than %d forward calls" % MAX_EVALS
    if func._schema.is_mutable:
        return "the forward %s changes its arguments" % _name(func)[0]
    built = [_build(torch, v) for v in lit_args]
    bkw = dict((k, _build(torch, v)) for k, v in lit_kwargs.items())
    for first_only in (True, False):
        calls, grads, outputs, cots = _replay(
            torch, func, built, bkw, leaves, None, target, first_only
        )
        if calls:
            break
    if not calls:
        return "replayed alone, the backward of %s does not call %s" % (_name(func)[0], target)
    kfunc, kargs, kkwargs, kout = calls[0]
    out_names: List[str] = []
    if overload and _name(kfunc)[1] != overload:
        out_names = _out_arguments(torch, target, overload)
        if not out_names:
            return "autograd calls the %s overload, not %s" % (_name(kfunc)[1], overload)
    results = [o for o in _flat(torch, kout)]
    pairs: List[List[int]] = []
    for k, r in enumerate(results):
        if not isinstance(r, torch.Tensor) or not r.is_floating_point():
            continue
        for j, g in zip(leaves, grads):
            if g is not None and g.shape == r.shape and torch.allclose(g, r, rtol=1e-5, atol=1e-6):
                pairs.append([k, j])
                break
    if not pairs:
        return "no output of %s equals the gradient autograd accumulated in an argument of %s" % (
            target,
            _name(func)[0],
        )
    used = sorted(set(j for _, j in pairs))
    numerical = _numerical(torch, func, built, bkw, used, outputs, cots)
    by_leaf = dict(zip(used, numerical))
    # a gradient nearly zero everywhere tells a wrong kernel from a right one too weakly: its pair is dropped
    pairs = [
        [k, j]
        for k, j in pairs
        if by_leaf[j].numel() and float(by_leaf[j].abs().max()) >= INFORMATIVE
    ]
    if not pairs:
        return (
            "the gradient of %s is nearly zero on that sample (a wrong kernel would agree)"
            % _name(func)[0]
        )
    used = sorted(set(j for _, j in pairs))
    numerical = [by_leaf[j] for j in used]
    # the kernel's arguments as the test writes them out (floats to seven significant digits), called here
    try:
        kernel_args = [_literal(torch, a, SIGNIFICANT) for a in kargs]
        kernel_kwargs = dict((k, _literal(torch, v, SIGNIFICANT)) for k, v in kkwargs.items())
    except ValueError as exc:
        return "the kernel takes %s" % exc
    if (
        size + sum(_numel(v) for v in kernel_args) + sum(_numel(v) for v in kernel_kwargs.values())
        > 2 * MAX_LITERAL
    ):
        return "the kernel's arguments have more than %d elements" % MAX_LITERAL
    results = list(
        _flat(
            torch,
            kfunc(
                *[_build(torch, v) for v in kernel_args],
                **dict((k, _build(torch, v)) for k, v in kernel_kwargs.items()),
            ),
        )
    )
    for k, j in pairs:
        if not torch.allclose(results[k].double(), by_leaf[j], rtol=RTOL, atol=ATOL):
            return (
                "the kernel's output %d differs from central differences of %s (a point where it is not smooth)"
                % (k, _name(func)[0])
            )
    fname, fov = _name(func)
    return {
        "found": True,
        "forward": fname,
        "forward_overload": fov,
        "args": lit_args,
        "kwargs": lit_kwargs,
        "leaves": used,
        "outputs": outputs,
        "cotangents": [_literal(torch, c) for c in cots],
        "pairs": pairs,
        "kernel_overload": _name(kfunc)[1],
        "results": len(results),
        "out": out_names,
        "kernel_args": kernel_args,
        "kernel_kwargs": kernel_kwargs,
        "floats": sum(1 for r in results if isinstance(r, torch.Tensor) and r.is_floating_point()),
        "tolerance": [RTOL, ATOL],
        "eps": EPS,
    }


def _out_arguments(torch: TorchModule, target: str, overload: str) -> List[str]:
    """The out= arguments of an overload (``grad_input``) that differs from the one autograd calls only by them."""
    try:
        schema = torch._C._get_schema(target, overload)
    except Exception:
        return []
    return [
        a.name
        for a in schema.arguments
        if a.kwarg_only and a.alias_info is not None and a.alias_info.is_write
    ]


def _targets(torch: TorchModule, obj: Any, res: Json) -> Tuple[str, str]:
    """(qualified name, overload name or "") of the API, or ("", "")."""
    if isinstance(obj, torch._ops.OpOverload):
        return obj._schema.name, obj._schema.overload_name or "default"
    if isinstance(obj, torch._ops.OpOverloadPacket):
        return obj._qualified_op_name, ""
    leaf = res["path"].rsplit(".", 1)[-1]
    try:
        if torch._C._jit_get_schemas_for_operator("aten::" + leaf):
            return "aten::" + leaf, ""
    except Exception:
        pass
    return "", ""


def backward_facts(torch: TorchModule, obj: Any, res: Json) -> BackwardFacts:
    target, overload = _targets(torch, obj, res)
    if not target:
        return {"found": False, "problem": "not an ATen operator"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _search(torch, target, overload)


def _size_key(torch: TorchModule, sample: Any) -> Tuple[bool, int]:
    """Smallest first, after the samples with an empty tensor or fewer than four elements."""
    tensors = [
        t
        for t in _flat(torch, (sample.input, sample.args, sample.kwargs))
        if isinstance(t, torch.Tensor)
    ]
    size = sum(t.numel() for t in tensors)
    return (size < 4 or any(t.numel() == 0 for t in tensors), size)


def _search(torch: TorchModule, target: str, overload: str) -> BackwardFacts:
    from torch.testing._internal.common_methods_invocations import op_db

    entries = _index(torch).get(target) or []
    if not entries:
        return {
            "found": False,
            "problem": "no OpInfo sample's forward or backward calls %s" % target,
        }
    by_key = dict(((op.name, op.variant_test_name), op) for op in op_db)
    Recorder = _recorder(torch)
    problems: List[str] = []
    tried = 0
    best: Optional[BackwardFacts] = None
    for key in entries:
        op = by_key[key]
        with torch.random.fork_rng():
            torch.manual_seed(0)
            try:
                samples = list(op.sample_inputs("cpu", torch.float32, requires_grad=True))
            except Exception as exc:
                problems.append("%s: %s" % (op.name, error_text(exc)))
                continue
        # the smallest samples with a few elements first
        ordered = sorted(samples, key=lambda s: _size_key(torch, s))
        reaching = 0
        for sample in ordered[:40]:
            try:
                with Recorder() as rec:
                    outs = [
                        o
                        for o in _flat(torch, op.op(sample.input, *sample.args, **sample.kwargs))
                        if isinstance(o, torch.Tensor) and o.requires_grad
                    ]
                    forward_calls = list(rec.calls)
                    if outs:
                        torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])
            except Exception as exc:
                problems.append("%s: %s" % (op.name, error_text(exc)))
                continue
            if not any(_name(c[0])[0] == target for c in rec.calls[len(forward_calls) :]):
                continue  # this sample's backward does not reach the kernel
            reaching += 1
            if reaching > 3:
                break
            seen: Set[Tuple[str, str]] = set()
            for func, args, kwargs, _ in reversed(forward_calls):
                fname = _name(func)
                if fname in seen or fname[0] == target:
                    continue
                seen.add(fname)
                if not any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
                    continue
                tried += 1
                if tried > MAX_TRIES:
                    return best or {
                        "found": False,
                        "problem": "no forward call of %d tried could be checked: %s"
                        % (MAX_TRIES, "; ".join(dict.fromkeys(problems).keys())[:600]),
                    }
                try:
                    got = _try_forward(torch, func, args, kwargs, target, overload)
                except Exception as exc:
                    got = "replaying %s failed: %s" % (fname[0], error_text(exc))
                if isinstance(got, dict):
                    got.update(
                        {
                            "target": target,
                            "overload": overload,
                            "opinfo": op.name,
                            "variant_test_name": op.variant_test_name,
                        }
                    )
                    if len(got["pairs"]) == got["floats"]:
                        return got  # every floating output of the kernel is asserted
                    if best is None or len(got["pairs"]) > len(best["pairs"]):
                        best = got  # a sample where some output's gradient is nearly zero: another may do better
                    continue
                problems.append(got)
    if best is not None:
        return best
    return {
        "found": False,
        "problem": "no forward call could be checked: %s"
        % "; ".join(dict.fromkeys(problems).keys())[:600],
    }
