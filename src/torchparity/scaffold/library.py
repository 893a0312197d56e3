"""The ``library`` family: custom operators through ``torch.library`` (how a backend adds its own ops).

A test defines a small operator in a namespace of its own, registers its
kernel for the device under test (its dispatch key: ``CPU``, ``CUDA``,
``PrivateUse1`` for an out-of-tree backend such as the NPU) and calls it
through ``torch.ops``; the results are worked out by hand (``x + 0.5 * y`` of
``[1, 2]`` and ``[10, 20]`` is ``[6, 12]``; the gradient of ``x ** 3`` at
``[1, 2]`` is ``[3, 12]``), the schema is the one written, a mutating op fills
its ``out``, an op with no kernel for the Meta key refuses meta tensors, a
fake kernel gives shapes under ``FakeTensorMode``, and ``_destroy`` removes
what a ``Library`` registered. Each test goes through the API, so a stand-in
in its place fails it.
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method as _method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of
from .recipes.library import ROLES

KEY = 'key = {"cpu": "CPU", "cuda": "CUDA", "xpu": "XPU", "mps": "MPS"}.get(DEVICE.type, "PrivateUse1")'
X = ["x = torch.tensor([1.0, 2.0], device=DEVICE)"]


def library_role(info: ApiInfo) -> str:
    r = info.resolution
    for name in (r.canonical, r.path, *r.aliases):
        if name in ROLES:
            return ROLES[name]
    return ""


def _custom_op(S: str, ns: str) -> dict[str, list[str]]:
    return {
        "functional": [
            f'@{S}("{ns}_f::scaled_add", mutates_args=(), device_types=DEVICE.type)',
            "def scaled_add(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:",
            "    return x + alpha * y",
            *X,
            "y = torch.tensor([10.0, 20.0], device=DEVICE)",
            f"out = torch.ops.{ns}_f.scaled_add(x, y, 0.5)",
            "self.assertEqual(out.device.type, DEVICE.type)",
            "self.assertEqual(out.cpu().tolist(), [6.0, 12.0])  # 1 + 0.5 * 10, 2 + 0.5 * 20",
            f"self.assertEqual(str(torch.ops.{ns}_f.scaled_add.default._schema),",
            f'                 "{ns}_f::scaled_add(Tensor x, Tensor y, float alpha) -> Tensor")',
            "with self.assertRaises(RuntimeError):  # no fake kernel: meta tensors are refused",
            f'    torch.ops.{ns}_f.scaled_add(torch.ones(1, device="meta"), torch.ones(1, device="meta"), 1.0)',
        ],
        "mutating": [
            f'@{S}("{ns}_m::triple_into", mutates_args=("out",))',
            "def triple_into(x: torch.Tensor, out: torch.Tensor) -> None:",
            "    out.copy_(x * 3)",
            *X,
            "out = torch.zeros(2, device=DEVICE)",
            f"self.assertIsNone(torch.ops.{ns}_m.triple_into(x, out))",
            "self.assertEqual(out.cpu().tolist(), [3.0, 6.0])",
            "self.assertEqual(x.cpu().tolist(), [1.0, 2.0])  # only out is mutated",
            f"self.assertTrue(torch.ops.{ns}_m.triple_into.default._schema.arguments[1].alias_info.is_write)",
        ],
    }


def _library(S: str, ns: str) -> dict[str, list[str]]:
    return {
        "def_and_impl": [
            KEY,
            f'lib = {S}("{ns}_d", "DEF")',
            "try:",
            '    self.assertEqual(lib.define("twice(Tensor x) -> Tensor"), "twice")',
            '    lib.impl("twice", lambda t: t * 2, key)',
            *("    " + line for line in X),
            f"    out = torch.ops.{ns}_d.twice(x)",
            "    self.assertEqual(out.cpu().tolist(), [2.0, 4.0])",
            "    self.assertEqual(out.device.type, DEVICE.type)",
            "finally:",
            "    lib._destroy()",
            f'self.assertFalse(hasattr(torch.ops.{ns}_d, "twice"))  # destroyed: the op is gone',
        ],
        "fragment": [
            KEY,
            f'lib = {S}("{ns}_g", "FRAGMENT")',
            "try:",
            '    lib.define("negated(Tensor x) -> Tensor")',
            '    lib.define("shifted(Tensor x, float by) -> Tensor")',
            '    lib.impl("negated", lambda t: -t, key)',
            '    lib.impl("shifted", lambda t, by: t + by, key)',
            *("    " + line for line in X),
            f"    self.assertEqual(torch.ops.{ns}_g.negated(x).cpu().tolist(), [-1.0, -2.0])",
            f"    self.assertEqual(torch.ops.{ns}_g.shifted(x, 0.5).cpu().tolist(), [1.5, 2.5])",
            "finally:",
            "    lib._destroy()",
        ],
    }


def _member(S: str, ns: str, role: str) -> dict[str, list[str]]:
    lib = f'lib = torch.library.Library("{ns}_l", "DEF")'
    if role == "Library.define":
        return {
            "schema": [
                lib,
                "try:",
                f'    name = {S}(lib, "scaled(Tensor x, int n=2) -> Tensor")',
                '    self.assertEqual(name, "scaled")',
                f"    schema = torch.ops.{ns}_l.scaled.default._schema",
                f'    self.assertEqual(str(schema), "{ns}_l::scaled(Tensor x, int n=2) -> Tensor")',
                '    self.assertEqual([a.name for a in schema.arguments], ["x", "n"])',
                "    self.assertEqual(schema.arguments[1].default_value, 2)",
                '    lib.impl("scaled", lambda t, n=2: t * n, "CompositeExplicitAutograd")',
                *("    " + line for line in X),
                f"    self.assertEqual(torch.ops.{ns}_l.scaled(x).cpu().tolist(), [2.0, 4.0])  # the default n",
                "finally:",
                "    lib._destroy()",
            ]
        }
    return {
        "device_kernel": [  # Library.impl
            KEY,
            lib,
            "try:",
            '    lib.define("halved(Tensor x) -> Tensor")',
            f'    {S}(lib, "halved", lambda t: t / 2, key)',
            *("    " + line for line in X),
            f"    out = torch.ops.{ns}_l.halved(x)",
            "    self.assertEqual(out.cpu().tolist(), [0.5, 1.0])",
            "    self.assertEqual(out.device.type, DEVICE.type)",
            "    with self.assertRaises(NotImplementedError):  # a kernel for the device's key only: none for Meta",
            f'        torch.ops.{ns}_l.halved(torch.ones(2, device="meta"))',
            "finally:",
            "    lib._destroy()",
        ]
    }


def _functions(S: str, ns: str, role: str) -> dict[str, list[str]]:
    define = "torch.library.define" if role != "define" else S
    impl = "torch.library.impl" if role != "impl" else S
    return {
        "define_and_impl": [
            f'lib = torch.library.Library("{ns}_q", "FRAGMENT")',
            "try:",
            f'    {define}("{ns}_q::plus_one", "(Tensor x) -> Tensor", lib=lib)',
            f'    {impl}("{ns}_q::plus_one", DEVICE.type, lambda t: t + 1, lib=lib)',
            *("    " + line for line in X),
            f"    out = torch.ops.{ns}_q.plus_one(x)",
            "    self.assertEqual(out.cpu().tolist(), [2.0, 3.0])",
            "    self.assertEqual(out.device.type, DEVICE.type)",
            f'    self.assertEqual(str(torch.ops.{ns}_q.plus_one.default._schema), "{ns}_q::plus_one(Tensor x) -> Tensor")',
            "finally:",
            "    lib._destroy()",
        ]
    }


def _register_autograd(S: str, ns: str) -> dict[str, list[str]]:
    return {
        "gradient": [
            f'@torch.library.custom_op("{ns}_a::cube", mutates_args=())',
            "def cube(x: torch.Tensor) -> torch.Tensor:",
            "    return x ** 3",
            "def setup_context(ctx, inputs, output):",
            "    ctx.save_for_backward(inputs[0])",
            "def backward(ctx, grad):",
            "    (x,) = ctx.saved_tensors",
            "    return 3 * x * x * grad",
            f'{S}("{ns}_a::cube", backward, setup_context=setup_context)',
            "x = torch.tensor([1.0, 2.0], device=DEVICE, requires_grad=True)",
            f"y = torch.ops.{ns}_a.cube(x)",
            "self.assertEqual(y.detach().cpu().tolist(), [1.0, 8.0])",
            "y.sum().backward()",
            "self.assertEqual(x.grad.device.type, DEVICE.type)",
            "self.assertEqual(x.grad.cpu().tolist(), [3.0, 12.0])  # d(x**3)/dx = 3 x**2",
        ]
    }


def _impl_abstract(S: str, ns: str) -> dict[str, list[str]]:
    return {
        "fake_shapes": [
            "import torch._subclasses.fake_tensor",
            f'@torch.library.custom_op("{ns}_s::row_sums", mutates_args=())',
            "def row_sums(x: torch.Tensor) -> torch.Tensor:",
            "    return x.sum(1)",
            f'{S}("{ns}_s::row_sums")(lambda x: x.new_empty(x.shape[0]))',
            "with torch._subclasses.fake_tensor.FakeTensorMode():",
            f"    fake = torch.ops.{ns}_s.row_sums(torch.ones(3, 4, device=DEVICE))",
            "self.assertEqual(tuple(fake.shape), (3,))",
            "self.assertEqual(fake.device.type, DEVICE.type)",
            f"real = torch.ops.{ns}_s.row_sums(torch.ones(3, 4, device=DEVICE))",
            "self.assertEqual(real.cpu().tolist(), [4.0, 4.0, 4.0])",
        ]
    }


def library_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    role = library_role(info)
    if not role:
        raise CannotDecide(
            f"{info.resolution.canonical} is none of the torch.library APIs this family knows"
        )
    S = spelling_of(info.resolution)
    stem = role.replace(".", "_").lower()
    ns = f"tp_{stem}"
    if role == "custom_op":
        bodies = _custom_op(S, ns)
    elif role == "Library":
        bodies = _library(S, ns)
    elif role in ("Library.define", "Library.impl"):
        bodies = _member(S, ns, role)
    elif role in ("define", "impl"):
        bodies = _functions(S, ns, role)
    elif role == "register_autograd":
        bodies = _register_autograd(S, ns)
    else:
        bodies = _impl_abstract(S, ns)
    methods = tuple(_method(f"test_{stem}_{suffix}", lines) for suffix, lines in bodies.items())
    what = (
        "a custom operator defined in its own namespace with its kernel for the device's dispatch key, called "
        "through torch.ops: values worked out by hand, the schema written, kernels only where registered"
    )
    return TestPlan(
        api=info.resolution.canonical,
        spelling=S,
        family="library",
        stem=stem,
        methods=methods,
        summary=f"{what}.",
        coverage=coverage_rows(normal=what),
        uses_device=True,
        facts=facts,
    )
