"""What a test file's source says beyond coverage's facts: docstring, noqa imports, TestCase bases, run_tests.

Which tests use an API is coverage's question (``coverage.extract``); this
module answers the rest from the AST and tokens: module-level code included,
which coverage's facts leave out.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

from .. import pyast

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
#: longest code quoted in a checklist reason
MAX_CODE = 80


def shorten(code: str) -> str:
    return code if len(code) <= MAX_CODE else code[: MAX_CODE - 3] + "..."


@dataclass(frozen=True)
class Site:
    """A place in the file: its line, the code there (shortened) and the enclosing function."""

    line: int
    code: str
    function: str  # Class.test_x; "" at module level

    @property
    def in_test(self) -> bool:
        return any(part.startswith("test") for part in self.function.split(".") if part)


@dataclass(frozen=True)
class NoqaImport:
    line: int
    code: str
    names: tuple[str, ...]
    used: bool


def _bindings(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
    """(local name, dotted name it refers to) for one import statement."""
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.asname:
                yield a.asname, a.name
            else:
                root = a.name.split(".")[0]
                yield root, root
    elif node.module and not node.level:
        for a in node.names:
            if a.name != "*":
                yield a.asname or a.name, f"{node.module}.{a.name}"


class SourceFile:
    """One parsed Python file; every question is answered from its AST and tokens."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.error = ""
        try:
            self.tree: ast.Module | None = pyast.parse_module(text, filename=path)
        except SyntaxError as exc:
            self.tree = None
            self.error = f"line {exc.lineno}: {exc.msg}"
        #: names bound to something dotted: imports anywhere, ``X = dotted`` at module level
        self._env: dict[str, str] = {}
        if self.tree is not None:
            self._bind_names(self.tree)

    # -- names -------------------------------------------------------------------------
    def _bind_names(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                self._env.update(_bindings(node))
        for stmt in tree.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                value = self.dotted(stmt.value)
                if value:
                    self._env[stmt.targets[0].id] = value

    def dotted(self, node: ast.AST) -> str | None:
        """The dotted name an expression stands for, through the file's imports."""
        if isinstance(node, ast.Name):
            return self._env.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def imported_modules(self) -> list[tuple[int, str]]:
        """(line, module) for every absolute import statement."""
        out: list[tuple[int, str]] = []
        if self.tree is None:
            return out
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                out.extend((node.lineno, a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                out.extend((node.lineno, f"{node.module}.{a.name}") for a in node.names)
        return out

    def calls_to(self, name: str) -> list[Site]:
        """Calls of the dotted ``name`` anywhere in the file (module level included), in line order."""
        if self.tree is None:
            return []
        found = [
            n
            for n in ast.walk(self.tree)
            if isinstance(n, ast.Call) and self.dotted(n.func) == name
        ]
        return sorted((self._site(n) for n in found), key=lambda s: s.line)

    def class_bases(self) -> list[tuple[str, int, list[str]]]:
        """(class name, line, resolved base names) for every class."""
        out: list[tuple[str, int, list[str]]] = []
        if self.tree is None:
            return out
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ClassDef):
                out.append(
                    (node.name, node.lineno, [self.dotted(b) or ast.unparse(b) for b in node.bases])
                )
        return out

    # -- places ------------------------------------------------------------------------
    def _site(self, node: ast.AST) -> Site:
        line = node.lineno  # type: ignore[attr-defined]
        return Site(line, shorten(ast.unparse(node)), self.function_at(line))

    def function_at(self, line: int) -> str:
        """The qualified name of the innermost function holding ``line`` ("" at module level)."""
        best = ""
        if self.tree is None:
            return best

        def visit(body: list[ast.stmt], where: str) -> None:
            nonlocal best
            for stmt in body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    start = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
                    if start <= line <= (stmt.end_lineno or stmt.lineno):
                        name = f"{where}.{stmt.name}" if where else stmt.name
                        if not isinstance(stmt, ast.ClassDef):
                            best = name
                        visit(stmt.body, name)

        visit(self.tree.body, "")
        return best

    def code_at(self, line: int, leaf: str) -> str:
        """The expression at ``line`` that names ``leaf`` (the outermost call of it, else the attribute),
        else the line itself; shortened."""
        lines = self.text.splitlines()
        fallback = shorten(lines[line - 1].strip()) if 0 < line <= len(lines) else ""
        if self.tree is None:
            return fallback
        calls: list[ast.AST] = []
        attrs: list[ast.AST] = []
        for node in ast.walk(self.tree):
            if getattr(node, "lineno", None) != line:
                continue
            if isinstance(node, ast.Call):
                f = node.func
                if (isinstance(f, ast.Attribute) and f.attr == leaf) or (
                    isinstance(f, ast.Name) and f.id == leaf
                ):
                    calls.append(node)
            elif isinstance(node, ast.Attribute) and node.attr == leaf:
                attrs.append(node)
        best = calls or attrs
        return shorten(ast.unparse(best[0])) if best else fallback

    def member_uses(self, member: str) -> list[Site]:
        """``<anything>.member(...)`` calls and ``<anything>.member`` reads, in line order: the
        receiver's type is not known (coverage's facts name only receivers they can follow)."""
        if self.tree is None:
            return []
        called: set[int] = set()
        found: list[ast.AST] = []
        for node in ast.walk(self.tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == member
            ):
                called.add(id(node.func))
                found.append(node)
        for node in ast.walk(self.tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == member
                and id(node) not in called
                and isinstance(node.ctx, ast.Load)
            ):
                found.append(node)
        return sorted((self._site(n) for n in found), key=lambda s: s.line)

    # -- docstring and names in text --------------------------------------------------------
    def docstring(self) -> str | None:
        return ast.get_docstring(self.tree) if self.tree is not None else None

    @staticmethod
    def dotted_names(text: str) -> list[str]:
        return [m.group(0) for m in _DOTTED.finditer(text)]

    # -- noqa imports ------------------------------------------------------------------------
    def _noqa_lines(self) -> set[int]:
        lines: set[int] = set()
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.text).readline):
                if tok.type == tokenize.COMMENT and re.search(
                    r"#\s*noqa\b", tok.string, re.IGNORECASE
                ):
                    lines.add(tok.start[0])
        except (tokenize.TokenError, SyntaxError):
            pass
        return lines

    def noqa_imports(self) -> list[NoqaImport]:
        """Import statements silenced with ``# noqa``, and whether the names they bind are used."""
        if self.tree is None:
            return []
        noqa = self._noqa_lines()
        loaded: set[str] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                loaded.add(node.id)
            elif (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                and isinstance(node.value, ast.List | ast.Tuple)
            ):  # a name re-exported through __all__ is used
                loaded.update(
                    e.value
                    for e in node.value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                )
        out: list[NoqaImport] = []
        src_lines = self.text.splitlines()
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            end = getattr(node, "end_lineno", node.lineno) or node.lineno
            if not any(line in noqa for line in range(node.lineno, end + 1)):
                continue
            names = tuple(local for local, _ in _bindings(node))
            used = any(n in loaded for n in names)
            code = (
                src_lines[node.lineno - 1].strip()
                if node.lineno <= len(src_lines)
                else ast.unparse(node)
            )
            out.append(NoqaImport(node.lineno, code, names, used))
        return out
