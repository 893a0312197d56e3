"""Families for callables: OpInfo operators, Tensor members, functions known by their signature."""

from __future__ import annotations

import ast
import re
from typing import Any

from ..api.records import ApiInfo
from .code import wrap_line
from .facts import Facts
from .plan import CannotDecide, Method, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.opinfo import METHOD_CALL_OWNER
from .recipes.tensor import TENSOR_FORMULAS
from .render import render, render_helpers
from .states import STATE_CODE

OPDB_IMPORT = "from torch.testing._internal.common_methods_invocations import op_db"
#: dtype words in docs restrictions (限制与说明) and on the command line -> torch dtype names
DTYPE_WORDS = {
    "fp16": "float16",
    "float16": "float16",
    "half": "float16",
    "fp32": "float32",
    "float32": "float32",
    "float": "float32",
    "bf16": "bfloat16",
    "bfloat16": "bfloat16",
    "fp64": "float64",
    "float64": "float64",
    "double": "float64",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "long": "int64",
    "uint8": "uint8",
    "bool": "bool",
    "complex64": "complex64",
    "complex128": "complex128",
}


def dtypes_from_text(text: str) -> list[str]:
    """dtype names a docs restriction or a flag mentions (``支持fp16、fp32``), in order, deduplicated."""
    out: list[str] = []
    for word in re.findall(r"[A-Za-z]+[0-9]*", text or ""):
        name = DTYPE_WORDS.get(word.lower())
        if name and name not in out:
            out.append(name)
    return out


# -- OpInfo ------------------------------------------------------------------------------------
def _call_builder(spelling: str, kind: str, leaf: str, wrapper_args: str = ""):
    def call(var: str) -> str:
        args = f"{var}.input, *{var}.args, **{var}.kwargs"
        if kind == "wrapper":  # the OpInfo's lambda rearranges the sample for the API (embedding)
            return f"{spelling}({wrapper_args.replace('@S@', var)})"
        if kind == "function":
            return f"{spelling}({args})"
        return f"torch.Tensor.{leaf}({args})"

    return call


