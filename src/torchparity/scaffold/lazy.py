"""The ``lazy`` family: uninitialized parameters and buffers (``torch.nn.parameter.Uninitialized*``).

Lazy modules hold ``UninitializedParameter``/``UninitializedBuffer`` until
their first forward. The tests assert what ``torch.nn.parameter`` documents:
before ``materialize`` the shape cannot be read and torch functions refuse
the tensor; ``materialize(shape)`` turns it into its ``cls_to_become``
(``Parameter``, or a plain ``Tensor`` for a buffer) of that shape on the
device it was made for, with the dtype and ``requires_grad`` it was given; a
``LazyLinear`` on the device infers its weight's shape ``(3, 5)`` from a
``(2, 5)`` input. Each test names the API, so a stand-in in its place fails it.
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method as _method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of
from .recipes.lazy import LAZY_ROLES


def lazy_role(info: ApiInfo) -> str:
    r = info.resolution
    for name in (r.canonical, r.path, *r.aliases):
        if name in LAZY_ROLES:
            return LAZY_ROLES[name]
    return ""


def _bodies(role: str, S: str) -> dict[str, list[str]]:
    kind, _, member = role.partition(".")
    C = S.rsplit(".", 1)[0] if member or S.endswith(".cls_to_become") else S  # the class
    mat = (
        (lambda v, shape: f"{S}({v}, {shape})")
        if member
        else (lambda v, shape: f"{v}.materialize({shape})")
    )
    if kind == "parameter":
        return {
            "materialize": [
                f"p = {C}(device=DEVICE)",
                "self.assertIsInstance(p, torch.nn.Parameter)",
                "self.assertTrue(p.requires_grad)",
                'with self.assertRaisesRegex(RuntimeError, "uninitialized"):  # no shape before materialize',
                "    tuple(p.shape)",
                'with self.assertRaisesRegex(ValueError, "uninitialized"):  # torch functions refuse it',
                "    p + 1",
                mat("p", "(2, 3)"),
                f"self.assertIs({C}.cls_to_become, torch.nn.Parameter)",
                "self.assertIs(type(p), torch.nn.Parameter)  # its cls_to_become",
                "self.assertEqual(tuple(p.shape), (2, 3))",
                "self.assertEqual(p.device.type, DEVICE.type)",
                "self.assertIs(p.dtype, torch.get_default_dtype())",
                "self.assertTrue(p.requires_grad)",
                "p.data.fill_(2.0)",
                "(p * p).sum().backward()",
                "self.assertEqual(p.grad.cpu().tolist(), [[4.0] * 3] * 2)  # d(p*p)/dp = 2p",
            ],
            "lazy_module": [
                "layer = torch.nn.LazyLinear(3, device=DEVICE)",
                f"self.assertIsInstance(layer.weight, {C})",
                "out = layer(torch.ones(2, 5, device=DEVICE))",
                f"self.assertNotIsInstance(layer.weight, {C})",
                "self.assertEqual(tuple(layer.weight.shape), (3, 5))  # in_features inferred from the input",
                "self.assertEqual(tuple(out.shape), (2, 3))",
                "self.assertEqual(layer.weight.device.type, DEVICE.type)",
                "torch.testing.assert_close(out.detach().cpu(),",
                "                           (layer.weight.sum(1) + layer.bias).detach().cpu().expand(2, 3))",
            ],
        }
    return {
        "materialize": [
            f"b = {C}(requires_grad=False, device=DEVICE, dtype=torch.float64)",
            'with self.assertRaisesRegex(RuntimeError, "uninitialized"):',
            "    tuple(b.shape)",
            mat("b", "(4,)"),
            f"self.assertIs({C}.cls_to_become, torch.Tensor)",
            "self.assertIs(type(b), torch.Tensor)  # a buffer becomes a plain tensor",
            "self.assertEqual(tuple(b.shape), (4,))",
            "self.assertIs(b.dtype, torch.float64)",
            "self.assertEqual(b.device.type, DEVICE.type)",
            "self.assertFalse(b.requires_grad)",
        ],
        "in_a_module": [
            "module = torch.nn.Module()",
            f'module.register_buffer("running", {C}(device=DEVICE))',
            f'module.register_buffer("scratch", {C}(device=DEVICE, persistent=False), persistent=False)',
            f"self.assertIsInstance(module.running, {C})",
            mat("module.running", "(3,)"),
            mat("module.scratch", "(2,)"),
            "module.running.fill_(1.5)",
            "state = module.state_dict()",
            'self.assertEqual(list(state), ["running"])  # the non-persistent buffer is not saved',
            'self.assertEqual(state["running"].cpu().tolist(), [1.5, 1.5, 1.5])',
            'self.assertEqual(state["running"].device.type, DEVICE.type)',
        ],
    }


def lazy_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    role = lazy_role(info)
    if not role:
        raise CannotDecide(
            f"{info.resolution.canonical} is not an uninitialized parameter or buffer"
        )
    S = spelling_of(info.resolution)
    stem = "uninitialized_" + role.replace(".", "_")
    methods = tuple(
        _method(f"test_{stem}_{suffix}", lines) for suffix, lines in _bodies(role, S).items()
    )
    what = (
        "an uninitialized parameter or buffer on the device: no shape and refused by torch functions before "
        "materialize, then its cls_to_become of the given shape, dtype, device and requires_grad"
    )
    return TestPlan(
        api=info.resolution.canonical,
        spelling=S,
        family="lazy",
        stem=stem,
        methods=methods,
        summary=f"{what}.",
        coverage=coverage_rows(normal=what),
        uses_device=True,
        facts=facts,
    )
