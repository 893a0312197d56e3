"""The ``recorded`` family: ATen operators and private torch builtins, called as public code calls them.

``torch.ops.aten.squeeze_.dims``, ``torch._C._nn.gelu`` or ``torch._lazy_clone``
has no OpInfo entry, and no candidate argument of the measured family need fit
it. Running the OpInfo entries' samples calls it, or its base operator (an
in-place ``X_``, an ``X_copy``, an ``_unsafe_X``, a ``hacked_twin`` overload
takes the calls of ``X``). The agent records those calls
(``agent/facts/recorded.py``) and measures on the CPU what one of them returns
and what it leaves in the tensors it changes; the test makes the same call on
the device and compares with those values, written into the test.
"""

from __future__ import annotations

import json
from typing import Any

from ..agent.facts.schema_calls import ArgLiteral
from ..api.records import ApiInfo
from .facts import Facts
from .operators import _comment_lines, lines_method
from .plan import CannotDecide, Method, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.layout import OPS_NAMESPACE
from .recipes.recorded import BUILTIN_MODULES
from .render import render_helpers


def recorded_kind(info: ApiInfo) -> bool:
    """An operator overload or packet of ``torch.ops``, a builtin of ``torch._C._nn`` (and the other ATen
    binding modules), or a private function of ``torch`` itself (``torch._lazy_clone``)."""
    r = info.resolution
    names = [n for n in (r.canonical, r.path, *r.aliases) if n]
    if any(n.startswith(OPS_NAMESPACE) and n.count(".") >= 3 for n in names):
        return True
    if r.kind not in ("function", "builtin"):
        return False
    leaf = r.path.rsplit(".", 1)[-1]
    if leaf.startswith("__"):
        return False
    return any(n.startswith(BUILTIN_MODULES) for n in names) or (
        r.path.count(".") == 1 and leaf.startswith("_")
    )


#: values per line where a tensor is written out (at most), and the width of those lines' values
PER_LINE = 8
WIDTH = 84


def _number(value: Any) -> str:
    if isinstance(value, float) and value != value:
        return 'float("nan")'
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return f'float("{value}")'
    return repr(value)


def _literal(lit: ArgLiteral, name: str) -> tuple[list[str], str]:
    """(lines that build it, the expression) of one written-out argument."""
    if "tensor" in lit:
        values = [_number(v) for v in lit["tensor"]]
        shape = ", ".join(str(n) for n in lit["shape"])
        if not lit["shape"]:
            return [f"{name} = torch.tensor({values[0]}, dtype=torch.{lit['dtype']})"], name
        tail = f"], dtype=torch.{lit['dtype']}).reshape({shape}{',' if len(lit['shape']) == 1 else ''})"
        if len(values) <= PER_LINE:
            return [f"{name} = torch.tensor([{', '.join(values)}{tail}"], name
        lines = [f"{name} = torch.tensor(["]
        row: list[str] = []
        for v in values:  # as many values as fit in a line of the method's body
            if row and len(", ".join(row + [v])) + 1 > WIDTH:
                lines.append("    " + ", ".join(row) + ",")
                row = []
            row.append(v)
        lines.append("    " + ", ".join(row) + ",")
        return lines + [tail], name
    if "value" in lit:
        return [], _number(lit["value"])
    if "list" in lit:
        built: list[str] = []
        items = []
        for n, item in enumerate(lit["list"]):
            more, expr = _literal(item, f"{name}_{n}")
            built += more
            items.append(expr)
        if lit.get("tuple"):
            return built, "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return built, "[" + ", ".join(items) + "]"
    if "torch" in lit:
        return [], f"torch.{lit['torch']}"
    return [], f"torch.device({lit['device']!r})"


class Writer:
    """Writes out the literal arguments of a call into ``body``; a tensor written once is named again
    where it comes back."""

    def __init__(self, body: list[str]) -> None:
        self.body = body
        self.written: dict[str, str] = {}

    def __call__(self, lit: ArgLiteral, name: str) -> str:
        key = json.dumps(lit, sort_keys=True)
        if "tensor" in lit and key in self.written:
            return self.written[key]
        lines, expr = _literal(lit, name)
        self.body.extend(lines)
        if "tensor" in lit:
            self.written[key] = expr
        return expr

    def call(
        self, args: list[ArgLiteral], kwargs: dict[str, ArgLiteral], prefix: str = ""
    ) -> tuple[list[str], list[str]]:
        """(positional expressions, ``"key": expr`` items) of a call's written-out arguments."""
        exprs = [self(lit, f"{prefix}arg{n}") for n, lit in enumerate(args)]
        items = [f'"{key}": {self(lit, f"{prefix}kw_{key}")}' for key, lit in kwargs.items()]
        return exprs, items


def _arg(write: Writer, lit: ArgLiteral, name: str) -> str:
    """The expression of one written-out argument (a COO tensor from its indices and values)."""
    if "sparse" in lit:
        sp = lit["sparse"]
        indices, values = (
            write(sp["indices"], f"{name}_indices"),
            write(sp["values"], f"{name}_values"),
        )
        shape = ", ".join(str(n) for n in sp["shape"]) + ("," if len(sp["shape"]) == 1 else "")
        coalesced = ", is_coalesced=True" if sp.get("coalesced") else ""
        return f"torch.sparse_coo_tensor({indices}, {values}, ({shape}){coalesced})"
    if "list" in lit:
        items = [_arg(write, item, f"{name}_{n}") for n, item in enumerate(lit["list"])]
        if lit.get("tuple"):
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return "[" + ", ".join(items) + "]"
    return write(lit, name)