def opinfo_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    op = facts.get("opinfo") or {}
    if not op.get("found"):
        raise CannotDecide(
            op.get("error") or op.get("problem") or "no OpInfo entry in this torch's op_db"
        )
    if not op.get("dtypes"):
        why = "; ".join(f"{e['dtype']}: {e['reason']}" for e in op.get("excluded", []))
        raise CannotDecide(f"OpInfo {op['name']} has no dtype to check ({why})")
    spelling = spelling_of(r)
    leaf = r.path.rsplit(".", 1)[-1]
    kind = op["call"]
    if kind not in ("function", "wrapper") and r.owner_class != METHOD_CALL_OWNER:
        kind = "function"
    if kind == "wrapper" and not op.get("wrapper_args"):
        raise CannotDecide(
            f"OpInfo {op['name']} wraps the API in a lambda whose call could not be read"
        )
    call = _call_builder(spelling, kind, leaf, op.get("wrapper_args", ""))
    stem = stem_of(r)
    test = f"test_{stem}"
    dtypes = [f"torch.{d}" for d in op["dtypes"]]
    notes = [f"{e['dtype']} left out: {e['reason']}" for e in op.get("excluded", [])]
    reference = op["reference"]
    cpu_dtypes = [f"torch.{d}" for d in op.get("cpu_dtypes") or []]
    errors = (op.get("error_inputs") or {}).get("count", 0) > 0 and kind == "function"
    source = render(
        "opinfo.py.j2",
        test=test,
        opinfo_name=op["name"],
        lookup=_lookup(op["name"], op.get("variant_test_name", "")),
        dtypes=dtypes,
        dtype_notes=[line for n in notes for line in _comment_lines(n)],
        call_kind=kind,
        reference=reference,
        call=call,
        device=device,
        error_inputs=errors,
        cpu_reference=bool(op.get("cpu_reference")) and reference != "cpu",
        cpu_dtypes=cpu_dtypes,
    )
    tol = ", ".join(
        f"torch.{k}: ({v[0]}, {v[1]})" for k, v in sorted((op.get("tolerances") or {}).items())
    )
    unused = (
        {"_assert_matches", "_on_cpu"} if reference == "meta" else set()
    )  # no value is compared
    helpers = [
        Method(name, src, helper=True)
        for name, src in render_helpers(
            "opinfo_helpers.py.j2", device=device, tolerances="{" + tol + "}"
        )
        if name not in unused
    ]
    if reference == "meta":
        helpers.append(metadata_helper())
    methods = split_methods(source)
    ref_text = {
        "numpy": "the OpInfo's NumPy reference",
        "float64": "the same computation in float64 on the CPU",
        "cpu": "the CPU result",
        "meta": "the shape, dtype, layout, strides and requires_grad the meta kernels give (its values are undefined)",
    }[reference]
    ref_zh = {
        "numpy": "OpInfo 的 NumPy 参考实现",
        "float64": "CPU 上的 float64 计算结果",
        "cpu": "CPU 计算结果",
        "meta": "meta 设备给出的形状、dtype、布局、步长与 requires_grad（其值未定义）",
    }[reference]
    variant = {
        "function": "",
        "wrapper": " (its arguments as the OpInfo's lambda passes them)",
        "method": " (method variant)",
        "inplace": " (in-place variant)",
    }[kind]
    if op.get("cpu_reference") and reference != "cpu":
        ref_text += " and with the CPU result"
        ref_zh += "及 CPU 计算结果"
        if cpu_dtypes:
            ref_text += f" ({', '.join(op['cpu_dtypes'])}: with the CPU result only)"
    dtype_names = [*op["dtypes"], *(op.get("cpu_dtypes") or [])]
    summary = (
        f"every sample input of OpInfo {op['name']}{variant} for {', '.join(dtype_names)}, "
        f"computed on the device and compared with {ref_text}"
        + (", and its error inputs raising the documented error types." if errors else ".")
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="opinfo",
        stem=stem,
        methods=(*methods, *helpers),
        imports=(OPDB_IMPORT,),
        summary=summary,
        coverage=coverage_rows(
            empty="OpInfo 样例输入中的空张量与 0 维张量（以 OpInfo 为准）",
            enum="dtype：" + "、".join(dtype_names),
            types="OpInfo 样例覆盖的参数类型（张量、标量等）",
            omitted="OpInfo 样例覆盖的可选参数传与不传",
            boundary="OpInfo 样例覆盖的形状与取值",
            normal=f"设备计算结果与 {ref_zh}一致，结果位于被测设备",
            invalid="OpInfo error_inputs 抛出约定的异常类型" if errors else "",
        ),
        notes=tuple(notes),
        facts=facts,
    )


#: what an operator of undefined values (OpInfo: "not comparable") defines, against the meta kernels
_METADATA_HELPER = [
    "    def _assert_same_metadata(self, actual, expected, kwargs):",
    '        """What an operator of undefined values defines (not its values): the meta kernels\' result\'s',
    '        metadata, and the dtype=, layout= and requires_grad= the call was given (as documented)."""',
    "        if isinstance(expected, (tuple, list)):",
    "            self.assertEqual(len(actual), len(expected))",
    "            for index, item in enumerate(expected):",
    "                self._assert_same_metadata(actual[index], item, {})",
    "            return",
    "        self.assertIsInstance(actual, torch.Tensor)",
    '        for what in ("dtype", "layout", "requires_grad"):',
    "            if kwargs.get(what) is not None:",
    '                self.assertEqual(getattr(actual, what), kwargs[what], what + "= given")',
    "        self.assertEqual(actual.shape, expected.shape)",
    "        self.assertEqual(actual.dtype, expected.dtype)",
    "        self.assertEqual(actual.layout, expected.layout)",
    "        self.assertEqual(actual.requires_grad, expected.requires_grad)",
    "        if actual.layout == torch.strided:",
    "            self.assertEqual(actual.stride(), expected.stride())",
]


def metadata_helper() -> Method:
    """The ``_assert_same_metadata`` helper method (shape, dtype, layout, requires_grad, strides)."""
    return Method("_assert_same_metadata", "\n".join(_METADATA_HELPER) + "\n", helper=True)


def lines_method(name: str, lines: list[str]) -> Method:
    """One test method ``name`` whose body is ``lines`` (relative to the method)."""
    return split_methods(
        f"    def {name}(self):\n" + "".join(f"        {line}\n" for line in lines)
    )[0]


def split_methods(source: str) -> list[Method]:
    """The ``def`` blocks of rendered class-body source, one Method each (long lines wrapped)."""
    out = []
    for chunk in re.split(r"\n(?=    def )", source.strip("\n")):
        chunk = chunk.strip("\n")
        if chunk.startswith("    def "):
            lines = [piece for line in chunk.split("\n") for piece in wrap_line(line)]
            out.append(Method(chunk[8:].split("(", 1)[0], "\n".join(lines) + "\n"))
    return out


