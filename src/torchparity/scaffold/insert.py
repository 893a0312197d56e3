"""Add test methods (and the imports they need) to an existing test file, keeping every other byte.

libcst parses and re-renders the file losslessly; new methods go at the end of
the chosen TestCase class, each missing import at its isort place in the file's
import block (stdlib before third-party, alphabetical within), a missing device
variable after the last import. The result is checked to be the old file
with lines inserted and nothing else changed.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from ..errors import UsageError
from .plan import Method
from .recipes.layout import DEVICE_CALL


@dataclass(frozen=True)
class Insertion:
    text: str
    class_name: str
    methods: tuple[str, ...]
    helpers: tuple[str, ...]
    imports: tuple[str, ...]
    device_line: str


def parse(text: str, path: str) -> cst.Module:
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise UsageError(
            f"{path} does not parse (line {exc.raw_line}: {exc.message}); fix it or write a new file with --out"
        ) from None


def _base_names(node: cst.ClassDef) -> list[str]:
    out = []
    for arg in node.bases:
        expr = arg.value
        parts = []
        while isinstance(expr, cst.Attribute):
            parts.append(expr.attr.value)
            expr = expr.value
        if isinstance(expr, cst.Name):
            parts.append(expr.value)
        out.append(".".join(reversed(parts)))
    return out


def find_class(module: cst.Module, path: str, name: str | None = None) -> cst.ClassDef:
    """The class to add to: ``name``, else the first deriving from a TestCase, else the first ``Test*``."""
    classes = [s for s in module.body if isinstance(s, cst.ClassDef)]
    if name:
        for c in classes:
            if c.name.value == name:
                return c
        known = ", ".join(c.name.value for c in classes) or "none"
        raise UsageError(
            f"{path} has no top-level class {name!r} (classes: {known}); pass one of them"
        )
    for c in classes:
        if any(b.split(".")[-1].endswith("TestCase") for b in _base_names(c)):
            return c
    for c in classes:
        if c.name.value.startswith("Test"):
            return c
    raise UsageError(
        f"{path} has no test class (none derives from TestCase); pass --class NAME or use --out"
    )


def method_names(cls: cst.ClassDef) -> set[str]:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return {s.name.value for s in body if isinstance(s, cst.FunctionDef)}


def module_bindings(module: cst.Module) -> dict[str, cst.BaseExpression | None]:
    """Top-level names bound by imports (value None) and simple assignments (their value)."""
    out: dict[str, cst.BaseExpression | None] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                        out[alias.asname.name.value] = None
                    else:
                        out[_dotted(alias.name).split(".")[0]] = None
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    bound = alias.asname.name if alias.asname is not None else alias.name
                    if isinstance(bound, cst.Name):
                        out[bound.value] = None
            elif isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        out[target.target.value] = small.value
    return out


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


_DEVICE_TEXT = ("cpu", "cuda", "npu", "xpu", "mps", "mtia", "privateuseone", "hpu", "meta")


def _is_device_text(value: cst.BaseExpression | None) -> bool:
    """``"npu:0"``, ``'cuda'``, ``f"npu:{index}"``: a string naming a device."""
    if isinstance(value, cst.SimpleString):
        text = value.evaluated_value
        text = text.decode() if isinstance(text, bytes) else text
        return text.split(":", 1)[0] in _DEVICE_TEXT
    if isinstance(value, cst.FormattedString):
        head = "".join(p.value for p in value.parts if isinstance(p, cst.FormattedStringText))
        return head.split(":", 1)[0] in _DEVICE_TEXT
    return False


def device_reference(module: cst.Module, cls: cst.ClassDef, preferred: str) -> str:
    """How the file's own tests name the device, as a ``torch.device`` expression, or "".

    A module-level variable (the configured name first, then any name with
    "device" in it) bound to ``torch.device(...)`` or to a device string; else
    a class attribute or a ``self.<name>`` set in ``setUp``/``setUpClass``.
    """
    bound = module_bindings(module)
    names = [preferred] + sorted(n for n in bound if "device" in n.lower() and n != preferred)
    for name in names:
        value = bound.get(name)
        if name in bound and value is not None:
            if is_device_call(value):
                return name
            if _is_device_text(value):
                return f"torch.device({name})"
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name) and "device" in target.value.lower():
                        if is_device_call(small.value):
                            return f"self.{target.value}"
                        if _is_device_text(small.value):
                            return f"torch.device(self.{target.value})"
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in ("setUp", "setUpClass"):
            for node in _assignments(stmt):
                target = node.targets[0].target
                if (
                    isinstance(target, cst.Attribute)
                    and isinstance(target.value, cst.Name)
                    and target.value.value in ("self", "cls")
                    and "device" in target.attr.value.lower()
                ):
                    if is_device_call(node.value):
                        return f"self.{target.attr.value}"
                    if _is_device_text(node.value):
                        return f"torch.device(self.{target.attr.value})"
    return ""


def _assignments(fn: cst.FunctionDef) -> list[cst.Assign]:
    out: list[cst.Assign] = []
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            out += [s for s in stmt.body if isinstance(s, cst.Assign) and len(s.targets) == 1]
    return out


def is_device_call(value: cst.BaseExpression | None) -> bool:
    """Whether a module-level value is ``torch.device(...)`` (usable as a torch.device as is)."""
    return isinstance(value, cst.Call) and _dotted(value.func) == DEVICE_CALL


def _bound_by(line: str) -> str:
    """The name an import line binds (``from a import b`` -> b, ``import a.b`` -> a)."""
    stmt = cst.parse_statement(line)
    assert isinstance(stmt, cst.SimpleStatementLine)
    small = stmt.body[0]
    if isinstance(small, cst.Import):
        alias = small.names[0]
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            return alias.asname.name.value
        return _dotted(alias.name).split(".")[0]
    assert isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar)
    alias = small.names[-1]
    bound = alias.asname.name if alias.asname is not None else alias.name
    return bound.value if isinstance(bound, cst.Name) else ""


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, cst.Import | cst.ImportFrom) for s in stmt.body
    )


def _methods_nodes(methods: Sequence[Method]) -> list[cst.BaseStatement]:
    source = "class _Scaffolded:\n" + "\n".join(m.source.rstrip("\n") + "\n" for m in methods)
    holder = cst.parse_module(source).body[0]
    assert isinstance(holder, cst.ClassDef) and isinstance(holder.body, cst.IndentedBlock)
    out = []
    for node in holder.body.body:
        if isinstance(node, cst.FunctionDef):
            node = node.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        out.append(node)
    return out


class _AddToClass(cst.CSTTransformer):
    def __init__(self, target: cst.ClassDef, nodes: list[cst.BaseStatement]) -> None:
        self.target = target
        self.nodes = nodes

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        if original is not self.target or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        body = updated.body.with_changes(body=[*updated.body.body, *self.nodes])
        return updated.with_changes(body=body)


def insert_methods(
    text: str,
    path: str,
    methods: Sequence[Method],
    imports: Sequence[str] = (),
    device_line: str = "",
    class_name: str | None = None,
) -> Insertion:
    """The file with ``methods`` added to its test class; refuses names the class already has."""
    module = parse(text, path)
    cls = find_class(module, path, class_name)
    existing = method_names(cls)
    clash = [m.name for m in methods if not m.helper and m.name in existing]
    if clash:
        raise UsageError(
            f"{path}: class {cls.name.value} already has {', '.join(clash)}; "
            "rename or remove it first, or write a new file with --out"
        )
    tests = [m for m in methods if not m.helper]
    helpers = [m for m in methods if m.helper and m.name not in existing]
    new_module = (
        module.visit(_AddToClass(cls, _methods_nodes(tests + helpers)))
        if tests + helpers
        else module
    )
    bound = module_bindings(module)
    missing = [line for line in dict.fromkeys(imports) if _bound_by(line) not in bound]
    device_stmt = (
        device_line if device_line and device_line.split("=")[0].strip() not in bound else ""
    )
    if missing or device_stmt:
        body: list[cst.BaseStatement] = list(new_module.body)
        for line in missing:
            stmt = cst.parse_statement(line)
            assert isinstance(stmt, cst.SimpleStatementLine)
            _place_import(body, stmt)
        if device_stmt:
            last = max((i for i, s in enumerate(body) if _is_import(s)), default=None)
            at = last + 1 if last is not None else _after_docstring(body)
            body.insert(at, cst.parse_statement(device_stmt).with_changes(leading_lines=[_BLANK]))
        new_module = new_module.with_changes(body=body)
    new_text = new_module.code
    check_only_insertions(text, new_text, path)
    return Insertion(
        new_text,
        cls.name.value,
        tuple(m.name for m in tests),
        tuple(m.name for m in helpers),
        tuple(missing),
        device_stmt,
    )


_BLANK = cst.EmptyLine(indent=False)
#: isort sections, in file order; first-party code is grouped as the file groups it
FUTURE, STDLIB, THIRD_PARTY, LOCAL = range(4)
ImportKey = tuple[int, int, str]


def _import_key(stmt: cst.BaseStatement) -> ImportKey:
    """(section, 0 for ``import m`` / 1 for ``from m import``, module lowercased): isort's order."""
    assert isinstance(stmt, cst.SimpleStatementLine)
    small = stmt.body[0]
    if isinstance(small, cst.Import):
        kind, module = 0, _dotted(small.names[0].name)
    else:
        assert isinstance(small, cst.ImportFrom)
        dots = "." * len(small.relative)
        kind, module = 1, dots + (_dotted(small.module) if small.module is not None else "")
    root = module.split(".")[0]
    if module == "__future__":
        section = FUTURE
    elif module.startswith("."):
        section = LOCAL
    elif root in sys.stdlib_module_names:
        section = STDLIB
    else:
        section = THIRD_PARTY
    return section, kind, module.lower()


