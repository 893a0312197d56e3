"""The ``typeobject`` family: the classes of torch's tensor attributes (``torch.dtype``, ``torch.device``, ...).

``torch.dtype``, ``torch.device``, ``torch.layout``, ``torch.memory_format``,
``torch.finfo`` and ``torch.iinfo`` are documented in "Tensor Attributes" and
"Type Info"; their tests assert those documented facts, not a second run of
the class: which values are instances of it (a tensor's ``dtype``, ``device``,
``layout``), how a device string parses (type, index, ``str``, equality) and
what a ``with torch.device(...)`` block makes, the strides ``channels_last``
gives, the limits of ``finfo``/``iinfo`` (``eps`` of float32 is 2**-23, int8
holds -128..127). Every assertion reads the class, so a stand-in in its place
fails each test.
"""

from __future__ import annotations

from collections.abc import Callable

from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method as _method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of
from .recipes.typeobjects import TYPE_OBJECTS


def _dtype(C: str) -> dict[str, list[str]]:
    return {
        "instances": [
            "tensor = torch.tensor([1.0, 2.0], device=DEVICE)",
            f"self.assertIsInstance(tensor.dtype, {C})",
            f"self.assertIsInstance(torch.get_default_dtype(), {C})",
            "for dtype in (torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.uint8, torch.bool,"
            " torch.complex64):",
            f"    self.assertIsInstance(dtype, {C})",
            f"    self.assertIs(type(dtype), {C})",
            f"self.assertIs(type(tensor.to(torch.int32).dtype), {C})",
            "self.assertNotIsInstance(torch.float32, torch.device)",
            f'self.assertNotIsInstance("float32", {C})',
        ],
        "properties": [
            "# the class's own descriptors, read through it, give the documented values",
            f"self.assertEqual({C}.itemsize.__get__(torch.int16), 2)",
            f"self.assertEqual({C}.itemsize.__get__(torch.float64), 8)",
            f"self.assertTrue({C}.is_floating_point.__get__(torch.bfloat16))",
            f"self.assertFalse({C}.is_floating_point.__get__(torch.int32))",
            f"self.assertTrue({C}.is_complex.__get__(torch.complex128))",
            f"self.assertFalse({C}.is_signed.__get__(torch.uint8))",
            f"self.assertTrue({C}.is_signed.__get__(torch.int8))",
        ],
        "not_constructible": [
            "with self.assertRaises(TypeError):  # dtypes are fixed objects, not made by calling the class",
            f"    {C}()",
        ],
    }


def _device(C: str) -> dict[str, list[str]]:
    return {
        "parse": [
            f'plain = {C}("cpu")',
            'self.assertEqual(plain.type, "cpu")',
            "self.assertIsNone(plain.index)",
            'self.assertEqual(str(plain), "cpu")',
            f'indexed = {C}("cpu", 0)',
            "self.assertEqual(indexed.index, 0)",
            'self.assertEqual(str(indexed), "cpu:0")',
            f'self.assertEqual({C}("cpu:0"), indexed)',
            f'self.assertNotEqual({C}("cpu"), indexed)  # an index makes a different device',
            f'self.assertEqual(hash({C}("cpu:0")), hash(indexed))',
            f"self.assertEqual({C}(DEVICE.type, 1).index, 1)",
            f"self.assertEqual({C}(DEVICE.type, 1).type, DEVICE.type)",
        ],
        "invalid": [
            "with self.assertRaises(RuntimeError):  # not a device type torch knows",
            f'    {C}("no_such_device_type")',
            "with self.assertRaises(RuntimeError):  # a negative index is refused",
            f'    {C}("cpu", -1)',
        ],
        "tensors": [
            f"made = torch.ones(3, device={C}(DEVICE.type))",
            f"self.assertIsInstance(made.device, {C})",
            "self.assertEqual(made.device.type, DEVICE.type)",
            f"with {C}(DEVICE.type):  # a device used as a context makes factories' default device",
            "    inside = torch.zeros(2)",
            "self.assertEqual(inside.device.type, DEVICE.type)",
            'self.assertEqual(torch.zeros(2).device.type, "cpu")  # and only inside the block',
            "self.assertEqual(inside.cpu().tolist(), [0.0, 0.0])",
        ],
    }


def _layout(C: str) -> dict[str, list[str]]:
    return {
        "instances": [
            "tensor = torch.ones(2, 3, device=DEVICE)",
            f"self.assertIsInstance(tensor.layout, {C})",
            "self.assertIs(tensor.layout, torch.strided)",
            "layouts = (torch.strided, torch.sparse_coo, torch.sparse_csr, torch.sparse_csc, torch._mkldnn)",
            "for layout in layouts:",
            f"    self.assertIs(type(layout), {C})",
            'self.assertEqual(str(torch.sparse_coo), "torch.sparse_coo")',
            f"self.assertNotIsInstance(torch.float32, {C})",
        ],
        "sparse": [
            "# sparse layouts are made on the CPU: a device backend may have no sparse kernels",
            "dense = torch.tensor([[0.0, 2.0], [3.0, 0.0]])",
            "coo = dense.to_sparse()",
            f"self.assertIsInstance(coo.layout, {C})",
            "self.assertIs(coo.layout, torch.sparse_coo)",
            "self.assertEqual(coo.to_dense().tolist(), [[0.0, 2.0], [3.0, 0.0]])",
            "self.assertIs(dense.to_sparse_csr().layout, torch.sparse_csr)",
        ],
    }