def _contiguous(lit: ArgLiteral) -> ArgLiteral:
    """A tensor literal without its strides (the test writes the tensor contiguous)."""
    plain = lit.copy()
    plain.pop("stride", None)
    return plain


def _expected(
    write: Writer,
    lit: ArgLiteral,
    name: str,
    got: str,
    device: str,
    rtol: float,
    atol: float,
    body: list[str],
    cpu_ints: bool = False,
) -> None:
    """Lines comparing ``got`` (a result on the device) with the value ``lit`` measured on the CPU."""
    if "tensor" in lit:
        expr = write(_contiguous(lit), name)
        # an integer result of a call with CPU-only arguments (lengths) may stay there with them
        where = "None" if cpu_ints and lit["dtype"] in ("int64", "int32", "bool") else device
        body.append(f"self._assert_value({got}, {expr}, {where}, rtol={rtol}, atol={atol})")
    elif "sparse" in lit:
        sp = lit["sparse"]
        indices = write(_contiguous(sp["indices"]), f"{name}_indices")
        values = write(_contiguous(sp["values"]), f"{name}_values")
        body.append(
            f"self._assert_sparse({got}, {indices}, {values}, {tuple(sp['shape'])!r}, {device}, "
            f"rtol={rtol}, atol={atol})"
        )
    elif "nested" in lit:
        parts = lit["nested"]
        body += [
            f"self.assertTrue({got}.is_nested)",
            f"self.assertEqual({got}.device.type, {device}.type)",
            f"self.assertEqual(len({got}.unbind()), {len(parts)})",
        ]
        for n, item in enumerate(parts):
            _expected(write, item, f"{name}_{n}", f"{got}.unbind()[{n}]", device, rtol, atol, body)
    elif "list" in lit:
        body.append(f"self.assertEqual(len({got}), {len(lit['list'])})")
        for n, item in enumerate(lit["list"]):
            _expected(write, item, f"{name}_{n}", f"{got}[{n}]", device, rtol, atol, body, cpu_ints)
    elif "value" in lit:
        value = lit["value"]
        if isinstance(value, float):
            body.append(
                f"self.assertAlmostEqual({got}, {value!r}, delta={atol} + {rtol} * abs({value!r}))"
            )
        elif value is None or isinstance(value, bool):
            body.append(f"self.assertIs({got}, {value!r})")
        else:
            body.append(f"self.assertEqual({got}, {value!r})")
    elif "torch" in lit:
        body.append(f"self.assertEqual({got}, torch.{lit['torch']})")


def recorded_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    rec = facts.get("recorded") or {}
    if not rec.get("found"):
        raise CannotDecide(rec.get("problem") or "no recorded facts")
    spelling = spelling_of(r)
    stem = stem_of(r)
    whose = (
        "its own call"
        if rec.get("own")
        else f"a call of {rec['recorded']}, the operator it is a variant of"
    )
    body = [
        f"# {line}"
        for line in _comment_lines(
            f"{whose} as torch's own code makes it for an OpInfo sample (recorded on the CPU), with its float "
            "inputs rounded to four decimals; the values below were measured on the CPU"
        )
    ]
    write = Writer(body)
    exprs = [_arg(write, lit, f"arg{n}") for n, lit in enumerate(rec["args"])]
    kw = [f'"{key}": {_arg(write, lit, f"kw_{key}")}' for key, lit in rec["kwargs"].items()]
    body += [f"args = self._to_device([{', '.join(exprs)}])"]
    for pos in rec.get("cpu_args") or []:
        body.append(f"args[{pos}] = {exprs[pos]}  # documented to stay on the CPU")
    body += [
        f"kwargs = self._to_device({{{', '.join(kw)}}})",
        f"result = {spelling}(*args, **kwargs)",
    ]
    rtol, atol = rec["tolerance"]
    check: list[str] = []
    _expected(
        write,
        rec["result"],
        "expected",
        "result",
        device,
        rtol,
        atol,
        check,
        bool(rec.get("cpu_args")),
    )
    for at, lit in sorted(rec.get("changed", {}).items()):  # the position as text
        check.append(f"# argument {at} as the call leaves it (it writes into it)")
        _expected(write, lit, f"expected_arg{at}", f"args[{at}]", device, rtol, atol, check)
    for key, lit in sorted(rec.get("kwchanged", {}).items()):
        check.append(f"# {key}= as the call leaves it (it writes into it)")
        _expected(write, lit, f"expected_{key}", f'kwargs["{key}"]', device, rtol, atol, check)
    body += check
    methods: list[Method] = [lines_method(f"test_{stem}", body)]
    methods += [
        Method(name, src, helper=True)
        for name, src in render_helpers("recorded_helpers.py.j2", device=device)
    ]
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="recorded",
        stem=stem,
        methods=tuple(methods),
        summary=(
            f"{whose} as an OpInfo sample's code makes it, on the device, against the results "
            "and the changed arguments measured on the CPU."
        ),
        coverage=coverage_rows(
            types="OpInfo 样例运行时 torch 传给该算子的参数",
            normal="设备上的结果（及被原地修改的参数）与 CPU 上测得的值一致，张量结果位于被测设备",
        ),
        facts=facts,
    )
