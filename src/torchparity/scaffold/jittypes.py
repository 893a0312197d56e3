"""The ``jittype`` family: TorchScript's type classes in ``torch._C`` (``Type`` and its subclasses).

``torch._C.Type`` is the base of the types TorchScript reads annotations into
(``IntType``, ``TensorType``, ``OptionalType``, ``ListType``, ``TupleType``,
``DictType``, ``UnionType``, ``FutureType``, ...). Their tests hold the facts
of TorchScript's type system, compared exactly, never a second run: the
singleton a ``get()`` returns, ``annotation_str``/``str()``/``kind()``, the
element types of a container type, equality, ``isSubtypeOf`` (``int`` under
``number`` and ``Optional[int]``, ``None`` under ``Optional[int]``, lists
invariant, tuples covariant), and the type a scripted function's schema gives
its annotated argument. ``TensorType.create_from_tensor`` of a device tensor
gives its sizes, dtype and device. ``Type`` is abstract: it is tested through
its subclasses (instances, members read through the base, no constructor).
"""

from __future__ import annotations

from typing import Any

from ..api.records import ApiInfo
from .operators import lines_method
from .plan import CannotDecide, TestPlan, coverage_rows, snake, spelling_of

J = "torch._C"
#: the ``get()`` singletons: leaf -> (annotation_str, the annotation a scripted function spells it with)
SINGLETONS = {
    "IntType": ("int", "int"),
    "FloatType": ("float", "float"),
    "BoolType": ("bool", "bool"),
    "StringType": ("str", "str"),
    "ComplexType": ("complex", "complex"),
    "NoneType": ("NoneType", ""),
    "NumberType": ("number", ""),
    "AnyType": ("Any", "Any"),
    "TensorType": ("Tensor", "Tensor"),
    "DeviceObjType": ("Device", "Device"),
    "StreamObjType": ("Stream", ""),
    "PyObjectType": ("PyObject", ""),
    "SymIntType": ("int", ""),
    "SymBoolType": ("bool", ""),
}
#: containers of one element type: leaf -> (its annotation_str of int, a scripted spelling of it)
ELEMENT = {
    "OptionalType": ("Optional[int]", "Optional[int]"),
    "ListType": ("List[int]", "List[int]"),
    "FutureType": ("Future[int]", ""),
    "AwaitType": ("Await[int]", ""),
    "RRefType": ("RRef[int]", ""),
}
OTHERS = ("Type", "TupleType", "DictType", "UnionType")
INT, FLOAT, STR, NONE, NUMBER = (
    f"{J}.IntType.get()",
    f"{J}.FloatType.get()",
    f"{J}.StringType.get()",
    f"{J}.NoneType.get()",
    f"{J}.NumberType.get()",
)


def jit_type_leaf(info: ApiInfo) -> str:
    """The leaf (``OptionalType``) when the API is one of TorchScript's type classes, else ""."""
    r = info.resolution
    if r.kind != "class":
        return ""
    for name in (r.canonical, r.path, *r.aliases):
        for prefix in ("torch._C.", "torch."):
            leaf = name[len(prefix) :] if name.startswith(prefix) else ""
            if leaf in SINGLETONS or leaf in ELEMENT or leaf in OTHERS:
                return leaf
    return ""


def _scripted(annotation: str, C: str, expected: str) -> list[str]:
    """A scripted function's schema gives its annotated argument the type."""
    return [
        f'unit = torch.jit.CompilationUnit("def identity(x: {annotation}) -> {annotation}:\\n    return x\\n")',
        "schema = unit.identity.schema",
        f"self.assertIsInstance(schema.arguments[0].type, {C})",
        f"self.assertEqual(schema.arguments[0].type, {expected})",
        f"self.assertEqual(schema.returns[0].type, {expected})",
    ]


