"""The agent runs in Python 3.8 environments: every file parses as 3.8 and uses no 3.9+ API.

Always on: each file of ``src/torchparity/agent/`` is parsed with
``feature_version=(3, 8)`` and scanned for standard-library APIs and runtime
typing forms that 3.8 lacks. Where a Python 3.8 interpreter is installed, the
package is also imported under it, its bytecode kept under the test's tmp folder.
"""

from __future__ import annotations

import ast
import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import torchparity.agent

AGENT = Path(torchparity.agent.__file__).parent
FILES = sorted(AGENT.rglob("*.py"))

#: (module, attribute) added after Python 3.8
NEWER_ATTRS = {
    ("math", "lcm"): "3.9",
    ("math", "nextafter"): "3.9",
    ("math", "ulp"): "3.9",
    ("functools", "cache"): "3.9",
    ("ast", "unparse"): "3.9",
    ("random", "randbytes"): "3.9",
    ("os", "waitstatus_to_exitcode"): "3.9",
    ("itertools", "pairwise"): "3.10",
    ("sys", "stdlib_module_names"): "3.10",
    ("inspect", "get_annotations"): "3.10",
}
#: modules added after Python 3.8
NEWER_MODULES = {"zoneinfo": "3.9", "graphlib": "3.9", "tomllib": "3.11"}
#: str/bytes methods added after Python 3.8
NEWER_METHODS = {"removeprefix": "3.9", "removesuffix": "3.9", "bit_count": "3.10"}
#: builtins that cannot be subscripted at runtime before 3.9
GENERIC_BUILTINS = {"list", "dict", "tuple", "set", "frozenset", "type"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def _is_dict(node: ast.AST) -> bool:
    return isinstance(node, (ast.Dict, ast.DictComp)) or (
        isinstance(node, ast.Call) and _dotted(node.func) == "dict"
    )


class _Scan(ast.NodeVisitor):
    """Collects ``line: what (needs Python X)`` for every 3.9+ use in one module."""

    def __init__(self, lazy_annotations: bool) -> None:
        self.lazy = lazy_annotations
        self.found: list[str] = []
        self._in_annotation = 0

    def _add(self, node: ast.AST, what: str, version: str) -> None:
        self.found.append(f"{getattr(node, 'lineno', '?')}: {what} (needs Python {version})")

    # imports and attributes
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            if root in NEWER_MODULES:
                self._add(node, f"import {alias.name}", NEWER_MODULES[root])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        root = (node.module or "").split(".")[0]
        if node.level == 0 and root in NEWER_MODULES:
            self._add(node, f"from {node.module} import ...", NEWER_MODULES[root])
        for alias in node.names:
            key = (node.module or "", alias.name)
            if node.level == 0 and key in NEWER_ATTRS:
                self._add(node, f"from {key[0]} import {key[1]}", NEWER_ATTRS[key])

    def visit_Attribute(self, node: ast.Attribute) -> None:
        key = (_dotted(node.value), node.attr)
        if key in NEWER_ATTRS:
            self._add(node, f"{key[0]}.{key[1]}", NEWER_ATTRS[key])
        elif node.attr in NEWER_METHODS:
            self._add(node, f".{node.attr}()", NEWER_METHODS[node.attr])
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if _dotted(node.func) == "zip" and any(k.arg == "strict" for k in node.keywords):
            self._add(node, "zip(strict=...)", "3.10")
        if (
            _dotted(node.func) in ("isinstance", "issubclass")
            and len(node.args) == 2
            and isinstance(node.args[1], ast.BinOp)
            and isinstance(node.args[1].op, ast.BitOr)
        ):
            self._add(node, "isinstance(x, A | B)", "3.10")
        self.generic_visit(node)

    # operators and typing forms evaluated at runtime
    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.BitOr):
            if _is_dict(node.left) or _is_dict(node.right):
                self._add(node, "dict | dict", "3.9")
            elif self._in_annotation and not self.lazy:
                self._add(node, "X | Y in an annotation evaluated at runtime", "3.10")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.op, ast.BitOr) and _is_dict(node.value):
            self._add(node, "dict |= dict", "3.9")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        name = _dotted(node.value)
        if name in GENERIC_BUILTINS and not (self._in_annotation and self.lazy):
            self._add(node, f"{name}[...] at runtime", "3.9")
        self.generic_visit(node)

    def _annotation(self, node: ast.AST | None) -> None:
        if node is None:
            return
        self._in_annotation += 1
        self.visit(node)
        self._in_annotation -= 1

    def visit_arg(self, node: ast.arg) -> None:
        self._annotation(node.annotation)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for deco in node.decorator_list:
            self.visit(deco)
        self.visit(node.args)
        self._annotation(node.returns)
        for stmt in node.body:
            self.visit(stmt)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._annotation(node.annotation)
        if node.value is not None:
            self.visit(node.value)


