"""How to build an nn module class the probe could not construct: from upstream's ``module_db``.

``torch.nn.LSTM.__init__(*args, **kwargs)`` hides its parameters, so the
agent's probe finds no construction of it. PyTorch's own module tests list, in
``torch.testing._internal.common_modules.module_db``, constructor arguments and
forward inputs for the module classes they test (every RNN, the Transformer
layers, ``MultiheadAttention``, convolutions, losses, ...). This module takes
the first of those samples whose arguments a test can hold literally, fills
the module's parameters with fixed values (``linspace(-0.5, 0.5)`` each) and
measures, on the CPU and in eval mode, what its forward gives (the shape and
dtype of each tensor in the result, its values when small, else its sum and
absolute sum), so the test holds those values, not a second run.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple, cast

from ..protocol import TorchModule
from .literal import NotLiteral, literal
from .schema_calls import InputSpec, ModuleDbFacts, ModuleOutput

MAX_INPUT = 256
MAX_VALUES = 64


def _tensor_src(torch: TorchModule, t: Any) -> str:
    if t.layout != torch.strided or t.numel() > MAX_INPUT or t.is_complex():
        raise NotLiteral("tensor")
    data = t.detach().cpu()
    dtype = literal(data.dtype, torch)
    if data.dtype.is_floating_point:
        values = [round(float(v), 4) for v in data.reshape(-1).tolist()]
    else:
        values = data.reshape(-1).tolist()
    return "torch.tensor(%r, dtype=%s).reshape(%s)" % (values, dtype, list(data.shape))


def _input_spec(torch: TorchModule, value: Any) -> InputSpec:
    """{"tensor": cpu source} | {"tuple": [...]} | {"value": source} for one forward argument."""
    if isinstance(value, torch.Tensor):
        return {"tensor": _tensor_src(torch, value)}
    if isinstance(value, (tuple, list)):
        return {"tuple": [_input_spec(torch, v) for v in value], "list": isinstance(value, list)}
    return {"value": literal(value, torch)}


def _build(torch: TorchModule, spec: InputSpec) -> Any:
    """The CPU value a spec's source makes (what the test will make)."""
    if "tensor" in spec:
        return eval(spec["tensor"], {"torch": torch})
    if "tuple" in spec:
        items = [_build(torch, s) for s in spec["tuple"]]
        return items if spec.get("list") else tuple(items)
    return eval(spec["value"], {"torch": torch})


def fill_parameters(torch: TorchModule, module: Any) -> None:
    """The values the test sets: each parameter ``linspace(-0.5, 0.5)`` over its elements."""
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.linspace(-0.5, 0.5, p.numel(), dtype=p.dtype).reshape(p.shape))


def _leaves(torch: TorchModule, value: Any, out: List[Any]) -> List[Any]:
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _leaves(torch, v, out)
    elif value is None:
        out.append(None)
    else:
        raise NotLiteral("a %s in the result" % type(value).__name__)
    return out


def _output(torch: TorchModule, t: Any) -> Optional[ModuleOutput]:
    if t is None:
        return None
    data = t.detach().cpu()
    row: ModuleOutput = {"shape": list(data.shape), "dtype": literal(data.dtype, torch)}
    if data.is_complex():
        raise NotLiteral("complex output")
    if data.numel() <= MAX_VALUES:
        row["values"] = [
            float(v) if data.dtype.is_floating_point else int(v) for v in data.reshape(-1).tolist()
        ]
    else:
        as_double = data.double()
        row["sum"] = float(as_double.sum())
        row["abs_sum"] = float(as_double.abs().sum())
    return row


def _sample(torch: TorchModule, cls: Any, sample: Any) -> ModuleDbFacts:
    """The facts of one module_db sample, or raise NotLiteral/any error to skip it."""
    ctor = sample.constructor_input
    args = [literal(a, torch) for a in ctor.args]
    kwargs = [[k, literal(v, torch)] for k, v in sorted(ctor.kwargs.items())]
    fwd = sample.forward_input
    if fwd is None:
        raise NotLiteral("no forward input")
    inputs = [_input_spec(torch, a) for a in fwd.args]
    # [name, spec] pairs: lists, as JSON arrays are sent
    fwd_kwargs = cast(
        List[Tuple[str, InputSpec]],
        [[k, _input_spec(torch, v)] for k, v in sorted(fwd.kwargs.items())],
    )
    source = "%s(%s)" % ("M", ", ".join(args + ["%s=%s" % (k, v) for k, v in kwargs]))
    module = eval(source, {"torch": torch, "M": cls})
    module.eval()
    fill_parameters(torch, module)
    with torch.no_grad():
        result = module(
            *[_build(torch, s) for s in inputs],
            **dict((k, _build(torch, s)) for k, s in fwd_kwargs),
        )
    outputs = [_output(torch, t) for t in _leaves(torch, result, [])]
    if not any(o for o in outputs):
        raise NotLiteral("no tensor in the result")
    return {
        "args": args,
        "kwargs": kwargs,
        "inputs": inputs,
        "forward_kwargs": fwd_kwargs,
        "outputs": outputs,
        "parameters": sum(1 for _ in module.parameters()),
    }


def module_db_facts(torch: TorchModule, cls: Any) -> ModuleDbFacts:
    """A literal construction, forward input and measured result of ``cls`` from module_db."""
    if not isinstance(cls, type) or not issubclass(cls, torch.nn.Module):
        return {"found": False, "problem": "not an nn module class"}
    if any("Lazy" in k.__name__ for k in cls.__mro__):
        return {
            "found": False,
            "problem": "a lazy module has no parameters to fill before its first call",
        }
    from torch.testing._internal.common_modules import module_db

    infos = [i for i in module_db if i.module_cls is cls]
    if not infos:
        return {"found": False, "problem": "module_db has no entry for %s" % cls.__name__}
    info = infos[0]
    samples = info.module_inputs_func(
        info, device="cpu", dtype=torch.float32, requires_grad=False, training=True
    )
    rnn = ""
    if issubclass(cls, torch.nn.RNNBase):
        rnn = "LSTM" if issubclass(cls, torch.nn.LSTM) else "RNN"
        # the documented shapes are of a batched input: try those first
        samples = sorted(
            samples,
            key=lambda s: (
                not (
                    s.forward_input
                    and s.forward_input.args
                    and getattr(s.forward_input.args[0], "dim", lambda: 0)() == 3
                )
            ),
        )
    why: List[str] = []
    for sample in samples:
        torch.manual_seed(0)
        try:
            got = _sample(torch, cls, sample)
        except Exception as exc:
            why.append("%s: %s" % (type(exc).__name__, str(exc)[:120]))
            continue
        got.update({"found": True, "rnn": rnn, "samples": len(samples)})
        return got
    return {
        "found": False,
        "problem": "no module_db sample of %s could be held literally (%s)"
        % (cls.__name__, "; ".join(why[:3]) or "none"),
    }