def _singleton(leaf: str, C: str) -> dict[str, list[str]]:
    text, annotation = SINGLETONS[leaf]
    tests = {
        "singleton": [
            "t = " + C + ".get()",
            f"self.assertIsInstance(t, {C})",
            f"self.assertIsInstance(t, {J}.Type)",
            f"self.assertEqual(t, {C}.get())  # one type object, whoever asks",
            f'self.assertEqual(t.annotation_str, "{text}")',
            f'self.assertEqual(str(t), "{text}")',
            f'self.assertEqual(t.kind(), "{leaf}")',
            "self.assertEqual(t.containedTypes(), [])",
            f"self.assertTrue(t.isSubtypeOf({J}.AnyType.get()))  # Any is above every type",
        ]
    }
    rel = tests["singleton"]
    if leaf in ("IntType", "FloatType"):
        rel += [
            f"self.assertTrue(t.isSubtypeOf({NUMBER}))",
            f"self.assertFalse({NUMBER}.isSubtypeOf(t))",
            f"self.assertTrue(t.isSubtypeOf({J}.OptionalType(t)))",
        ]
    if leaf == "NoneType":
        rel += [
            f"self.assertTrue(t.isSubtypeOf({J}.OptionalType({INT})))  # None fits every Optional",
            f"self.assertFalse(t.isSubtypeOf({INT}))",
        ]
    if leaf == "TensorType":
        tests["from_tensor"] = [
            "tensor = torch.ones(2, 3, device=DEVICE)",
            f"t = {C}.create_from_tensor(tensor)",
            f"self.assertIsInstance(t, {C})",
            "self.assertEqual(t.sizes(), [2, 3])",
            "self.assertEqual(t.dim(), 2)",
            "self.assertEqual(t.dtype(), torch.float32)",
            'self.assertEqual(t.scalarType(), "Float")',
            "self.assertEqual(t.device().type, DEVICE.type)",
            f"self.assertTrue(t.isSubtypeOf({C}.get()))  # a complete tensor type under the plain Tensor",
            f"self.assertNotEqual(t, {C}.get())",
        ]
    if annotation:
        tests["scripted"] = _scripted(annotation, C, f"{C}.get()")
    return tests


def _element(leaf: str, C: str) -> dict[str, list[str]]:
    text, annotation = ELEMENT[leaf]
    tests = {
        "element": [
            f"t = {C}({INT})",
            f"self.assertIsInstance(t, {C})",
            f"self.assertIsInstance(t, {J}.Type)",
            f'self.assertEqual(t.annotation_str, "{text}")',
            f'self.assertEqual(str(t), "{text}")',
            f'self.assertEqual(t.kind(), "{leaf}")',
            f"self.assertEqual(t.getElementType(), {INT})",
            f"self.assertEqual(t.containedTypes(), [{INT}])",
            f"self.assertEqual(t, {C}({INT}))  # equal by structure",
            f"self.assertNotEqual(t, {C}({FLOAT}))",
        ]
    }
    if leaf != "OptionalType":  # Optional[Optional[T]] is Optional[T]
        outer = text.split("[")[0]
        tests["element"].append(f'self.assertEqual(str({C}({C}({STR}))), "{outer}[{outer}[str]]")')
    rel = tests["element"]
    if leaf == "OptionalType":
        rel += [
            f"self.assertTrue({INT}.isSubtypeOf(t))",
            f"self.assertTrue({NONE}.isSubtypeOf(t))",
            f"self.assertFalse({FLOAT}.isSubtypeOf(t))",
            f"self.assertEqual({C}.ofTensor().getElementType(), {J}.TensorType.get())",
        ]
    if leaf == "ListType":
        rel += [
            f"self.assertEqual({C}.ofInts(), t)",
            f"self.assertEqual({C}.ofTensors().getElementType(), {J}.TensorType.get())",
            f"self.assertFalse(t.isSubtypeOf({C}({NUMBER})))  # lists are invariant",
            f"self.assertTrue(t.isSubtypeOf({C}({INT})))",
        ]
    if annotation:
        tests["scripted"] = _scripted(annotation, C, f"{C}({INT})")
    return tests


