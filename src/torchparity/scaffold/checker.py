"""The ``checker`` family: predicates and validators, on arguments whose answers were measured on the CPU.

Tried after ``measured``, before the pair, switch and fill-in, for functions
and Tensor methods named as checks (``is_X``, ``has_X``, ``check_X``,
``_assert_X``). The agent (``agent/facts/checker.py``) gives each candidate
argument to the API and keeps what it answers: a predicate's ``True`` and
``False`` cases, a validator's accepted (``None``) and refused cases with
the exception's type. A stand-in returning a sentinel answers neither
``True``, ``False`` nor ``None``, and raises for nothing.
"""

from __future__ import annotations

import re

from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.layout import OPS_NAMESPACE

CHECKER = re.compile(r"^_?(?:(?:is|has|check|assert|are)_|(?:is|has)[A-Z]|(?:check|assert)$)")


def checker_leaf(info: ApiInfo) -> bool:
    r = info.resolution
    parts = r.path.split(".")
    # an operator overload is named by its operator (``torch.ops.aten._assert_async.msg``)
    leaf = parts[3] if r.path.startswith(OPS_NAMESPACE) and len(parts) == 5 else parts[-1]
    return r.kind in ("function", "builtin", "method", "staticmethod") and bool(CHECKER.match(leaf))


def checker_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    ck = facts.get("checker") or {}
    if not ck.get("found"):
        raise CannotDecide(ck.get("problem") or "no checker facts")
    X = spelling_of(r)
    stem = stem_of(r)
    tail = str(ck.get("tail") or "")  # the message a checker is given besides its argument
    tests: dict[str, list[str]] = {}
    if ck.get("kind") == "predicate":
        tests["true"] = [f"self.assertIs({X}({src}{tail}), True)" for src in ck["true"]]
        tests["false"] = [f"self.assertIs({X}({src}{tail}), False)" for src in ck["false"]]
        what = f"True for {len(ck['true'])} argument(s) and False for {len(ck['false'])} (measured on the CPU)"
    elif ck.get("kind") == "validator":
        tests["accepted"] = [f"self.assertIsNone({X}({src}{tail}))" for src in ck["none"]]
        what = f"None for {len(ck['none'])} accepted argument(s) (measured on the CPU)"
    else:
        raise CannotDecide(f"no checker template for a {ck.get('kind')}")
    if ck.get("refused"):
        tests["refused"] = [
            line
            for src, exc in ck["refused"]
            for line in (f"with self.assertRaises({exc}):", f"    {X}({src}{tail})")
        ]
        what += f", {len(ck['refused'])} refused with the exception measured"
    uses_device = any("DEVICE" in line for lines in tests.values() for line in lines)
    methods = tuple(
        lines_method(f"test_{stem}_{suffix}", [line.replace("DEVICE", device) for line in lines])
        for suffix, lines in tests.items()
    )
    return TestPlan(
        api=r.canonical,
        spelling=X,
        family="checker",
        stem=stem,
        methods=methods,
        summary=what + ".",
        imports=("import io",) if ck.get("uses_io") else (),
        coverage=coverage_rows(
            normal=what, invalid="非法参数抛出测得的异常" if ck.get("refused") else ""
        ),
        uses_device=uses_device,
        facts=facts,
    )