def scan(source: str, filename: str = "<agent>") -> list[str]:
    """Parse as Python 3.8 (a SyntaxError says what) and list the 3.9+ uses."""
    tree = ast.parse(source, filename, feature_version=(3, 8))
    lazy = any(
        isinstance(n, ast.ImportFrom)
        and n.module == "__future__"
        and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    )
    scanner = _Scan(lazy)
    scanner.visit(tree)
    return scanner.found


def test_every_agent_file_is_python_38() -> None:
    assert len(FILES) >= 10
    problems = {}
    for path in FILES:
        try:
            found = scan(path.read_text("utf-8"), str(path))
        except SyntaxError as exc:
            found = [f"{exc.lineno}: {exc.msg} (Python 3.8 grammar)"]
        if found:
            problems[path.name] = found
    assert problems == {}


@pytest.mark.parametrize(
    ("code", "says"),
    [
        ("name = 'x'.removeprefix('y')", ".removeprefix()"),
        ("b = a.removesuffix(c)", ".removesuffix()"),
        ("import math\nn = math.lcm(2, 3)", "math.lcm"),
        ("from functools import cache", "from functools import cache"),
        ("import functools\n@functools.cache\ndef f():\n    pass", "functools.cache"),
        ("import zoneinfo", "import zoneinfo"),
        ("from graphlib import TopologicalSorter", "from graphlib import"),
        ("merged = {'a': 1} | other", "dict | dict"),
        ("merged = dict(a=1) | dict(b=2)", "dict | dict"),
        ("def f(x: int | None):\n    pass", "X | Y in an annotation"),
        ("def f() -> str | None:\n    pass", "X | Y in an annotation"),
        ("names: list[str] = []", "list[...] at runtime"),
        ("def f(x: dict[str, int]):\n    pass", "dict[...] at runtime"),
        ("Pair = tuple[int, int]", "tuple[...] at runtime"),
        ("ok = isinstance(v, int | str)", "isinstance(x, A | B)"),
        ("for a, b in zip(x, y, strict=True):\n    pass", "zip(strict=...)"),
    ],
)
def test_the_scan_finds_each_newer_form(code: str, says: str) -> None:
    found = scan(code)
    assert any(says in f for f in found), found


@pytest.mark.parametrize(
    "code",
    [
        "flags = a | b",  # ints, sets: fine on 3.8
        "from __future__ import annotations\ndef f(x: int | None) -> list[str]:\n    pass",
        "import typing\ndef f(x: typing.Optional[int]) -> typing.List[str]:\n    pass",
        "text = 'abc'.lstrip('a')",
        "import os\nif hasattr(os, 'pidfd_open'):\n    fd = os.pidfd_open(1)",
    ],
)
def test_code_that_runs_on_38_is_not_flagged(code: str) -> None:
    assert scan(code) == []


@pytest.mark.parametrize(
    "code", ["match x:\n    case 1:\n        pass", "with (open(a) as f, open(b) as g):\n    pass"]
)
def test_newer_grammar_does_not_parse_as_38(code: str) -> None:
    with pytest.raises(SyntaxError):
        scan(code)


def _python38() -> str | None:
    cands = [shutil.which("python3.8")] + sorted(
        glob.glob(os.path.expanduser("~/.pyenv/versions/3.8*/bin/python"))
    )
    for c in cands:
        if (
            c
            and subprocess.run(
                [c, "-c", "import sys; assert sys.version_info[:2] == (3, 8)"], capture_output=True
            ).returncode
            == 0
        ):
            return c
    return None


_IMPORT_ALL = """\
import importlib, pkgutil, sys
import agent
names = sorted(m.name for m in pkgutil.walk_packages(agent.__path__, "agent."))
for name in names:
    importlib.import_module(name)
assert "torch" not in sys.modules, "importing the agent imported torch"
print(" ".join(names))
"""


@pytest.mark.slow
def test_the_agent_package_imports_under_python_38(tmp_path: Path) -> None:
    py38 = _python38()
    if py38 is None:
        pytest.skip("no Python 3.8 interpreter here (python3.8 on PATH or ~/.pyenv/versions/3.8*)")
    before = {p for p in AGENT.rglob("*.pyc")}
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    }
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
    proc = subprocess.run(
        [py38, "-c", _IMPORT_ALL],
        cwd=AGENT.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    dotted = {
        ".".join(("agent", *p.relative_to(AGENT).with_suffix("").parts)).removesuffix(".__init__")
        for p in FILES
    }
    assert set(proc.stdout.split()) == dotted - {"agent"}
    assert list((tmp_path / "pycache").rglob("*.cpython-38.pyc"))  # the bytecode went here
    assert {p for p in AGENT.rglob("*.pyc")} == before  # and nothing into the source tree
