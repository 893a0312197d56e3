"""nn module classes the probe could not construct, built from upstream's ``module_db`` sample.

``torch.nn.LSTM(*args, **kwargs)`` hides its parameters from the probe; the
agent (``agent/facts/modules.py``) takes the constructor arguments and a
forward input from ``torch.testing._internal.common_modules.module_db`` and
measures the forward on the CPU with every parameter set to
``linspace(-0.5, 0.5)``. The tests: parameters and buffers on the device and
the state_dict round trip to the CPU (the ``module`` family's own check); the
forward on the device against the values measured on the CPU (shapes, dtypes,
values or sums) and against the CPU module loaded from the device's
state_dict; and for the recurrent modules (``RNN``, ``GRU``, ``LSTM``) the
shapes their documentation gives for a batched input, ``(L, N, D * H_out)``
and ``h_n`` ``(D * num_layers, N, H_out)`` (``c_n`` with ``H_cell``), each
batch element equal to the unbatched result.
"""

from __future__ import annotations

from ..agent.facts.schema_calls import InputSpec, ModuleDbFacts
from .plan import CannotDecide

FILL = [
    "with torch.no_grad():  # fixed values: each parameter linspace(-0.5, 0.5) over its elements",
    "    for p in {m}.parameters():",
    "        p.copy_(torch.linspace(-0.5, 0.5, p.numel(), dtype=p.dtype).reshape(p.shape))",
]
CPU = '"cpu"'
LEAVES = [
    "def leaves(value):  # the tensors of a result, in order",
    "    if isinstance(value, (tuple, list)):",
    "        return [t for v in value for t in leaves(v)]",
    "    return [value]",
]


def make_of(db: ModuleDbFacts, spelling: str) -> str:
    """``torch.nn.LSTM(input_size=2, ...)``: the sample's construction."""
    parts = [str(a) for a in db.get("args") or []] + [f"{k}={v}" for k, v in db.get("kwargs") or []]
    return f"{spelling}({', '.join(parts)})"


def _spec(spec: InputSpec, device: str) -> str:
    if "tensor" in spec:
        return f"{spec['tensor']}.to({device})"
    if "tuple" in spec:
        items = [_spec(s, device) for s in spec["tuple"]]
        if spec.get("list"):
            return f"[{', '.join(items)}]"
        return f"({', '.join(items)}{',' if len(items) == 1 else ''})"
    return str(spec["value"])


def _call(db: ModuleDbFacts, device: str) -> str:
    args = [_spec(s, device) for s in db.get("inputs") or []]
    args += [f"{k}={_spec(s, device)}" for k, s in db.get("forward_kwargs") or []]
    return ", ".join(args)


def forward_lines(db: ModuleDbFacts, make: str, device: str, forward: str = "") -> list[str]:
    """The forward on the device against the CPU-measured values and the CPU module; ``forward``: the
    member to call it through (``torch.nn.TransformerEncoderLayer.forward``), else the module is called."""
    outputs = db.get("outputs") or []
    args = _call(db, device)
    call = (
        f"{forward}(module, {args})"
        if forward and args
        else f"{forward}(module)"
        if forward
        else f"module({args})"
    )
    lines = [
        f"module = {make}.to({device}).eval()",
        *(x.format(m="module") for x in FILL),
        *LEAVES,
        "with torch.no_grad():",
        f"    result = leaves({call})",
        f"self.assertEqual(len(result), {len(outputs)})",
    ]
    for i, out in enumerate(outputs):
        if out is None:
            lines.append(f"self.assertIsNone(result[{i}])")
            continue
        lines += [
            f"self.assertEqual(tuple(result[{i}].shape), {tuple(out['shape'])!r})",
            f"self.assertEqual(result[{i}].dtype, {out['dtype']})",
            f"self.assertEqual(result[{i}].device.type, {device}.type)",
        ]
        if "values" in out:
            lines.append(
                f"expected = torch.tensor({out['values']!r}, dtype=torch.float64).reshape("
                f"{list(out['shape'])!r})  # measured on the CPU"
            )
            lines.append(
                f"torch.testing.assert_close(result[{i}].cpu().double(), expected, atol=1e-4, rtol=1e-4)"
            )
        else:
            lines += [
                f"self.assertAlmostEqual(result[{i}].cpu().double().sum().item(), {out['sum']!r}, "
                "delta=1e-4 * (1 + abs(" + repr(out["sum"]) + ")))  # measured on the CPU",
                f"self.assertAlmostEqual(result[{i}].cpu().double().abs().sum().item(), {out['abs_sum']!r}, "
                "delta=1e-4 * (1 + abs(" + repr(out["abs_sum"]) + ")))",
            ]
    lines += [
        f"on_cpu = {make}.eval()",
        "on_cpu.load_state_dict({k: v.cpu() for k, v in module.state_dict().items()})",
        "with torch.no_grad():",
        f"    reference = leaves(on_cpu({_call(db, CPU)}))",
        "self.assertEqual(len(reference), len(result))",
        "for i, want in enumerate(reference):  # the device against the CPU module with the same state",
        "    if want is not None:",
        "        torch.testing.assert_close(result[i].cpu(), want, atol=1e-4, rtol=1e-4)",
    ]
    return lines


def rnn_lines(db: ModuleDbFacts, make: str, device: str) -> list[str]:
    """The documented shapes of a recurrent module's batched result; each element equals the unbatched one."""
    inputs = db.get("inputs") or []
    if not inputs or "tensor" not in inputs[0]:
        raise CannotDecide("the sample's input is not a tensor")
    lstm = db.get("rnn") == "LSTM"
    x = _spec(inputs[0], device)
    lines = [
        f"module = {make}.to({device}).eval()",
        *(x_.format(m="module") for x_ in FILL),
        f"x = {x}  # unbatched: (L, H_in)",
        "self.assertEqual(x.dim(), 2)",
        "L, N = x.shape[0], 3",
        "batch = x.unsqueeze(0 if module.batch_first else 1).expand(*((N, -1, -1) if module.batch_first"
        " else (-1, N, -1)))",
        "D = 2 if module.bidirectional else 1",
        'H_out = module.proj_size if getattr(module, "proj_size", 0) > 0 else module.hidden_size',
        "with torch.no_grad():",
        "    single, _ = module(x)",
        "    output, state = module(batch)",
        "# the documented shapes: output (L, N, D * H_out) (N first with batch_first), h_n (D * num_layers, N, H_out)",
        "self.assertEqual(tuple(output.shape), (N, L, D * H_out) if module.batch_first else (L, N, D * H_out))",
        "self.assertEqual(tuple(single.shape), (L, D * H_out))",
    ]
    if lstm:
        lines += [
            "h_n, c_n = state",
            "self.assertEqual(tuple(h_n.shape), (D * module.num_layers, N, H_out))",
            "self.assertEqual(tuple(c_n.shape), (D * module.num_layers, N, module.hidden_size))  # H_cell",
        ]
    else:
        lines += [
            "h_n = state",
            "self.assertEqual(tuple(h_n.shape), (D * module.num_layers, N, H_out))",
        ]
    lines += [
        "for n in range(N):  # each batch element is the unbatched result",
        "    element = output[n] if module.batch_first else output[:, n]",
        "    torch.testing.assert_close(element.cpu(), single.cpu(), atol=1e-5, rtol=1e-5)",
        "self.assertEqual(output.device.type, " + device + ".type)",
    ]
    return lines
