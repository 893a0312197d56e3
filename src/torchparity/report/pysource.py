"""What a test file's source says: imports, dotted call chains, docstring, noqa imports (AST only)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..agent.state import API_ALIASES

#: public spelling -> the qualified name it stands for (longest prefix wins).
#: Starts from the agent's registry of state APIs; a few more common spellings follow.
STATIC_ALIASES: dict[str, str] = {
    **API_ALIASES,
    "torch.is_grad_enabled": "torch._C.is_grad_enabled",
    "torch.is_inference_mode_enabled": "torch._C.is_inference_mode_enabled",
    "torch.cuda.amp.autocast": "torch.cuda.amp.autocast_mode.autocast",
    "torch.Tensor": "torch._tensor.Tensor",
}

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


class AliasTable:
    """Maps any spelling of a name to one canonical dotted name (longest alias prefix wins)."""

    def __init__(self, extra: dict[str, str] | None = None) -> None:
        self._map = dict(STATIC_ALIASES)
        self._map.update(extra or {})

    def add(self, alias: str, canonical: str) -> None:
        if alias and canonical and alias != canonical:
            self._map[alias] = canonical

    def canonical(self, name: str) -> str:
        best = ""
        for alias in self._map:
            if (name == alias or name.startswith(alias + ".")) and len(alias) > len(best):
                best = alias
        if not best:
            return name
        return self._map[best] + name[len(best):]


@dataclass(frozen=True)
class CallSite:
    chain: str  # the dotted name as written, imports resolved: torch.set_grad_enabled.clone
    line: int
    code: str  # the call as written (shortened)
    function: str  # the enclosing function, "" at module level

    @property
    def in_test(self) -> bool:
        return any(part.startswith("test") for part in self.function.split(".") if part)


@dataclass(frozen=True)
class NoqaImport:
    line: int
    code: str
    names: tuple[str, ...]
    used: bool


class SourceFile:
    """One parsed Python file; every question is answered from its AST and tokens."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.error = ""
        try:
            self.tree: ast.Module | None = ast.parse(text, filename=path)
        except SyntaxError as exc:
            self.tree = None
            self.error = f"line {exc.lineno}: {exc.msg}"
        self._imports = self._module_imports() if self.tree else {}

    # -- imports -----------------------------------------------------------------------
    @staticmethod
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

    def _module_imports(self) -> dict[str, str]:
        env: dict[str, str] = {}
        assert self.tree is not None
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                env.update(self._bindings(node))
        return env

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

    # -- names -------------------------------------------------------------------------
    def chain(self, node: ast.AST, env: dict[str, str]) -> str | None:
        """The dotted name an expression stands for; a call stands for what it calls."""
        if isinstance(node, ast.Name):
            return env.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.chain(node.value, env)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call):
            return self.chain(node.func, env)
        return None

    def _scope_env(self, body: Iterable[ast.AST], base: dict[str, str]) -> dict[str, str]:
        """Names bound in a scope to something dotted (imports, assignments, with ... as)."""
        env = dict(base)
        nodes = [n for stmt in body for n in ast.walk(stmt)]
        for _ in range(3):  # x = torch.f; y = x(False): a few passes settle chains of names
            for n in nodes:
                if isinstance(n, ast.Import | ast.ImportFrom):
                    env.update(self._bindings(n))
                elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                    value = self.chain(n.value, env)
                    if value:
                        env[n.targets[0].id] = value
                elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
                    value = self.chain(n.value, env)
                    if value:
                        env[n.target.id] = value
                elif isinstance(n, ast.withitem) and isinstance(n.optional_vars, ast.Name):
                    value = self.chain(n.context_expr, env)
                    if value:
                        env[n.optional_vars.id] = value
        return env

    def calls(self) -> list[CallSite]:
        """Every call (and bare decorator) whose callee resolves to a dotted name."""
        if self.tree is None:
            return []
        module_body = [s for s in self.tree.body if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
        module_env = self._scope_env(module_body, self._imports)
        out: list[CallSite] = []
        seen: set[int] = set()

        def visit(body: list[ast.stmt], env: dict[str, str], where: str) -> None:
            for stmt in body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    name = f"{where}.{stmt.name}" if where else stmt.name
                    inner = self._scope_env(stmt.body, env)
                    for dec in stmt.decorator_list:
                        self._record(dec, inner, where, out, seen, bare=True)
                    visit(stmt.body, inner, name)
                elif isinstance(stmt, ast.ClassDef):
                    name = f"{where}.{stmt.name}" if where else stmt.name
                    visit(stmt.body, env, name)
                else:
                    for n in ast.walk(stmt):
                        if isinstance(n, ast.Call):
                            self._record(n, env, where, out, seen)

        visit(self.tree.body, module_env, "")
        return out

    def _record(
        self, node: ast.AST, env: dict[str, str], where: str, out: list[CallSite], seen: set[int], bare: bool = False
    ) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, ast.Call):
            for n in ast.walk(node):
                if isinstance(n, ast.Call) and n is not node:
                    self._record(n, env, where, out, seen)
            target = node.func
        elif bare:
            target = node
        else:
            return
        chain = self.chain(target, env)
        code = ast.unparse(node)
        if len(code) > 80:
            code = code[:77] + "..."
        out.append(CallSite(chain or "", node.lineno, code, where))  # type: ignore[attr-defined]

    def method_calls(self, method: str, *, reads: bool = False) -> list[CallSite]:
        """Calls ``<anything>.method(...)`` (with ``reads``, plain ``<anything>.method`` reads too,
        as a property is used): the receiver's type is not known statically."""
        found: list[CallSite] = []
        if self.tree is None:
            return found
        called = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method:
                called.add(id(node.func))
                found.append(CallSite(f"?.{method}", node.lineno, ast.unparse(node)[:80], self._function_at(node.lineno)))
        if reads:
            for node in ast.walk(self.tree):
                if (isinstance(node, ast.Attribute) and node.attr == method and id(node) not in called
                        and isinstance(node.ctx, ast.Load)):
                    found.append(CallSite(f"?.{method}", node.lineno, ast.unparse(node)[:80],
                                          self._function_at(node.lineno)))
            found.sort(key=lambda c: c.line)
        return found

    def _function_at(self, line: int) -> str:
        best = ""
        if self.tree is None:
            return best

        def visit(body: list[ast.stmt], where: str) -> None:
            nonlocal best
            for stmt in body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    end = getattr(stmt, "end_lineno", stmt.lineno)
                    if stmt.lineno <= line <= end:
                        name = f"{where}.{stmt.name}" if where else stmt.name
                        if not isinstance(stmt, ast.ClassDef):
                            best = name
                        visit(stmt.body, name)

        visit(self.tree.body, "")
        return best

    def class_bases(self) -> list[tuple[str, int, list[str]]]:
        """(class name, line, resolved base names) for every class."""
        out: list[tuple[str, int, list[str]]] = []
        if self.tree is None:
            return out
        module_env = self._scope_env(
            [s for s in self.tree.body if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)],
            self._imports,
        )
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ClassDef):
                bases = [self.chain(b, module_env) or ast.unparse(b) for b in node.bases]
                out.append((node.name, node.lineno, bases))
        return out

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
                if tok.type == tokenize.COMMENT and re.search(r"#\s*noqa\b", tok.string, re.IGNORECASE):
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
                loaded.update(e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
        out: list[NoqaImport] = []
        src_lines = self.text.splitlines()
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            end = getattr(node, "end_lineno", node.lineno) or node.lineno
            if not any(line in noqa for line in range(node.lineno, end + 1)):
                continue
            names = tuple(local for local, _ in self._bindings(node))
            used = any(n in loaded for n in names)
            code = src_lines[node.lineno - 1].strip() if node.lineno <= len(src_lines) else ast.unparse(node)
            out.append(NoqaImport(node.lineno, code, names, used))
        return out
