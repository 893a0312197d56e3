"""The ``backward`` family: ATen backward kernels checked against central differences of their forward.

An ATen operator that autograd calls (``aten::upsample_bicubic2d_backward``,
``aten::convolution_backward``, ...) has no OpInfo entry of its own. The agent
finds an OpInfo sample whose differentiation reaches it, the forward ATen call
whose backward calls it, and which of its outputs is the gradient of which of
that forward's arguments (``agent/facts/backward.py``). The test writes out
that forward call (its float inputs rounded to four decimals), a cotangent and
the kernel's arguments as autograd passed them on the CPU, calls the kernel on
the device, and compares each output with the central differences of the
forward in float64 on the CPU: a value the kernel itself never computed.
"""

from __future__ import annotations

import json
from typing import Any

from ..agent.facts.schema_calls import ArgLiteral
from ..api.records import ApiInfo
from .facts import Facts
from .operators import _comment_lines, lines_method
from .plan import CannotDecide, Method, TestPlan, coverage_rows, spelling_of, stem_of
from .render import render_helpers

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
    where it comes back (the kernel's ``grad_output`` is the cotangent)."""

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


def _spelled_op(name: str, overload: str) -> str:
    ns, op = name.split("::", 1)
    return f"torch.ops.{ns}.{op}.{overload or 'default'}"


def backward_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    bw = facts.get("backward") or {}
    if not bw.get("found"):
        raise CannotDecide(bw.get("problem") or "no backward facts")
    spelling = spelling_of(r)
    stem = stem_of(r)
    forward = _spelled_op(bw["forward"], bw["forward_overload"])
    variant = f" ({bw['variant_test_name']})" if bw.get("variant_test_name") else ""
    body = [
        f"# {line}"
        for line in _comment_lines(
            f"{bw['target']} is the gradient of {forward}: a sample of OpInfo {bw['opinfo']}{variant} calls it, "
            "here with its float inputs rounded to four decimals"
        )
    ]
    body += [f"forward = {forward}"]
    write = Writer(body)
    exprs, kw = write.call(bw["args"], bw["kwargs"])
    body += [f"args = [{', '.join(exprs)}]", f"kwargs = {{{', '.join(kw)}}}"]
    cots = [write(lit, f"cotangent{n}") for n, lit in enumerate(bw["cotangents"])]
    leaves, outputs = bw["leaves"], bw["outputs"]
    body += [
        f"cotangents = [{', '.join(cots)}]",
        "# the arguments differentiated, the outputs weighed by the cotangents",
        f"leaves, outputs = {leaves!r}, {outputs!r}",
        "# the kernel's arguments as autograd passes them when it differentiates the forward on",
        "# the CPU (recorded when this test was written; floats to seven significant digits)",
    ]
    kexprs, kkw = write.call(bw["kernel_args"], bw["kernel_kwargs"], "grad_")
    body += [f"call_args = [{', '.join(kexprs)}]", f"call_kwargs = {{{', '.join(kkw)}}}"]
    call_kwargs = "self._to_device(call_kwargs)"
    if bw.get("out"):
        outs = ", ".join(f'"{name}": torch.empty(0, device={device})' for name in bw["out"])
        call_kwargs = f"{{**self._to_device(call_kwargs), {outs}}}"
    body += [
        f"result = {spelling}(*self._to_device(call_args), **{call_kwargs})",
        "flat = torch.utils._pytree.tree_flatten(result)[0]",
        f"self.assertEqual(len(flat), {bw['results']})",
        "# central differences of sum(cotangent * output) of the forward, in float64 on the CPU",
        "expected = self._central_differences(forward, args, kwargs, leaves, outputs, cotangents)",
    ]
    rtol, atol = bw["tolerance"]
    for k, j in bw["pairs"]:
        body += [
            f"# output {k}: the gradient of the forward's argument {j}",
            f"self.assertEqual(flat[{k}].device.type, {device}.type)",
            f"torch.testing.assert_close(flat[{k}].detach().cpu().double(), expected[{j}], "
            f"rtol={rtol}, atol={atol})",
        ]
    methods: list[Method] = [lines_method(f"test_{stem}", body)]
    methods += [
        Method(name, src, helper=True)
        for name, src in render_helpers(
            "backward_helpers.py.j2", device=device, eps=repr(bw["eps"])
        )
    ]
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="backward",
        stem=stem,
        methods=tuple(methods),
        summary=(
            f"the gradient it returns for {forward} on a sample of OpInfo {bw['opinfo']}{variant}, against "
            "central differences of that forward in float64 on the CPU."
        ),
        coverage=coverage_rows(
            types="OpInfo 样例经 autograd 传给该反向算子的参数",
            normal="设备上的反向结果与前向在 float64 下的中心差分一致，结果位于被测设备",
        ),
        facts=facts,
    )


def backward_kernel(info: ApiInfo) -> bool:
    """An ATen operator named as a backward kernel (``torch.ops.aten.X_backward[.ov]``, ``torch._X_backward``)."""
    r = info.resolution
    names = [r.canonical, r.path, *r.aliases]
    aten = [n for n in names if n and n.startswith("torch.ops.aten.")]
    leaf = aten[0][len("torch.ops.aten.") :].split(".", 1)[0] if aten else r.path.rsplit(".", 1)[-1]
    if "backward" not in leaf:
        return False
    return bool(aten) or (r.kind in ("function", "builtin") and r.path.count(".") == 1)