def _other(leaf: str, C: str) -> dict[str, list[str]]:
    if leaf == "TupleType":
        return {
            "elements": [
                f"t = {C}([{INT}, {FLOAT}])",
                f"self.assertIsInstance(t, {C})",
                'self.assertEqual(t.annotation_str, "Tuple[int, float]")',
                'self.assertEqual(str(t), "Tuple[int, float]")',
                f'self.assertEqual(t.kind(), "{leaf}")',
                f"self.assertEqual(t.elements(), [{INT}, {FLOAT}])",
                f"self.assertEqual(t.containedTypes(), [{INT}, {FLOAT}])",
                f"self.assertEqual(t, {C}([{INT}, {FLOAT}]))",
                f"self.assertNotEqual(t, {C}([{FLOAT}, {INT}]))  # order matters",
                f"self.assertTrue({C}([{INT}]).isSubtypeOf({C}([{NUMBER}])))  # tuples are covariant",
                f'self.assertEqual(str({C}([])), "Tuple[()]")',
            ],
            "scripted": _scripted("Tuple[int, float]", C, f"{C}([{INT}, {FLOAT}])"),
        }
    if leaf == "DictType":
        return {
            "key_value": [
                f"t = {C}({STR}, {INT})",
                f"self.assertIsInstance(t, {C})",
                'self.assertEqual(t.annotation_str, "Dict[str, int]")',
                f'self.assertEqual(t.kind(), "{leaf}")',
                f"self.assertEqual(t.getKeyType(), {STR})",
                f"self.assertEqual(t.getValueType(), {INT})",
                f"self.assertEqual(t.containedTypes(), [{STR}, {INT}])",
                f"self.assertNotEqual(t, {C}({STR}, {FLOAT}))",
            ],
            "scripted": _scripted("Dict[str, int]", C, f"{C}({STR}, {INT})"),
        }
    if leaf == "UnionType":
        return {
            "members": [
                f"t = {C}([{INT}, {STR}])",
                f"self.assertIsInstance(t, {C})",
                'self.assertEqual(t.annotation_str, "Union[int, str]")',
                f'self.assertEqual(t.kind(), "{leaf}")',
                f"self.assertEqual(t.containedTypes(), [{INT}, {STR}])",
                f"self.assertTrue({INT}.isSubtypeOf(t))",
                f"self.assertTrue({STR}.isSubtypeOf(t))",
                f"self.assertFalse({FLOAT}.isSubtypeOf(t))",
            ],
            "scripted": _scripted("Union[int, str]", C, f"{C}([{INT}, {STR}])"),
        }
    # the abstract base: through its subclasses
    return {
        "subclasses": [
            f"made = [{INT}, {J}.TensorType.get(), {J}.OptionalType({INT}), {J}.ListType.ofInts(),"
            f" {J}.TupleType([{INT}]), {J}.DictType({STR}, {INT})]",
            "for t in made:",
            f"    self.assertIsInstance(t, {C})",
            f"self.assertTrue(issubclass({J}.OptionalType, {C}))",
            f"self.assertNotIsInstance(torch.int32, {C})  # a dtype is no TorchScript type",
            f"self.assertNotIsInstance(int, {C})",
            "with self.assertRaises(TypeError):  # abstract: no constructor of its own",
            f"    {C}()",
        ],
        "members": [
            "# its members, read through the base class, on subclass instances",
            f'self.assertEqual({C}.kind({J}.ListType.ofInts()), "ListType")',
            f'self.assertEqual({C}.str({J}.OptionalType({INT})), "int?")',
            f'self.assertEqual({C}.annotation_str.__get__({J}.OptionalType({INT})), "Optional[int]")',
            f"self.assertEqual({C}.containedTypes({J}.DictType({STR}, {INT})), [{STR}, {INT}])",
            f"self.assertTrue({C}.isSubtypeOf({INT}, {NUMBER}))",
            f"self.assertFalse({C}.isSubtypeOf({NUMBER}, {INT}))",
        ],
        "scripted": [
            'unit = torch.jit.CompilationUnit("def first(x: List[int], y: Optional[Tensor]) -> int:\\n    return x[0]\\n")',
            "schema = unit.first.schema",
            "for argument in schema.arguments:",
            f"    self.assertIsInstance(argument.type, {C})",
            'self.assertEqual([a.type.annotation_str for a in schema.arguments], ["List[int]", "Optional[Tensor]"])',
            f"self.assertEqual(schema.returns[0].type, {INT})",
        ],
    }


def jittype_plan(info: ApiInfo, facts: dict[str, Any], device: str) -> TestPlan:
    leaf = jit_type_leaf(info)
    if not leaf:
        raise CannotDecide(f"{info.resolution.canonical} is none of TorchScript's type classes")
    mro = [str(c) for c in (facts.get("classes") or {}).get("api") or []]
    if mro and "torch.Type" not in mro and f"{J}.Type" not in mro:
        raise CannotDecide(f"{info.resolution.canonical} does not derive from {J}.Type here")
    C = spelling_of(info.resolution)
    if leaf in SINGLETONS:
        tests = _singleton(leaf, C)
    elif leaf in ELEMENT:
        tests = _element(leaf, C)
    else:
        tests = _other(leaf, C)
    stem = snake(leaf)
    methods = tuple(
        lines_method(f"test_{stem}_{suffix}", [line.replace("DEVICE", device) for line in lines])
        for suffix, lines in tests.items()
    )
    what = (
        "TorchScript's documented facts of the type compared exactly: annotation_str, str, kind, element "
        "types, equality, isSubtypeOf, and the type a scripted function's schema gives its argument"
    )
    return TestPlan(
        api=info.resolution.canonical,
        spelling=C,
        family="jittype",
        stem=stem,
        methods=methods,
        summary=what + ".",
        coverage=coverage_rows(
            normal=what,
            boundary="子类型关系（Any、number、Optional、List 不变、Tuple 协变）",
            invalid="抽象基类不可构造" if leaf == "Type" else "",
        ),
        uses_device=leaf == "TensorType",
        facts=facts,
    )
