"""The ``doctest`` family: the API's docstring examples, run on the device and on the CPU.

The agent ran the ``>>>`` examples in order and kept those that reproduce
their printed results (or documented exceptions) here. The test runs the kept
examples twice, on the device (tensor factories get ``device=``) and on the
CPU, and compares each shown result with the value the docstring prints
(tensors: shape, dtype, and values within 1e-4, the 4 decimals a repr prints)
and the device result with the CPU one. Left-out examples are listed in the
test with the reason (needs CUDA, the network, a file; differs here).
"""

from __future__ import annotations

import ast
import re

from .. import pyast
from ..api.records import ApiInfo
from .code import double_quoted, indent, method
from .facts import Facts
from .plan import CannotDecide, Method, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.doctest import (
    DEVICE_KEYWORD,
    FACTORIES,
    FACTORY_NAMESPACE,
    MODULE_NAMESPACES,
    NOT_MODULES,
)

TOLERANCE = "1e-4"

HELPER = '''\
    def _assert_documented(self, actual, expected):
        """A result against the value its docstring prints: tensors by shape, dtype and values
        (within the 4 decimals a repr prints), containers item by item, other values equal."""
        if isinstance(expected, torch.Tensor):
            self.assertIsInstance(actual, torch.Tensor)
            self.assertEqual(actual.shape, expected.shape)
            self.assertEqual(actual.dtype, expected.dtype)
            torch.testing.assert_close(
                actual.detach().cpu(), expected, rtol=1e-4, atol=1e-4, equal_nan=True
            )
        elif isinstance(expected, (list, tuple)):
            self.assertEqual(len(actual), len(expected))
            for index, want in enumerate(expected):
                self._assert_documented(actual[index], want)
        elif isinstance(expected, dict):
            self.assertEqual(list(actual), list(expected))
            for key, want in expected.items():
                self._assert_documented(actual[key], want)
        elif isinstance(expected, float):
            self.assertAlmostEqual(actual, expected, delta=1e-4 * max(1.0, abs(expected)))
        else:
            self.assertEqual(type(actual), type(expected))
            self.assertEqual(actual, expected)
'''