def _lookup(name: str, variant: str) -> str:
    """``op = next(...)``: the OpInfo entry by name and variant, on one line when it fits."""
    cond = f"o.name == {_quoted(name)} and o.variant_test_name == {_quoted(variant)}"
    one = f"op = next(o for o in op_db if {cond})"
    if len(one) + 8 <= 100:
        return one
    return f"op = next(\n            o for o in op_db if {cond}\n        )"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _comment_lines(text: str, width: int = 88) -> list[str]:
    """A note wrapped into comment lines of at most ``width`` characters."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = "  " + word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines


# -- Tensor members -------------------------------------------------------------------------------
def tensor_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    t = facts.get("tensor") or {}
    rows = t.get("shapes") or []
    if not rows:
        raise CannotDecide(t.get("problem") or "no Tensor facts")
    leaf = r.path.rsplit(".", 1)[-1]
    prop = r.kind in ("property", "attribute")
    access = f"x.{leaf}" if prop else f"x.{leaf}()"
    access_cpu = f"x.cpu().{leaf}" if prop else f"x.cpu().{leaf}()"
    formula = TENSOR_FORMULAS.get(leaf, "")
    if formula and not all(row.get("formula_ok") for row in rows):
        formula = ""  # the shape rule does not hold here: fall back to the measured values
    values = [
        (_shape(row["shape"]), literal)
        for row in rows
        if (literal := row.get("literal")) is not None
    ]
    raising: dict[str, list[str]] = {}
    for row in rows:
        if raises := row.get("raises"):
            raising.setdefault(raises, []).append(_shape(row["shape"]))
    unusable = [row for row in rows if row.get("literal") is None and not row.get("raises")]
    if not formula and (unusable or not (values or raising)):
        raise CannotDecide(f"{access} gives values a test cannot hold literally for some shapes")
    if not formula and not values:
        raise CannotDecide(
            f"{access} only raises ({', '.join(sorted(raising))}): it needs arguments"
        )
    tensor_values = any(v.startswith("torch.tensor(") for _, v in values)
    stem = stem_of(r)
    compare_cpu = not device_is_cpu(facts)
    source = render(
        "tensor.py.j2",
        test=f"test_{stem}",
        formula=formula,
        shapes=[_shape(row["shape"]) for row in rows],
        access=access,
        access_cpu=access_cpu,
        compare_cpu=compare_cpu,
        device=device,
        values=values,
        tensor_values=tensor_values,
        raising=sorted(raising.items()),
    )
    if prop:
        source = source.replace(
            f"\n                {access}\n", f"\n                _ = {access}\n"
        )
    expected = f"`{formula}`" if formula else "the values measured on the CPU"
    return TestPlan(
        api=r.canonical,
        spelling=spelling_of(r),
        family="tensor",
        stem=stem,
        methods=tuple(split_methods(source)),
        imports=("import math",),
        summary=(
            f"{access} on device tensors of shapes {', '.join(_shape(row['shape']) for row in rows)} "
            f"(0-d and empty included) against {expected}"
            + (" and the CPU result." if compare_cpu else ".")
        ),
        coverage=coverage_rows(
            empty="空张量 (0,)、(2, 0, 4) 与非空张量",
            types="float32 张量",
            boundary="0 维、1 维、2 维、3 维张量",
            normal="设备上的结果与预期值" + ("及 CPU 结果" if compare_cpu else "") + "一致",
            invalid="、".join(
                f"{exc}（形状 {', '.join(s)}）" for exc, s in sorted(raising.items())
            ),
        ),
        facts=facts,
    )


def _shape(shape: list[int]) -> str:
    if not shape:
        return "()"
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(d) for d in shape) + ")"


def device_is_cpu(facts: Facts) -> bool:
    return str(facts.get("device_type") or "cpu") == "cpu"


# -- functions by signature -----------------------------------------------------------------------
def _passes_bool(args: str) -> bool:
    """Whether a call's argument text passes a boolean literal (``x, keepdim=True``)."""
    try:
        call = ast.parse(f"f({args})", mode="eval").body
    except SyntaxError:
        return False
    if not isinstance(call, ast.Call):  # text that closes the call early (``x), (True``)
        return False
    values = list(call.args) + [k.value for k in call.keywords]
    return any(isinstance(v, ast.Constant) and isinstance(v.value, bool) for v in values)