def _memory_format(C: str) -> dict[str, list[str]]:
    return {
        "instances": [
            "for fmt in (torch.contiguous_format, torch.channels_last, torch.channels_last_3d,"
            " torch.preserve_format):",
            f"    self.assertIs(type(fmt), {C})",
            f"self.assertNotIsInstance(torch.strided, {C})",
            'self.assertEqual(str(torch.channels_last), "torch.channels_last")',
        ],
        "strides": [
            "x = torch.arange(12.0, device=DEVICE).reshape(1, 2, 3, 2)",
            "self.assertEqual(x.stride(), (12, 6, 2, 1))",
            f"self.assertIsInstance(torch.channels_last, {C})",
            "last = x.contiguous(memory_format=torch.channels_last)",
            "self.assertEqual(last.stride(), (12, 1, 4, 2))  # N, C, H, W strides of NHWC storage: H*W*C, 1, W*C, C",
            "self.assertTrue(last.is_contiguous(memory_format=torch.channels_last))",
            "self.assertFalse(last.is_contiguous())",
            "self.assertEqual(last.cpu().tolist(), x.cpu().tolist())  # same values, other order in memory",
            "self.assertEqual(last.device.type, DEVICE.type)",
        ],
    }


def _finfo(C: str) -> dict[str, list[str]]:
    return {
        "float32": [
            f"info = {C}(torch.float32)",
            "self.assertEqual(info.bits, 32)",
            "self.assertEqual(info.eps, 2.0 ** -23, atol=0, rtol=0)",
            "self.assertEqual(info.tiny, 2.0 ** -126, atol=0, rtol=0)",
            "self.assertEqual(info.smallest_normal, 2.0 ** -126, atol=0, rtol=0)",
            "self.assertEqual(info.max, (2 - 2.0 ** -23) * 2.0 ** 127, atol=0, rtol=0)",
            "self.assertEqual(info.min, -info.max, atol=0, rtol=0)",
            "self.assertEqual(info.resolution, 1e-06, atol=0, rtol=0)",
            'self.assertEqual(info.dtype, "float32")',
        ],
        "other_types": [
            f"self.assertEqual({C}(torch.float16).max, 65504.0, atol=0, rtol=0)",
            f"self.assertEqual({C}(torch.float16).eps, 2.0 ** -10, atol=0, rtol=0)",
            f"self.assertEqual({C}(torch.bfloat16).eps, 2.0 ** -7, atol=0, rtol=0)",
            f"self.assertEqual({C}(torch.float64).eps, 2.0 ** -52, atol=0, rtol=0)",
            f"self.assertEqual({C}(torch.complex64).bits, 32)  # a complex type's parts",
            f"self.assertEqual({C}().bits, {C}(torch.get_default_dtype()).bits)  # no argument: the default dtype",
            "with self.assertRaises(TypeError):  # integer types have iinfo, not finfo",
            f"    {C}(torch.int32)",
        ],
        "device_values": [
            f"eps = {C}(torch.float32).eps",
            "one = torch.ones(1, dtype=torch.float32, device=DEVICE)",
            "self.assertGreater((one + eps).item(), 1.0)  # eps: the gap from 1.0 to the next float32",
            "self.assertEqual((one + eps / 4).item(), 1.0, atol=0, rtol=0)  # a quarter of it rounds back to 1.0",
        ],
    }


def _iinfo(C: str) -> dict[str, list[str]]:
    return {
        "limits": [
            f"info = {C}(torch.int8)",
            "self.assertEqual((info.bits, info.min, info.max), (8, -128, 127))",
            'self.assertEqual(info.dtype, "int8")',
            f"self.assertEqual(({C}(torch.uint8).min, {C}(torch.uint8).max), (0, 255))",
            f"self.assertEqual({C}(torch.int16).max, 2 ** 15 - 1)",
            f"self.assertEqual({C}(torch.int32).min, -2 ** 31)",
            f"self.assertEqual({C}(torch.int64).max, 2 ** 63 - 1)",
            "with self.assertRaises(TypeError):  # floating types have finfo, not iinfo",
            f"    {C}(torch.float32)",
        ],
        "device_values": [
            f"top = {C}(torch.int32).max",
            "x = torch.tensor([top], dtype=torch.int32, device=DEVICE)",
            "self.assertEqual(x.item(), 2147483647)",
            f"self.assertEqual((x - 1).item(), {C}(torch.int32).max - 1)",
        ],
    }


#: the writer of each class's tests, by the name its recipe gives
WRITERS: dict[str, Callable[[str], dict[str, list[str]]]] = {
    "dtype": _dtype,
    "device": _device,
    "layout": _layout,
    "memory_format": _memory_format,
    "finfo": _finfo,
    "iinfo": _iinfo,
}


def type_object(info: ApiInfo) -> str:
    """The canonical name of the attribute class the API is, or ""."""
    r = info.resolution
    if r.kind not in ("class", "context-manager"):  # torch.device is a context manager too
        return ""
    for name in (r.canonical, r.path, *r.aliases):
        if name in TYPE_OBJECTS:
            return name
    return ""


def typeobject_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    name = type_object(info)
    if not name:
        raise CannotDecide(
            f"{info.resolution.canonical} is none of torch's tensor-attribute classes"
        )
    writer, what, uses_device = TYPE_OBJECTS[name]
    C = spelling_of(info.resolution)
    stem = C.rsplit(".", 1)[-1]
    methods = tuple(
        _method(f"test_{stem}_{suffix}", lines) for suffix, lines in WRITERS[writer](C).items()
    )
    return TestPlan(
        api=info.resolution.canonical,
        spelling=C,
        family="typeobject",
        stem=stem,
        methods=methods,
        summary=f"the documented facts of {C}: {what}.",
        coverage=coverage_rows(normal=what),
        uses_device=uses_device,
        facts=facts,
    )
