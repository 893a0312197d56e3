"""TorchScript's type classes the ``jittype`` family tests (``torch._C.<leaf>``), and the lines of their tests.

A class is one of the ``get()`` singletons (``SINGLETONS``: ``SINGLETON_TEST``), a container of
one element type (``ELEMENT``: ``ELEMENT_TEST`` of ``{C}(int)``), or a class with tests of its own
only (``OWN_TESTS``). ``RELATIONS`` adds lines to a singleton's or container's test, ``OWN_TESTS``
adds tests, and ``SCRIPTED_TEST`` checks the type a scripted function's schema gives an argument
annotated as the class's annotation (``SCRIPTED`` for the classes of neither table).
``jittypes.py`` reads them.

In the lines ``{C}`` is the class as the test spells it, ``{leaf}`` its leaf, ``{text}`` its
``annotation_str`` and the names of ``SPELLINGS`` the type objects they stand for; ``DEVICE`` is
the device under test.
"""

from __future__ import annotations

#: the prefixes a type class is named under (``torch._C.IntType``, ``torch.IntType``)
PREFIXES = ("torch._C.", "torch.")
#: the base class of every TorchScript type
BASES = ("torch.Type", "torch._C.Type")

#: placeholder -> the type object it stands for in the lines below
SPELLINGS = {
    "J": "torch._C",
    "INT": "torch._C.IntType.get()",
    "FLOAT": "torch._C.FloatType.get()",
    "STR": "torch._C.StringType.get()",
    "NONE": "torch._C.NoneType.get()",
    "NUMBER": "torch._C.NumberType.get()",
}

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

#: the test of a singleton (``test_<leaf>_singleton``)
SINGLETON_TEST = (
    "t = {C}.get()",
    "self.assertIsInstance(t, {C})",
    "self.assertIsInstance(t, {J}.Type)",
    "self.assertEqual(t, {C}.get())  # one type object, whoever asks",
    'self.assertEqual(t.annotation_str, "{text}")',
    'self.assertEqual(str(t), "{text}")',
    'self.assertEqual(t.kind(), "{leaf}")',
    "self.assertEqual(t.containedTypes(), [])",
    "self.assertTrue(t.isSubtypeOf({J}.AnyType.get()))  # Any is above every type",
)
#: the test of a container of one element type (``test_<leaf>_element``)
ELEMENT_TEST = (
    "t = {C}({INT})",
    "self.assertIsInstance(t, {C})",
    "self.assertIsInstance(t, {J}.Type)",
    'self.assertEqual(t.annotation_str, "{text}")',
    'self.assertEqual(str(t), "{text}")',
    'self.assertEqual(t.kind(), "{leaf}")',
    "self.assertEqual(t.getElementType(), {INT})",
    "self.assertEqual(t.containedTypes(), [{INT}])",
    "self.assertEqual(t, {C}({INT}))  # equal by structure",
    "self.assertNotEqual(t, {C}({FLOAT}))",
)
#: a scripted function's schema gives its argument annotated ``{annotation}`` the type ``{expected}``
SCRIPTED_TEST = (
    'unit = torch.jit.CompilationUnit("def identity(x: {annotation}) -> {annotation}:\\n    return x\\n")',
    "schema = unit.identity.schema",
    "self.assertIsInstance(schema.arguments[0].type, {C})",
    "self.assertEqual(schema.arguments[0].type, {expected})",
    "self.assertEqual(schema.returns[0].type, {expected})",
)
#: the type a scripted function's argument gets: for a singleton, for a container of int
SINGLETON_EXPECTED = "{C}.get()"
ELEMENT_EXPECTED = "{C}({INT})"

#: a number type: under number and under its Optional
_NUMBER = (
    "self.assertTrue(t.isSubtypeOf({NUMBER}))",
    "self.assertFalse({NUMBER}.isSubtypeOf(t))",
    "self.assertTrue(t.isSubtypeOf({J}.OptionalType(t)))",
)

#: leaf -> the lines its singleton or element test adds (a container nested in itself; Optional[Optional[T]]
#: is Optional[T], so OptionalType has none)
RELATIONS: dict[str, tuple[str, ...]] = {
    "IntType": _NUMBER,
    "FloatType": _NUMBER,
    "NoneType": (
        "self.assertTrue(t.isSubtypeOf({J}.OptionalType({INT})))  # None fits every Optional",
        "self.assertFalse(t.isSubtypeOf({INT}))",
    ),
    "OptionalType": (
        "self.assertTrue({INT}.isSubtypeOf(t))",
        "self.assertTrue({NONE}.isSubtypeOf(t))",
        "self.assertFalse({FLOAT}.isSubtypeOf(t))",
        "self.assertEqual({C}.ofTensor().getElementType(), {J}.TensorType.get())",
    ),
    "ListType": (
        'self.assertEqual(str({C}({C}({STR}))), "List[List[str]]")',
        "self.assertEqual({C}.ofInts(), t)",
        "self.assertEqual({C}.ofTensors().getElementType(), {J}.TensorType.get())",
        "self.assertFalse(t.isSubtypeOf({C}({NUMBER})))  # lists are invariant",
        "self.assertTrue(t.isSubtypeOf({C}({INT})))",
    ),
    "FutureType": ('self.assertEqual(str({C}({C}({STR}))), "Future[Future[str]]")',),
    "AwaitType": ('self.assertEqual(str({C}({C}({STR}))), "Await[Await[str]]")',),
    "RRefType": ('self.assertEqual(str({C}({C}({STR}))), "RRef[RRef[str]]")',),
}

