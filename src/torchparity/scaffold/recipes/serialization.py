"""The serialization family's recipes: the names it takes, the storages whose members it tests, and
the lines that test each member.

``MEMBERS[leaf]`` holds the lines of the test of a storage's ``leaf`` after the storage under test
(``target``, holding ``values``) is made on the device; ``{C}`` is the storage class as the test
spells it, ``{device}`` the test's device, and ``STORAGES`` says what the other placeholders read
for a typed storage (float32 values) and an untyped one (bytes); ``{{``/``}}`` are braces of the
test's own code.
"""

#: what the family takes: everything under these modules, and these names
MODULES = ("torch.serialization",)
ENTRY_POINTS = ("torch.save", "torch.load")
#: save and load, by their names (the test calls the one under test as spelled)
SAVE = ("torch.serialization.save", "torch.save")
LOAD = ("torch.serialization.load", "torch.load")
#: the storage classes whose members the family tests
UNTYPED = ("torch.storage.UntypedStorage", "torch.UntypedStorage")
TYPED = ("torch.storage.TypedStorage",)
#: what a member's lines read of the storage under test, typed or not
STORAGES: dict[bool, dict[str, str]] = {
    True: {"dtype": "torch.float32", "element_size": "4", "values_dtype": ""},
    False: {"dtype": "torch.uint8", "element_size": "1", "values_dtype": ", dtype=torch.uint8"},
}
#: storage members with a focused test: its lines
MEMBERS: dict[str, tuple[str, ...]] = {
    "cpu": (
        "result = {C}.cpu(target)",
        'self.assertEqual(result.device.type, "cpu")',
        "self.assertEqual(result.tolist(), values)",
    ),
    "to": (
        'result = {C}.to(target, device="cpu")',
        'self.assertEqual(result.device.type, "cpu")',
        "self.assertEqual(result.tolist(), values)",
        "back = {C}.to(result, device={device})",
        "self.assertEqual(back.device.type, {device}.type)",
        "self.assertEqual(back.tolist(), values)",
    ),
    "clone": (
        "result = {C}.clone(target)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.tolist(), values)",
        "self.assertNotEqual(result.data_ptr(), target.data_ptr())",
        "result.fill_(0)",
        "self.assertEqual(target.tolist(), values)",
    ),
    "copy_": (
        "result = target.clone()",
        "result.fill_(0)",
        "returned = {C}.copy_(result, target)",
        "self.assertIs(returned, result)",
        "self.assertEqual(result.tolist(), values)",
        "self.assertEqual(result.device.type, {device}.type)",
        "cpu_copy = target.cpu().clone()",
        "cpu_copy.fill_(0)",
        "{C}.copy_(cpu_copy, target)",
        "self.assertEqual(cpu_copy.tolist(), values)",
    ),
    "tolist": (
        "self.assertEqual({C}.tolist(target), values)",
        "self.assertEqual({C}.tolist(target.cpu()), values)",
    ),
    "fill_": (
        "returned = {C}.fill_(target, 7)",
        "self.assertIs(returned, target)",
        "self.assertEqual(target.tolist(), [7] * 4)",
        "self.assertEqual(target.device.type, {device}.type)",
    ),
    "type": ('self.assertIn("Storage", {C}.type(target))',),
    "untyped": (
        "result = {C}.untyped(target)",
        "self.assertIsInstance(result, torch.UntypedStorage)",
        "self.assertEqual(result.nbytes(), 4 * target.element_size())",
        "self.assertEqual(result.device.type, {device}.type)",
    ),
    "nbytes": ("self.assertEqual({C}.nbytes(target), 4 * target.element_size())",),
    "size": ("self.assertEqual({C}.size(target), 4)",),
    "element_size": (
        "self.assertEqual({C}.element_size(target), target.element_size())",
        "self.assertEqual({C}.element_size(target), {element_size})",
    ),
    "__len__": ("self.assertEqual({C}.__len__(target), 4)",),
    "device": (
        "self.assertEqual(target.device.type, {device}.type)",
        'self.assertEqual(target.cpu().device.type, "cpu")',
    ),
    "dtype": ("self.assertEqual(target.dtype, {dtype})",),
    "is_cuda": (
        'self.assertEqual(target.is_cuda, {device}.type == "cuda")',
        "self.assertFalse(target.cpu().is_cuda)",
    ),
    "is_sparse": ("self.assertIs(target.is_sparse, False)",),
    "is_pinned": ("self.assertFalse({C}.is_pinned(target.cpu()))",),
    "data_ptr": (
        "self.assertEqual({C}.data_ptr(target), storage.data_ptr())",
        "self.assertNotEqual({C}.data_ptr(target), 0)",
        "self.assertNotEqual({C}.data_ptr(target.clone()), {C}.data_ptr(target))",
    ),
    "resize_": (
        "grown = target.clone()",
        "{C}.resize_(grown, 6)",
        "self.assertEqual(grown.size(), 6)",
        "self.assertEqual(grown.tolist()[:4], values)",
        "self.assertEqual(grown.device.type, {device}.type)",
    ),
    "float": (
        "result = {C}.float(target)",
        "self.assertEqual(result.dtype, torch.float32)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.size(), 4)",
        "self.assertEqual(result.tolist(), torch.tensor(values{values_dtype}).to(torch.float32).tolist())",
    ),
    "double": (
        "result = {C}.double(target)",
        "self.assertEqual(result.dtype, torch.float64)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.size(), 4)",
        "self.assertEqual(result.tolist(), torch.tensor(values{values_dtype}).to(torch.float64).tolist())",
    ),
    "half": (
        "result = {C}.half(target)",
        "self.assertEqual(result.dtype, torch.float16)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.size(), 4)",
        "self.assertEqual(result.tolist(), torch.tensor(values{values_dtype}).to(torch.float16).tolist())",
    ),
    "int": (
        "result = {C}.int(target)",
        "self.assertEqual(result.dtype, torch.int32)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.size(), 4)",
        "self.assertEqual(result.tolist(), torch.tensor(values{values_dtype}).to(torch.int32).tolist())",
    ),
    "long": (
        "result = {C}.long(target)",
        "self.assertEqual(result.dtype, torch.int64)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.size(), 4)",
        "self.assertEqual(result.tolist(), torch.tensor(values{values_dtype}).to(torch.int64).tolist())",
    ),
    "short": (
        "result = {C}.short(target)",
        "self.assertEqual(result.dtype, torch.int16)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.size(), 4)",
        "self.assertEqual(result.tolist(), torch.tensor(values{values_dtype}).to(torch.int16).tolist())",
    ),
    "char": (
        "result = {C}.char(target)",
        "self.assertEqual(result.dtype, torch.int8)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.size(), 4)",
        "self.assertEqual(result.tolist(), torch.tensor(values{values_dtype}).to(torch.int8).tolist())",
    ),
    "byte": (
        "result = {C}.byte(target)",
        "self.assertEqual(result.dtype, torch.uint8)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.size(), 4)",
        "self.assertEqual(result.tolist(), torch.tensor(values{values_dtype}).to(torch.uint8).tolist())",
    ),
    "bool": (
        "result = {C}.bool(target)",
        "self.assertEqual(result.dtype, torch.bool)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.size(), 4)",
        "self.assertEqual(result.tolist(), torch.tensor(values{values_dtype}).to(torch.bool).tolist())",
    ),
    "bfloat16": (
        "result = {C}.bfloat16(target)",
        "self.assertEqual(result.dtype, torch.bfloat16)",
        "self.assertEqual(result.device.type, {device}.type)",
        "self.assertEqual(result.size(), 4)",
        "self.assertEqual(result.tolist(), torch.tensor(values{values_dtype}).to(torch.bfloat16).tolist())",
    ),
}
