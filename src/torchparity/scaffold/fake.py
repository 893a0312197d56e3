"""The ``fake`` family: fake tensors (``torch._subclasses.fake_tensor``) and the guards that find their mode.

Compilers trace with fake tensors: tensors with shape, dtype, stride and
device but no data, made inside a ``FakeTensorMode`` or converted by its
``from_tensor``. The tests assert what that contract says, worked out by hand:
a matmul of ``(2, 3)`` and ``(3, 4)`` fake tensors on the device is a
``(2, 4)`` fake tensor there; ``from_tensor`` keeps a real tensor's shape,
dtype, stride and device and none of its data (reading a value raises
``DataDependentOutputException``); ``detect_fake_mode``/``active_fake_mode``
return the active mode and ``None`` outside; ``unset_fake_temporarily`` makes
real tensors (with their values) inside a fake mode. Each test names the API,
so a stand-in in its place fails it.
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method as _method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of

MODULE = "torch._subclasses.fake_tensor"
NAMES = {
    "FakeTensor": f"{MODULE}.FakeTensor",
    "FakeTensorMode": f"{MODULE}.FakeTensorMode",
    "from_tensor": f"{MODULE}.FakeTensorMode.from_tensor",
    "unset_fake_temporarily": f"{MODULE}.unset_fake_temporarily",
    "detect_fake_mode": "torch._guards.detect_fake_mode",
    "active_fake_mode": "torch._guards.active_fake_mode",
}
IMPORTS = ("import torch._guards", f"import {MODULE}")


def fake_role(info: ApiInfo) -> str:
    """Which of the fake-tensor APIs this is (a key of ``NAMES``), or ""."""
    r = info.resolution
    spelled = {r.canonical, r.path, *r.aliases}
    for role, name in NAMES.items():
        short = name.replace(f"{MODULE}.", "torch._subclasses.")
        if name in spelled or short in spelled:
            return role
    return ""


def _lines(role: str, S: str) -> dict[str, list[str]]:
    n = dict(NAMES, **{role: S})  # the API as the test spells it; the others by their full names
    T, M = n["FakeTensor"], n["FakeTensorMode"]
    convert = "mode.from_tensor(real)" if role != "from_tensor" else f"{S}(mode, real)"
    made_in_mode = [
        f"mode = {M}()",
        "with mode:",
        "    a = torch.ones(2, 3, device=DEVICE)",
        "    product = a @ torch.ones(3, 4, device=DEVICE)",
        f"self.assertIsInstance(product, {T})",
        "self.assertEqual(tuple(product.shape), (2, 4))  # (2, 3) @ (3, 4), by hand",
        "self.assertIs(product.dtype, torch.float32)",
        "self.assertEqual(product.device.type, DEVICE.type)",
        f"with self.assertRaises({MODULE}.DataDependentOutputException):  # a fake tensor holds no values",
        "    product.tolist()",
    ]
    converted = [
        "real = torch.arange(6.0, device=DEVICE).reshape(2, 3).t()",
        f"mode = {M}()",
        f"fake = {convert}",
        f"self.assertIsInstance(fake, {T})",
        "self.assertIsInstance(fake, torch.Tensor)",
        "self.assertEqual(tuple(fake.shape), (3, 2))",
        "self.assertEqual(fake.stride(), (1, 3))  # the transpose's strides are kept",
        "self.assertIs(fake.dtype, torch.float32)",
        "self.assertEqual(fake.device.type, DEVICE.type)",
        "self.assertEqual(real.cpu().tolist(), [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]])  # the real one is untouched",
        "with mode:",
        "    doubled = (fake * 2).sum(0)",
        f"self.assertIsInstance(doubled, {T})",
        "self.assertEqual(tuple(doubled.shape), (2,))",
    ]
    if role in ("FakeTensor", "FakeTensorMode", "from_tensor"):
        return {"made_in_mode": made_in_mode, "from_tensor": converted}
    if role == "detect_fake_mode":
        return {
            "finds_the_mode": [
                f"mode = {M}()",
                "real = torch.ones(2, device=DEVICE)",
                f"self.assertIsNone({S}([real]))  # no fake mode is active and no input is fake",
                "with mode:",
                "    fake = torch.ones(2, device=DEVICE)",
                f"    self.assertIs({S}([fake]), mode)",
                f"self.assertIs({S}([real, fake]), mode)  # found from a fake input",
                f"self.assertIsNone({S}([real]))",
            ]
        }
    if role == "active_fake_mode":
        return {
            "finds_the_mode": [
                f"mode = {M}()",
                f"self.assertIsNone({S}())  # no fake mode is active",
                "with mode:",
                f"    self.assertIs({S}(), mode)",
                "    made = torch.ones(2, device=DEVICE)",
                f"self.assertIsNone({S}())",
                f"self.assertIsInstance(made, {T})  # what the mode made is fake",
            ]
        }
    return {
        "real_inside_a_fake_mode": [  # unset_fake_temporarily
            f"mode = {M}()",
            "with mode:",
            "    fake = torch.ones(2, device=DEVICE)",
            f"    with {S}():",
            "        real = torch.full((2,), 7.0, device=DEVICE)",
            "        self.assertIsNone(torch._guards.active_fake_mode())",
            "    self.assertIs(torch._guards.active_fake_mode(), mode)  # the mode is back after the block",
            f"self.assertIsInstance(fake, {T})",
            f"self.assertNotIsInstance(real, {T})",
            "self.assertEqual(real.device.type, DEVICE.type)",
            "self.assertEqual(real.cpu().tolist(), [7.0, 7.0])",
        ]
    }


def fake_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    role = fake_role(info)
    if not role:
        raise CannotDecide(
            f"{info.resolution.canonical} is none of the fake-tensor APIs this family knows"
        )
    S = spelling_of(info.resolution)
    stem = S.rsplit(".", 1)[-1].lower()
    methods = tuple(
        _method(f"test_{stem}_{suffix}", lines) for suffix, lines in _lines(role, S).items()
    )
    what = (
        (
            "fake tensors made in a FakeTensorMode and by from_tensor on the device: shapes worked out by hand, "
            "strides, dtype and device kept, no values (DataDependentOutputException)"
        )
        if role in ("FakeTensor", "FakeTensorMode", "from_tensor")
        else (
            "the active fake mode found inside the mode and None outside"
            if role != "unset_fake_temporarily"
            else "real tensors with their values inside a fake mode, and the mode active again after the block"
        )
    )
    return TestPlan(
        api=info.resolution.canonical,
        spelling=S,
        family="fake",
        stem=stem,
        methods=methods,
        imports=IMPORTS,
        summary=f"{what}.",
        coverage=coverage_rows(normal=what),
        uses_device=True,
        facts=facts,
    )