#: leaf -> its tests besides the singleton or element test: test-name suffix -> lines
OWN_TESTS: dict[str, dict[str, tuple[str, ...]]] = {
    "TensorType": {
        "from_tensor": (
            "tensor = torch.ones(2, 3, device=DEVICE)",
            "t = {C}.create_from_tensor(tensor)",
            "self.assertIsInstance(t, {C})",
            "self.assertEqual(t.sizes(), [2, 3])",
            "self.assertEqual(t.dim(), 2)",
            "self.assertEqual(t.dtype(), torch.float32)",
            'self.assertEqual(t.scalarType(), "Float")',
            "self.assertEqual(t.device().type, DEVICE.type)",
            "self.assertTrue(t.isSubtypeOf({C}.get()))  # a complete tensor type under the plain Tensor",
            "self.assertNotEqual(t, {C}.get())",
        ),
    },
    "TupleType": {
        "elements": (
            "t = {C}([{INT}, {FLOAT}])",
            "self.assertIsInstance(t, {C})",
            'self.assertEqual(t.annotation_str, "Tuple[int, float]")',
            'self.assertEqual(str(t), "Tuple[int, float]")',
            'self.assertEqual(t.kind(), "{leaf}")',
            "self.assertEqual(t.elements(), [{INT}, {FLOAT}])",
            "self.assertEqual(t.containedTypes(), [{INT}, {FLOAT}])",
            "self.assertEqual(t, {C}([{INT}, {FLOAT}]))",
            "self.assertNotEqual(t, {C}([{FLOAT}, {INT}]))  # order matters",
            "self.assertTrue({C}([{INT}]).isSubtypeOf({C}([{NUMBER}])))  # tuples are covariant",
            'self.assertEqual(str({C}([])), "Tuple[()]")',
        ),
    },
    "DictType": {
        "key_value": (
            "t = {C}({STR}, {INT})",
            "self.assertIsInstance(t, {C})",
            'self.assertEqual(t.annotation_str, "Dict[str, int]")',
            'self.assertEqual(t.kind(), "{leaf}")',
            "self.assertEqual(t.getKeyType(), {STR})",
            "self.assertEqual(t.getValueType(), {INT})",
            "self.assertEqual(t.containedTypes(), [{STR}, {INT}])",
            "self.assertNotEqual(t, {C}({STR}, {FLOAT}))",
        ),
    },
    "UnionType": {
        "members": (
            "t = {C}([{INT}, {STR}])",
            "self.assertIsInstance(t, {C})",
            'self.assertEqual(t.annotation_str, "Union[int, str]")',
            'self.assertEqual(t.kind(), "{leaf}")',
            "self.assertEqual(t.containedTypes(), [{INT}, {STR}])",
            "self.assertTrue({INT}.isSubtypeOf(t))",
            "self.assertTrue({STR}.isSubtypeOf(t))",
            "self.assertFalse({FLOAT}.isSubtypeOf(t))",
        ),
    },
    # the abstract base: through its subclasses
    "Type": {
        "subclasses": (
            "made = [{INT}, {J}.TensorType.get(), {J}.OptionalType({INT}), {J}.ListType.ofInts(),"
            " {J}.TupleType([{INT}]), {J}.DictType({STR}, {INT})]",
            "for t in made:",
            "    self.assertIsInstance(t, {C})",
            "self.assertTrue(issubclass({J}.OptionalType, {C}))",
            "self.assertNotIsInstance(torch.int32, {C})  # a dtype is no TorchScript type",
            "self.assertNotIsInstance(int, {C})",
            "with self.assertRaises(TypeError):  # abstract: no constructor of its own",
            "    {C}()",
        ),
        "members": (
            "# its members, read through the base class, on subclass instances",
            'self.assertEqual({C}.kind({J}.ListType.ofInts()), "ListType")',
            'self.assertEqual({C}.str({J}.OptionalType({INT})), "int?")',
            'self.assertEqual({C}.annotation_str.__get__({J}.OptionalType({INT})), "Optional[int]")',
            "self.assertEqual({C}.containedTypes({J}.DictType({STR}, {INT})), [{STR}, {INT}])",
            "self.assertTrue({C}.isSubtypeOf({INT}, {NUMBER}))",
            "self.assertFalse({C}.isSubtypeOf({NUMBER}, {INT}))",
        ),
        "scripted": (
            'unit = torch.jit.CompilationUnit("def first(x: List[int], y: Optional[Tensor]) -> int:\\n    return x[0]\\n")',
            "schema = unit.first.schema",
            "for argument in schema.arguments:",
            "    self.assertIsInstance(argument.type, {C})",
            'self.assertEqual([a.type.annotation_str for a in schema.arguments], ["List[int]", "Optional[Tensor]"])',
            "self.assertEqual(schema.returns[0].type, {INT})",
        ),
    },
}

#: leaf -> (the annotation of a scripted function's argument, the type it gets), for the classes with
#: tests of their own only
SCRIPTED = {
    "TupleType": ("Tuple[int, float]", "{C}([{INT}, {FLOAT}])"),
    "DictType": ("Dict[str, int]", "{C}({STR}, {INT})"),
    "UnionType": ("Union[int, str]", "{C}([{INT}, {STR}])"),
}

#: leaf -> the invalid-input row of its coverage
INVALID = {"Type": "抽象基类不可构造"}