def _groups(body: list[cst.BaseStatement]) -> list[list[tuple[int, ImportKey]]]:
    """The file's top-level imports in runs; a blank line or other code starts a new run."""
    groups: list[list[tuple[int, ImportKey]]] = []
    prev = -2
    for i, stmt in enumerate(body):
        if not _is_import(stmt):
            continue
        blank = any(line.comment is None for line in getattr(stmt, "leading_lines", ()))
        if not groups or i != prev + 1 or blank:
            groups.append([])
        groups[-1].append((i, _import_key(stmt)))
        prev = i
    return groups


def _split_blank(stmt: cst.BaseStatement) -> tuple[list[cst.EmptyLine], list[cst.EmptyLine]]:
    """A statement's leading lines: the blank ones before its first comment, and the rest."""
    lines = list(getattr(stmt, "leading_lines", ()))
    n = 0
    while n < len(lines) and lines[n].comment is None:
        n += 1
    return lines[:n], lines[n:]


def _place_import(body: list[cst.BaseStatement], new: cst.SimpleStatementLine) -> None:
    """Insert ``new`` where isort puts it: sorted into its section's run, or as a run of its own.

    Only whole lines are added: blank lines before the statement it goes in front
    of move in front of it, so every existing line keeps its place and content.
    """
    key = _import_key(new)
    groups = _groups(body)
    if not groups:
        body.insert(_after_docstring(body), new)
        return
    same = [g for g in groups if g[0][1][0] == key[0]]
    if same:
        root = key[2].lstrip(".").split(".")[0]
        group = next(
            (g for g in same if any(k[2].lstrip(".").split(".")[0] == root for _, k in g)), same[0]
        )
        later = [i for i, k in group if k[1:] > key[1:]]
        if not later:
            body.insert(group[-1][0] + 1, new)
            return
        at = later[0]
        blank, rest = _split_blank(body[at])
        body[at] = body[at].with_changes(leading_lines=rest)
        body.insert(at, new.with_changes(leading_lines=blank))
        return
    after = [g for g in groups if g[0][1][0] > key[0]]
    if after:  # a new run before the first run of a later section
        at = after[0][0][0]
        blank, rest = _split_blank(body[at])
        body[at] = body[at].with_changes(leading_lines=[_BLANK, *rest])
        body.insert(at, new.with_changes(leading_lines=blank))
        return
    body.insert(groups[-1][-1][0] + 1, new.with_changes(leading_lines=[_BLANK]))


def _after_docstring(body: list[cst.BaseStatement]) -> int:
    if (
        body
        and isinstance(body[0], cst.SimpleStatementLine)
        and isinstance(body[0].body[0], cst.Expr)
        and isinstance(body[0].body[0].value, cst.SimpleString | cst.ConcatenatedString)
    ):
        return 1
    return 0


def check_only_insertions(
    old: str, new: str, path: str, may_replace: tuple[int, int] | None = None
) -> None:
    """Raise unless ``new`` is ``old`` with whole lines inserted (every old byte kept, in order);
    ``may_replace`` (0-based, end excluded) are lines of ``old`` that may be rewritten as well."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    for lines in (a, b):  # a last line without its newline compares as if it had one
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    lo, hi = may_replace or (0, 0)
    bad = [
        (tag, i1)
        for tag, i1, i2, _, _ in ops
        if tag not in ("equal", "insert") and not (tag == "replace" and lo <= i1 <= i2 <= hi)
    ]
    if bad:
        tag, i1 = bad[0]
        raise RuntimeError(
            f"internal error: adding methods to {path} would {tag} line {i1 + 1}; nothing was written"
        )