def signature_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    calls = facts.get("calls") or {}
    if calls.get("problem") or not (calls.get("valid") or calls.get("invalid")):
        raise CannotDecide(calls.get("problem") or "no call with a result a test can hold")
    spelling = spelling_of(r)
    stem = stem_of(r)
    test = f"test_{stem}"
    valid: list[dict[str, Any]] = []
    for case in calls["valid"]:
        lit = case["literal"]
        args = case["args"].replace("DEVICE", device)
        checks = [(STATE_CODE[n].getter, v) for n, v in case.get("states", []) if n in STATE_CODE]
        if lit == "None" and not checks:
            continue
        valid.append(
            {
                "args": args,
                "literal": lit,
                "tensor": lit.startswith("torch.tensor("),
                "float": case.get("type") == "float",
                "identity": lit in ("True", "False", "None"),
                "statement": lit == "None",
                "states": checks,
            }
        )
    if not valid:
        raise CannotDecide(
            "every call returned None and changed no state the registry knows"
            if calls.get("valid")
            else "no valid call succeeded (only invalid ones)"
        )
    invalid = [
        {"args": c["args"].replace("DEVICE", device), "raises": c["raises"]}
        for c in calls.get("invalid", [])
    ]
    states = [s["name"] for s in facts.get("states", []) if s.get("available")]
    restore = [STATE_CODE[s] for s in states if s in STATE_CODE and STATE_CODE[s].restore]
    lacking = [s for s in states if s not in STATE_CODE or not STATE_CODE[s].restore]
    if lacking:
        raise CannotDecide(f"it changes {', '.join(lacking)}, which the test could not restore")
    valid_block = render("signature_valid.py.j2", valid=valid, spelling=spelling).rstrip("\n")
    if not valid:
        valid_block = ""
    source = render(
        "signature.py.j2",
        test=test,
        spelling=spelling,
        valid_block=valid_block,
        invalid=invalid,
        restore=bool(restore),
        restore_save=[(f"saved_{s.var}", s.getter) for s in restore],
        restore_lines=[s.restore.replace("{v}", f"saved_{s.var}") for s in restore],
    )
    methods = split_methods(source)
    on = str(calls.get("measured_on") or "")
    where, cn = (on, on) if on else ("the CPU", "CPU")
    differs = [d for d in calls.get("differs") or [] if isinstance(d, dict)]
    notes = (
        (
            f"{len(differs)} call(s) measured on {on} gave another outcome than in a child forked "
            f"on the CPU; the test asserts {on}'s (check them against the documentation): "
            + "; ".join(
                f"{spelling}({d.get('args')}) {d.get('device')} (CPU: {d.get('cpu')})"
                for d in differs[:3]
            )
            + ("; ..." if len(differs) > 3 else ""),
        )
        if on and differs
        else ()
    )
    params = calls.get("params", [])
    varied = sorted({c["varies"] for c in calls["valid"] if c.get("varies")})
    uses_device = any("DEVICE" in c["args"] for c in calls["valid"] + calls.get("invalid", []))
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="signature",
        stem=stem,
        methods=tuple(methods),
        summary=(
            f"{len(valid)} valid calls (results measured on {where} with torch "
            f"{facts.get('torch_version', '')})"
            + (
                f" and {len(invalid)} invalid ones (the exception type measured on {where})"
                if invalid
                else ""
            )
            + (
                f", restoring the {', '.join(s.title for s in restore)} it changes."
                if restore
                else "."
            )
        ),
        coverage=coverage_rows(
            empty="传入 None" if any("None" in c["args"] for c in valid + invalid) else "",
            enum="bool 参数取 False/True" if any(_passes_bool(c["args"]) for c in valid) else "",
            types="参数取值：" + "、".join(params) if params else "",
            omitted="可选参数省略与显式传入"
            if any(c.get("varies") for c in calls["valid"])
            else "",
            boundary="参数 " + "、".join(varied) + " 的多个取值" if varied else "",
            normal=f"{len(valid)} 个合法调用，返回值与 {cn} 实测一致",
            invalid=f"{len(invalid)} 个非法调用，异常类型与 {cn} 实测一致" if invalid else "",
        ),
        uses_device=uses_device,
        notes=notes,
        facts=facts,
    )
