"""The tests a Python test file defines, read from its source (never imported or run).

``SourceTests`` knows each class's test methods (``test*``, inherited from classes
in the same file), its module-level ``test*`` functions (pytest), and whether
the file can make tests its source does not spell: device/parametrize
generators, ``setattr``, ``load_tests``, bases or test classes from other
modules. Only a *closed* file has a countable set of tests.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .. import pyast

#: calls and decorators that make test names the source does not spell
GENERATORS = re.compile(
    r"^(?:instantiate_\w+|parametrize\w*|parameterized\w*|dtypes\w*|ops|onlyOn\w*|expand|"
    r"setattr|exec|load_tests|add_test\w*|make_test\w*|generate\w*|create_test\w*)$"
)
#: bases that are a TestCase and add no tests of their own
TESTCASE_BASES = re.compile(
    r"^(?:\w+\.)*(?:\w*TestCase|TestCaseBase|NPUTestCase|TestBase|object|Generic|ABC)$"
)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _name(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    if isinstance(node, ast.Call):
        return _name(node.func)
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    return ""


@dataclass
class ClassInfo:
    name: str
    bases: tuple[str, ...]
    tests: set[str] = field(default_factory=set)
    line: int = 0


@dataclass
class SourceTests:
    path: str
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    functions: set[str] = field(default_factory=set)
    #: why tests may exist that the source does not spell ("" when none)
    open_reason: str = ""
    #: imported names that look like test classes (collected by unittest when imported)
    imported_tests: tuple[str, ...] = ()
    syntax_error: str = ""

    def tests_of(self, cls: str, _seen: frozenset[str] = frozenset()) -> set[str] | None:
        """Test names of class ``cls`` (inherited from in-file bases); None when a base is elsewhere."""
        info = self.classes.get(cls)
        if info is None or cls in _seen:
            return None
        out = set(info.tests)
        for base in info.bases:
            short = base.rsplit(".", 1)[-1]
            if short in self.classes and short != cls:
                inherited = self.tests_of(short, _seen | {cls})
                if inherited is None:
                    return None
                out |= inherited
            elif not TESTCASE_BASES.match(base):
                return None
        return out

    def is_testcase(self, cls: str, _seen: frozenset[str] = frozenset()) -> bool:
        info = self.classes.get(cls)
        if info is None or cls in _seen:
            return False
        for base in info.bases:
            short = base.rsplit(".", 1)[-1]
            if short in self.classes and short != cls and self.is_testcase(short, _seen | {cls}):
                return True
            if re.search(r"TestCase$|TestBase$", short) and short not in self.classes:
                return True
        return False

    def all_tests(self) -> set[str]:
        out = set(self.functions)
        for info in self.classes.values():
            out |= info.tests
        return out

    def defines(self, name: str, cls: str = "") -> bool:
        if cls:
            found = self.tests_of(cls)
            if found is not None and name in found:
                return True
            if found is not None:
                return False
            info = self.classes.get(cls)
            return info is not None and name in info.tests
        return name in self.all_tests()

    def generated_from(self, name: str) -> str:
        """A test the file spells that a generator may have expanded into ``name`` (``test_x`` -> ``test_x_npu``)."""
        best = ""
        for t in self.all_tests():
            if name.startswith(t + "_") and len(t) > len(best):
                best = t
        return best

    @property
    def closed(self) -> bool:
        return not (self.open_reason or self.syntax_error)

    def count(self) -> int | None:
        """How many tests ``python FILE`` runs, when the file is closed (None otherwise)."""
        if not self.closed:
            return None
        total = 0
        for name in self.classes:
            if not self.is_testcase(name):
                continue
            tests = self.tests_of(name)
            if tests is None:
                return None
            total += len(tests)
        return total


def read_tests(path: str, source: bytes) -> SourceTests:
    out = SourceTests(path)
    try:
        tree = pyast.parse_module(source.decode("utf-8", "replace"))
    except SyntaxError as exc:
        out.syntax_error = f"line {exc.lineno}: {exc.msg}"
        return out
    reasons: list[str] = []
    imported: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = _name(node.func).rsplit(".", 1)[-1]
            if GENERATORS.match(called):
                reasons.append(f"{called}() at line {node.lineno}")
        elif (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "load_tests"
        ):
            reasons.append(f"load_tests at line {node.lineno}")
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                local = alias.asname or alias.name
                if alias.name == "*":
                    reasons.append(f"'from {node.module} import *' at line {node.lineno}")
                elif re.match(r"^Test(?!Case$)\w+", local) and not local.endswith("TestCase"):
                    imported.append(local)
    _walk_classes(tree.body, out)
    for info in out.classes.values():
        for base in info.bases:
            short = base.rsplit(".", 1)[-1]
            if short not in out.classes and not TESTCASE_BASES.match(base):
                reasons.append(f"class {info.name} derives from {base}, defined elsewhere")
                break
    if imported:
        reasons.append(f"imports test classes {', '.join(imported)}")
    out.imported_tests = tuple(imported)
    out.open_reason = "; ".join(dict.fromkeys(reasons))
    return out


def _class_tests(body: list[ast.stmt], into: set[str]) -> None:
    """``test*`` names a class body defines: methods, assignments, inside ``if``/``try`` too."""
    for item in body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith(
            "test"
        ):
            into.add(item.name)
        elif isinstance(item, ast.Assign):
            into.update(
                t.id for t in item.targets if isinstance(t, ast.Name) and t.id.startswith("test")
            )
        elif isinstance(item, (ast.If, ast.Try, ast.With)):
            _class_tests(
                item.body + getattr(item, "orelse", []) + getattr(item, "finalbody", []), into
            )


def _walk_classes(body: list[ast.stmt], out: SourceTests) -> None:
    for node in body:
        if isinstance(node, ast.ClassDef):
            info = ClassInfo(
                node.name, tuple(_name(b) for b in node.bases if _name(b)), line=node.lineno
            )
            _class_tests(node.body, info.tests)
            out.classes.setdefault(node.name, info)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            out.functions.add(node.name)
        elif isinstance(node, (ast.If, ast.Try)):
            _walk_classes(
                node.body + getattr(node, "orelse", []) + getattr(node, "finalbody", []), out
            )
