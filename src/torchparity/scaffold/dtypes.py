"""The ``dtype`` family: a ``torch.dtype`` used as a value (``torch.float``, ``torch.int8``, ``torch.quint8``).

The facts come from PyTorch's documentation of ``torch.dtype`` (the table of
tensor attributes, ``torch.finfo``/``torch.iinfo``), not from running the
dtype: its canonical name and alias, ``is_floating_point``, ``is_complex``,
``is_signed``, ``itemsize``, the bits and limits of its finfo/iinfo; a
tensor made with it on the device has it and converts values as documented
(2.7 -> 2 for integer types, nonzero -> True for bool); ``to(dtype)`` round
trips exactly representable values and returns the tensor itself when it
already has the dtype. Quantized dtypes go through
``torch.quantize_per_tensor`` (made on the CPU, said in the test). Each
assertion reads the dtype, so a stand-in in its place fails every test.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method as _method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of
from .recipes.dtypes import ALIASES
from .recipes.dtypes import DTYPES as DTYPE_FACTS


@dataclass(frozen=True)
class DtypeFacts:
    """What PyTorch documents of one dtype."""

    #: ``float``, ``complex``, ``int``, ``uint``, ``bool``, ``quantized``
    kind: str
    itemsize: int
    #: finfo/iinfo bits (0: neither applies)
    bits: int = 0
    #: finfo max and eps (floating types)
    max: float = 0.0
    eps: float = 0.0
    #: quantized: the dtype of ``int_repr()``, its zero point and its values for [-1.0, 0.5, 2.5] at scale 0.5
    storage: str = ""
    zero_point: int = 0


#: canonical name -> facts (torch's documented dtypes)
DTYPES: dict[str, DtypeFacts] = {name: DtypeFacts(**facts) for name, facts in DTYPE_FACTS.items()}


def canonical_dtype(info: ApiInfo) -> str:
    """The dtype's canonical name (``torch.float32`` for ``torch.float``), or "" if the API is no dtype."""
    r = info.resolution
    if r.kind != "attribute":
        return ""
    for name in (r.canonical, r.path, *r.aliases):
        name = ALIASES.get(name, name)
        if name in DTYPES:
            return name
    return ""


def _facts_lines(d: str, name: str, f: DtypeFacts) -> list[str]:
    lines = [f"dtype = {d}"]
    if d != name:
        lines.append(f"self.assertIs(dtype, {name})  # {d} is an alias of {name}")
    lines.append(f'self.assertEqual(str(dtype), "{name}")')
    lines.append(f"self.assert{f.kind == 'float'}(dtype.is_floating_point)")
    lines.append(f"self.assert{f.kind == 'complex'}(dtype.is_complex)")
    if f.kind == "quantized":
        lines += [
            "with self.assertRaises(RuntimeError):  # is_signed is not defined for quantized types",
            "    dtype.is_signed",
        ]
    else:
        lines.append(f"self.assert{f.kind in ('float', 'complex', 'int')}(dtype.is_signed)")
    lines.append(f"self.assertEqual(dtype.itemsize, {f.itemsize})")
    if f.kind in ("float", "complex"):
        lines += [
            "info = torch.finfo(dtype)",
            f"self.assertEqual(info.bits, {f.bits})",
            f"self.assertEqual(info.max, {f.max!r})",
            f"self.assertEqual(info.eps, {f.eps!r})",
        ]
    elif f.kind in ("int", "uint"):
        low, high = (
            (0, 2**f.bits - 1)
            if f.kind == "uint"
            else (-(2 ** (f.bits - 1)), 2 ** (f.bits - 1) - 1)
        )
        lines += [
            "info = torch.iinfo(dtype)",
            f"self.assertEqual(info.bits, {f.bits})",
            f"self.assertEqual(info.min, {low})",
            f"self.assertEqual(info.max, {high})",
        ]
    return lines


#: kind -> (values given, values expected after conversion)
CONVERSIONS = {
    "float": ("[2.5, -0.75, 0.0]", "[2.5, -0.75, 0.0]"),
    "int": ("[2.7, -2.7, 0.0]", "[2, -2, 0]"),  # truncated toward zero
    "uint": ("[2.7, 0.0, 9.9]", "[2, 0, 9]"),
    "bool": ("[2.7, 0.0, -1.0]", "[True, False, True]"),
}