def _dotted(node: ast.expr) -> str:
    """``torch.nn`` for the expression ``torch.nn``: a name and its attributes, else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr}" if owner else ""
    return ""


def _module_class_call(node: ast.Call) -> bool:
    """``nn.Linear(5, 3)`` or ``torch.nn.Linear(5, 3)``: a module built by an example."""
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr[:1].isupper()
        and func.attr not in NOT_MODULES
        and _dotted(func.value) in MODULE_NAMESPACES
    )


def on_device(source: str, device: str = "device") -> str:
    """``source`` with ``device=`` added to each ``torch.<factory>(...)`` call that has none, and each
    module an example builds (``nn.Linear(5, 3)``) moved there: a mask on the device meets its weights."""
    try:
        tree = pyast.parse_module(source)
    except SyntaxError:
        return source
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    inserts: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and _module_class_call(node)
            and node.end_lineno is not None
            and node.end_col_offset is not None
        ):
            inserts.append((offsets[node.end_lineno - 1] + node.end_col_offset, f".to({device})"))
            continue
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and _dotted(node.func.value) == FACTORY_NAMESPACE
            and node.func.attr in FACTORIES
        ):
            continue
        if (
            any(k.arg == DEVICE_KEYWORD for k in node.keywords)
            or node.end_lineno is None
            or node.end_col_offset is None
        ):
            continue
        end = offsets[node.end_lineno - 1] + node.end_col_offset - 1  # the closing parenthesis
        empty = not node.args and not node.keywords
        keyword = f"{DEVICE_KEYWORD}={device}"
        inserts.append((end, keyword if empty else f", {keyword}"))
    for at, text in sorted(inserts, reverse=True):
        source = source[:at] + text + source[at:]
    return source


def _expected_ok(expected: str) -> bool:
    try:
        tree = pyast.parse_expression(expected)
    except SyntaxError:
        return False
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return names <= {"torch", "inf", "nan"}


def _expected_source(expected: str) -> str:
    return re.sub(r"\b(inf|nan)\b", r'float("\1")', expected)


def doctest_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    doc = facts.get("doctest") or {}
    examples = list(doc.get("examples") or [])
    if not doc.get("kept"):
        raise CannotDecide(doc.get("problem") or "no docstring example")
    spelling = spelling_of(r)
    stem = stem_of(r)
    leaf = str(doc.get("leaf") or r.path.rsplit(".", 1)[-1])
    body: list[str] = []
    run: list[str] = []
    documented: list[str] = []
    left_out: list[str] = []
    raising = 0
    for ex in examples:
        source = str(ex["source"]).rstrip("\n")
        first = source.splitlines()[0] if source else ""
        if not ex.get("kept"):
            left_out.append(f"`{first[:60]}`: {ex.get('why') or 'left out'}")
            continue
        code = on_device(source)
        if ex.get("raises"):
            run += [f"with self.assertRaises({ex['raises']}):", *indent(code.splitlines())]
            raising += 1
        elif ex.get("expected"):
            expected = str(ex["expected"])
            if not _expected_ok(expected):
                left_out.append(f"`{first[:60]}`: its printed result names more than torch")
                continue
            run.append(f"shown.append(keep({on_device(str(ex['shown']))}))")
            documented.append(_expected_source(expected))
        else:
            run += code.splitlines()
    if not documented and not raising:
        raise CannotDecide("no kept example shows a result a test can compare")
    uses_leaf = leaf.isidentifier() and any(
        re.search(rf"(?<![\w.]){re.escape(leaf)}\(", line) for line in run
    )
    head = [f"{leaf} = {spelling}"] if uses_leaf and leaf != spelling else []
    body.append(
        "# The docstring's examples, on the device and on the CPU, against the results it prints"
    )
    body.append(
        f"# (tensors: shape, dtype, and values within {TOLERANCE}: the 4 decimals a repr prints)."
    )
    for note in left_out:
        body.append(f"# left out: {note}")
    keep = (
        [
            "def keep(value):  # the value as shown then: a later example may change it in place",
            "    return torch.utils._pytree.tree_map_only(torch.Tensor, lambda t: t.detach().clone(), value)",
            "",
        ]
        if documented
        else []
    )
    body += ["def run(device):", *indent(head + keep + ["shown = []"] + run + ["return shown"]), ""]
    body.append("documented = [")
    body += [f"    {d}," for d in documented]
    body.append("]")
    body += [
        f"results = run({device})",
        'cpu_results = run(torch.device("cpu"))',
        "self.assertEqual(len(results), len(documented))",
        "for index, expected in enumerate(documented):",
        "    self._assert_documented(results[index], expected)",
        "    self._assert_documented(cpu_results[index], expected)",
        "    self._assert_documented(results[index], cpu_results[index])",
    ]
    if not documented:
        body = body[: body.index("documented = [")] + [f"run({device})", 'run(torch.device("cpu"))']
    name = f"test_{stem}_docstring_examples"
    lines = [double_quoted(line) for line in body]
    methods = [Method(name, method(name, lines))]
    if documented:
        methods.append(Method("_assert_documented", HELPER, helper=True))
    what = (
        f"{len(documented)} docstring example(s) against their printed results"
        + (f" and {raising} documented exception(s)" if raising else "")
        + ", on the device and on the CPU"
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="doctest",
        stem=stem,
        methods=tuple(methods),
        imports=_namespace_imports(run),
        summary=what
        + (f"; {len(left_out)} example(s) left out (reasons in the test)" if left_out else "")
        + ".",
        coverage=coverage_rows(normal=what, invalid="文档示例中的异常" if raising else ""),
        notes=tuple(f"docstring example left out: {n}" for n in left_out),
        facts=facts,
    )


#: names the agent's example namespace binds beyond ``torch`` (agent/facts/doctest.py), and their imports
NAMESPACE_IMPORTS = (
    ("np", "import numpy as np"),
    ("numpy", "import numpy"),
    ("math", "import math"),
    ("nn", "from torch import nn"),
    ("F", "import torch.nn.functional as F"),
    ("namedtuple", "from collections import namedtuple"),
)


def _namespace_imports(lines: list[str]) -> tuple[str, ...]:
    """The imports of the namespace names the examples use (``numpy.array``, ``np.ones``, ``math.pi``)."""
    text = "\n".join(lines)
    return tuple(
        imp for name, imp in NAMESPACE_IMPORTS if re.search(rf"(?<![\w.]){name}\b(?!\s*=)", text)
    )
