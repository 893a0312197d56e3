"""The ``switch`` family: runtime switches, a setter whose effect only its paired getter shows.

Tried after every other family (``measured`` included), before the fill-in,
for a function whose name is a setter (``_set_autograd_fallback_mode``,
``set_default_device``). The agent (``agent/facts/switch.py``) finds the
getter by name and measures which values the setter takes:

* a str mode: each accepted value set and read back through the getter, a
  made-up word refused (the exception measured) and leaving the mode as it was;
* a bool: both values set and read back;
* the default device: tensors made after it live on the device (and on
  ``meta`` on any build), an explicit ``device=`` still wins, ``None`` resets
  to the CPU as documented;
* a tensor's version counter (``_unsafe_set_version_counter``): ``_version``
  read back on the tensor and a view of it, the next in-place op counting on
  from it, and the documented use: an in-place change of a tensor autograd
  saved, hidden by restoring its version, no longer refused by ``backward``.

Every test restores what it set (the getter reads the saved value after).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..agent.facts.schema_probe import SwitchFacts, SwitchValue
from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of

SETTER = re.compile(r"(^|_)set_?[A-Za-z]|^_?unsafe_set_|^_?(enable|allow)_[a-z]")
#: a getter whose setter is keyed like it (``get_autocast_dtype(device_type)``)
GETTER = re.compile(r"^_?(get_.+|is_.+_enabled)$")


def _lit(value: Any) -> str:
    return json.dumps(value) if isinstance(value, str) else repr(value)


def switch_leaf(info: ApiInfo) -> bool:
    r = info.resolution
    leaf = r.path.rsplit(".", 1)[-1]
    return r.kind in ("function", "builtin") and bool(SETTER.search(leaf) or GETTER.match(leaf))


def _restore(X: str, getter: str, body: list[str], put_back: str = "saved") -> list[str]:
    return [
        f"saved = {getter}",
        "try:",
        *("    " + line for line in body),
        "finally:",
        f"    {X}({put_back})",
        f"self.assertEqual({getter}, saved)  # restored",
    ]


def switch_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    sw = facts.get("switch") or {}
    if not sw.get("found"):
        raise CannotDecide(sw.get("problem") or "no switch facts")
    X = spelling_of(r)
    stem = stem_of(r)
    kind = sw.get("kind")
    tests, what, uses_device = switch_tests(X, sw)
    methods = tuple(
        lines_method(f"test_{stem}_{suffix}", [line.replace("DEVICE", device) for line in lines])
        for suffix, lines in tests.items()
    )
    return TestPlan(
        api=r.canonical,
        spelling=X,
        family="switch",
        stem=stem,
        methods=methods,
        summary=what + ".",
        coverage=coverage_rows(
            enum="取值逐一设置并读回" if kind in ("str", "bool", "keyed", "dtype", "int") else "",
            normal=what,
            invalid="非法取值抛出异常" if kind == "str" and sw.get("refused") else "",
        ),
        uses_device=uses_device,
        facts=facts,
    )


def switch_tests(X: str, sw: SwitchFacts) -> tuple[dict[str, list[str]], str, bool]:
    """The test bodies of a switch whose setter is spelled ``X``, what they check, whether they use DEVICE."""
    kind = sw.get("kind")
    getter = str(sw.get("getter") or "")
    tests: dict[str, list[str]] = {}
    uses_device = False
    uses_device = False
    if kind == "version":
        tests["read_back"] = [
            "t = torch.zeros(3, device=DEVICE)",
            "view = t.view(-1)",
            f"self.assertIsNone({X}((t,), (5,)))",
            "self.assertEqual(t._version, 5)",
            "self.assertEqual(view._version, 5)  # a view shares its base's counter",
            "t.add_(1)",
            "self.assertEqual(t._version, 6)  # an in-place op counts on from it",
            "self.assertEqual(t.cpu().tolist(), [1.0, 1.0, 1.0])",
        ]
        tests["saved_for_backward"] = [
            "a = torch.ones(3, device=DEVICE, requires_grad=True)",
            "b = a * 1",
            "c = b.sin()  # sin saves b for its backward",
            "before = b._version",
            "b.mul_(1)",
            'with self.assertRaisesRegex(RuntimeError, "modified by an inplace operation"):',
            "    c.sum().backward(retain_graph=True)",
            f"{X}((b,), (before,))  # the change hidden: the saved b is taken as it was",
            "c.sum().backward()",
            "torch.testing.assert_close(a.grad.cpu(), torch.cos(torch.ones(3)))",
        ]
        uses_device = True
        what = (
            "the version counter read back on a tensor and its view, in-place ops counting on, and backward "
            "accepting a saved tensor whose version was restored"
        )
    elif kind == "device":
        tests["default_device"] = _restore(
            X,
            getter,
            [
                f'self.assertIsNone({X}("meta"))',
                f'self.assertEqual({getter}, torch.device("meta"))',
                'self.assertEqual(torch.empty(2).device.type, "meta")  # factories follow the default device',
                'self.assertEqual(torch.zeros(2, device="cpu").device.type, "cpu")  # an explicit device still wins',
                f"{X}(DEVICE)",
                f"self.assertEqual({getter}.type, DEVICE.type)",
                "made = torch.tensor([1.0, 2.0])",
                "self.assertEqual(made.device.type, DEVICE.type)",
                "self.assertEqual(made.cpu().tolist(), [1.0, 2.0])",
                f"{X}(None)  # None: back to the CPU, the initial default",
                f'self.assertEqual({getter}, torch.device("cpu"))',
                'self.assertEqual(torch.empty(1).device.type, "cpu")',
            ],
            put_back='None if saved == torch.device("cpu") else saved',
        )  # None: no device mode left behind
        uses_device = True
        what = (
            "the default device it sets: the getter, where factories put tensors (meta and the device), an "
            "explicit device winning, None resetting to the CPU, restored after"
        )
    elif kind == "keyed":
        key, get, put = (
            json.dumps(sw["key"]),
            f"{sw['getter']}({json.dumps(sw['key'])})",
            str(sw["setter"]),
        )
        # a keyed switch's values come spelled (``_spelled``: ``torch.float16``, ``True``)
        spelled = [str(v) for v in sw["accepted"] if v != sw["saved"]] + [str(sw["saved"])]
        tests["set_and_read_back"] = [
            f"saved = {get}",
            f"self.assertEqual(saved, {sw['saved']})  # as in a fresh interpreter",
            "try:",
            f"    for value in [{', '.join(spelled)}]:",
            f"        self.assertIsNone({put}({key}, value))",
            f"        self.assertEqual({get}, value)",
            "finally:",
            f"    {put}({key}, saved)",
            f"self.assertEqual({get}, saved)  # restored",
        ]
        what = (
            f"each value {put} takes for {key} ({', '.join(spelled)}) read back through {get}, the value of a "
            "fresh interpreter first, restored after"
        )
    elif kind == "state":
        mover = str(sw.get("mover") or "torch.rand(3)")
        tests["round_trip"] = _restore(
            X,
            getter,
            [
                f"first = {mover}",
                f"self.assertFalse(torch.equal({getter}, saved))  # the draw moved the state",
                {
                    "none": f"self.assertIsNone({X}(saved))",  # the setter's own return, as measured
                    "self": f"self.assertIs({X}(saved), {X.rsplit('.', 1)[0]})",
                }.get(str(sw.get("returns", "none")), f"{X}(saved)"),
                f"self.assertTrue(torch.equal({getter}, saved))  # read back as it was set",
                f"again = {mover}",
                "self.assertTrue(torch.equal(first, again))  # the same state gives the same draws",
            ],
        )
        what = f"a state {getter} reads, moved by a draw and set back: read back, the same draws after it"
    elif kind in ("str", "bool", "dtype", "int"):
        accepted = list(sw.get("accepted") or [])
        saved = sw.get("saved")
        if len(accepted) < 2 or not any(v != saved for v in accepted):
            raise CannotDecide(f"{X} took no value but the one it had ({saved!r})")
        order: list[SwitchValue | None] = [v for v in accepted if v != saved]
        order.append(saved)
        lit = (
            (lambda v: str(v)) if kind == "dtype" else _lit
        )  # a dtype comes spelled (torch.float16)
        body = [
            f"for value in [{', '.join(lit(v) for v in order)}]:",
            f"    self.assertIsNone({X}(value))",
            f"    self.assertEqual({getter}, value)",
        ]
        if kind == "str" and sw.get("refused"):
            body += [
                f"{X}({_lit(order[0])})",
                f"with self.assertRaises({sw['refused']}):  # not a mode",
                f'    {X}("no_such_mode_word")',
                f"self.assertEqual({getter}, {_lit(order[0])})  # a refused value changes nothing",
            ]
        tests["set_and_read_back"] = _restore(X, getter, body)
        what = (
            f"each value it takes ({', '.join(lit(v) for v in order)}) set and read back through {getter}"
            + (", an unknown value refused" if kind == "str" and sw.get("refused") else "")
            + ", the value before restored"
        )
    else:
        raise CannotDecide(f"no switch template for a {kind} value")
    return tests, what, uses_device