def _tensor_lines(d: str, f: DtypeFacts) -> list[str]:
    if f.kind == "complex":
        return [
            f"tensor = torch.tensor([1.5 + 2.0j, -0.5j], dtype={d}, device=DEVICE)",
            f"self.assertIs(tensor.dtype, {d})",
            "self.assertEqual(tensor.device.type, DEVICE.type)",
            f"self.assertEqual(tensor.element_size(), {f.itemsize})",
            "self.assertEqual(tensor.real.cpu().tolist(), [1.5, 0.0])",
            "self.assertEqual(tensor.imag.cpu().tolist(), [2.0, -0.5])",
        ]
    given, expected = CONVERSIONS[f.kind]
    shown = "tensor" if f.kind == "bool" else "tensor.double()"
    return [
        f"tensor = torch.tensor({given}, dtype={d}, device=DEVICE)",
        f"self.assertIs(tensor.dtype, {d})",
        "self.assertEqual(tensor.device.type, DEVICE.type)",
        f"self.assertEqual(tensor.element_size(), {f.itemsize})",
        f"self.assertEqual({shown}.cpu().tolist(), {expected})",
    ]


def _round_trip_lines(d: str, f: DtypeFacts) -> list[str]:
    wide = "torch.complex128" if f.kind == "complex" else "torch.float64"
    values = {"bool": "[1.0, 0.0, 1.0]", "uint": "[0.0, 1.0, 3.0]"}.get(f.kind, "[0.0, 1.0, -3.0]")
    return [
        f"source = torch.tensor({values}, dtype={wide}, device=DEVICE)",
        f"converted = source.to({d})",
        f"self.assertIs(converted.dtype, {d})",
        "self.assertEqual(converted.device, source.device)",
        f"self.assertIs(converted.to({d}), converted)  # already of the dtype: the tensor itself",
        f"self.assertEqual(converted.to({wide}).cpu().tolist(), source.cpu().tolist())",
    ]


def _quantized_lines(d: str, f: DtypeFacts) -> list[str]:
    z = f.zero_point
    reprs = (
        [round(v / 0.5) + z for v in (-1.0, 0.5, 2.5)]
        if f.storage != "torch.uint8"
        else [round(v / 0.5) + z for v in (0.0, 0.5, 2.5)]
    )
    values = "[-1.0, 0.5, 2.5]" if f.storage != "torch.uint8" else "[0.0, 0.5, 2.5]"
    return [
        "# quantized tensors are made on the CPU: quantize_per_tensor is not assumed on the device backend",
        f"source = torch.tensor({values})",
        f"q = torch.quantize_per_tensor(source, 0.5, {z}, {d})",
        f"self.assertIs(q.dtype, {d})",
        "self.assertTrue(q.is_quantized)",
        "self.assertEqual(q.q_scale(), 0.5)",
        f"self.assertEqual(q.q_zero_point(), {z})",
        f"self.assertIs(q.int_repr().dtype, {f.storage})",
        f"self.assertEqual(q.int_repr().tolist(), {reprs})",
        "self.assertEqual(q.dequantize().tolist(), source.tolist())",
        f"self.assertEqual(q.element_size(), {f.itemsize})",
    ]


def dtype_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    name = canonical_dtype(info)
    if not name:
        raise CannotDecide(f"{info.resolution.canonical} is no documented torch dtype")
    f = DTYPES[name]
    d = spelling_of(info.resolution)
    stem = d.rsplit(".", 1)[-1] + "_dtype"
    methods = [_method(f"test_{stem}_facts", _facts_lines(d, name, f))]
    if f.kind == "quantized":
        if f.storage:
            methods.append(_method(f"test_{stem}_quantize_per_tensor", _quantized_lines(d, f)))
    else:
        methods.append(_method(f"test_{stem}_tensor", _tensor_lines(d, f)))
        methods.append(_method(f"test_{stem}_to_round_trip", _round_trip_lines(d, f)))
    what = (
        "the documented facts of the dtype (canonical name, is_floating_point, is_complex, is_signed, itemsize, "
        "finfo/iinfo bits and limits)"
        + (
            ", a quantize_per_tensor round trip"
            if f.storage
            else ", a tensor of it on the device and its value conversion, to() round trips"
            if len(methods) > 1
            else ""
        )
    )
    return TestPlan(
        api=info.resolution.canonical,
        spelling=d,
        family="dtype",
        stem=stem,
        methods=tuple(methods),
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        uses_device=len(methods) > 1 and not f.storage,
        facts=facts,
    )
