"""The size of the scaffold engine and of the agent, and the rules it holds for particular names.

Run from the repository root (no torch needed):

    python benchmarks/bench_scaffold_size.py [--json FILE] [--list-rules]

It prints, per part, the lines of its files (``wc -l``: every line, blank and comment lines
included; split into Python code, recipe data with the name table, and Jinja templates), the
modules over 600 lines, and the comparisons of a name with a string literal.

The parts:

* ``scaffold``: ``src/torchparity/scaffold/`` (its Python, its Jinja templates, its recipe data);
* ``facts``: ``src/torchparity/agent/facts/``, what the agent gathers for scaffold;
* ``api``: ``src/torchparity/agent/api/``, what the agent knows of an API (resolve, the surface);
* ``runtime agent``: the modules directly in ``src/torchparity/agent/`` (worker, test runs,
  results, isolation, states, trace, the environment probe).

A *name rule* is a comparison in Python code whose one side is a string literal (or a tuple, list
or set of them, one of which is not a word of Python) and whose other side reads a name: a variable
or attribute called like an API's or a parameter's name (``name``, ``leaf``, ``canonical``,
``path``, ``spelling``, ``qualname``, ``param``, ...), or a ``startswith``/``endswith`` of one with
a literal; a module-level table in code (a dict keyed by literals, a tuple or set of them) that a
name is looked up in (``X[leaf]``, ``X.get(leaf)``, ``leaf in X``), or whose entries are
``torch.…`` names however it is read, counted once; each key of a dict literal that is a
``torch.…`` name; a dict literal keyed by literals that a name is looked up in where it stands
(``{"alias": [...]}.get(op)``);
and, in a template, a Jinja block or expression that compares such a variable
(or an owner class's name) with a quoted literal (``{% if leaf == "x" %}``, ``{{ a if member ==
"clone" else b }}``, ``leaf.startswith("set_")``), the Python the template writes not counted.
Kinds (``kind == "method"``) and states of a record are not names, nor is a field read by its key
(``op["kind"]`` reads ``kind``), nor a literal that is a word of Python itself (a dunder such as
``__init__``, ``self``/``cls``, unittest's ``setUp``/``Test``, the private prefix ``_``, a
lambda's ``<lambda>``, the ``builtins`` and ``typing`` modules, the builtin function type).
``--list-rules`` prints each one. Apart, it counts the template lines that choose a block by any
variable's literal value (``{% if section == "all_reduce" %}``): scenarios selected by a variant
a recipe names, written as Jinja rather than as Python snippets.

Two places may hold such rules, as the design asks: the one name table
(``agent/facts/names.py``, the value chain's last step) and recipe data, the modules of a folder
called ``recipes`` (``scaffold/recipes/``, ``agent/facts/recipes/``). A recipe module counts as
data only while it holds no function, class, loop or ``if`` (assignments of literals, tuples, dicts
and calls of record types); its rules are then listed apart (``in data``) and not in ``name rules``.
A recipe module with code in it has its rules counted like any other module's. A recipe snippet
(``recipes/snippets/<family>.py``: scenarios as real tests, which scaffold writes out
with the API's spelling) counts as recipe data, and any rule it holds counts as code's.
The same search, coarser, with git alone:

    git grep -nE "(name|leaf|canonical|path|spelling|qualname|param)[a-z_]*\\)? *(==|!=|in) *[(\\[{]?[\\"']" \\
        -- src/torchparity/scaffold src/torchparity/agent/facts
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "torchparity"
MODULE_LIMIT = 600
#: identifiers that hold an API's or a parameter's name
NAMEISH = re.compile(
    r"(^|_)(name|names|leaf|canonical|path|spelling|spelled|qualname|qual|param|params|"
    r"arg|argname|api|attr|member|method|func|fn|target|op|opname|cls_name|owner|owner_class|"
    r"module|mod|prefix|stem|short|base|dotted|full)s?$"
)
#: a Jinja block or expression (``{% if ... %}``, ``{{ a if leaf == "x" else b }}``)
JINJA = re.compile(r"{%.*?%}|{{.*?}}")
_TEMPLATE_NAME = (
    r"\b([a-z_]*(?:name|leaf|canonical|path|spelling|param|api|member)[a-z_]*|cls|owner)"
)
TEMPLATE_RULE = re.compile(
    _TEMPLATE_NAME + r"(?:\s*(?:==|!=|in|not in)\s*[(\[]?\s*['\"]|\.(?:starts|ends)with\(\s*['\"])"
)


@dataclass(frozen=True)
class Part:
    name: str
    files: int
    lines: int
    python_lines: int
    template_lines: int
    over_limit: tuple[str, ...]
    name_rules: int
    #: rules in the name table and in recipe data (allowed there)
    data_rules: int = 0
    #: lines of recipe data and the name table (counted in ``python_lines`` too)
    data_lines: int = 0


@dataclass(frozen=True)
class Rule:
    path: str
    line: int
    text: str


def _ident(node: ast.AST) -> str:
    """The last identifier an expression reads (``r.canonical`` -> ``canonical``)."""
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _reads_name(node: ast.AST) -> bool:
    """Whether ``node`` reads a name; ``record["kind"]`` reads the field ``kind``, not ``record``."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    ):
        return bool(NAMEISH.search(node.slice.value.lower()))
    ident = _ident(node)
    if ident and NAMEISH.search(ident.lower()):
        return True
    return any(_reads_name(child) for child in ast.iter_child_nodes(node))


#: literals that are words of Python itself, not an API's or a parameter's name
PYTHON_WORDS = frozenset(
    {
        *(
            "self",
            "cls",
            "setUp",
            "setUpClass",
            "tearDown",
            "tearDownClass",
            "Test",
            "_",
            "__",
            ".",
        ),
        *("<lambda>", "builtins", "typing", "builtin_function_or_method"),
    }
)


def _python_word(text: str) -> bool:
    return text in PYTHON_WORDS or (len(text) > 4 and text.startswith("__") and text.endswith("__"))


def _is_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value != "" and not _python_word(node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):  # one name among Python's words counts
        strings = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        return (
            bool(node.elts)
            and len(strings) == len(node.elts)
            and all(isinstance(v, str) and v for v in strings)
            and not all(_python_word(str(v)) for v in strings)
        )
    return False


def _string_table(value: ast.AST) -> bool:
    """Whether ``value`` is a table of names: a dict keyed by string literals, or a tuple, list,
    set or frozenset of them (not only words of Python)."""
    if isinstance(value, ast.Call) and getattr(value.func, "id", "") in ("frozenset", "set"):
        value = value.args[0] if value.args else value
    if isinstance(value, ast.Dict):
        keys = [k for k in value.keys if k is not None]
        return bool(keys) and _is_literal(ast.Tuple(elts=keys))
    return _is_literal(value) and not isinstance(value, ast.Constant)


def _torch_names(value: ast.AST) -> bool:
    """Whether a table's keys or elements are ``torch.…`` names (a table of API names)."""
    if isinstance(value, ast.Call) and value.args:
        value = value.args[0]
    items = value.keys if isinstance(value, ast.Dict) else getattr(value, "elts", [])
    return any(
        isinstance(k, ast.Constant)
        and isinstance(k.value, str)
        and re.fullmatch(r"torch(\.[A-Za-z_][A-Za-z0-9_]*)+", k.value) is not None
        for k in items
    )


def _tables(tree: ast.Module) -> dict[str, int]:
    """Module-level tables of names: name -> line."""
    out = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and value is not None and _string_table(value):
            out[target.id] = node.lineno
    return out


def _imported_tables(path: Path, tree: ast.Module) -> dict[str, tuple[Path, int]]:
    """Tables of names this module imports from a code module beside it (recipe data is allowed)."""
    out = {}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or not node.level or not node.module:
            continue
        base = path.parent
        for _ in range(node.level - 1):
            base = base.parent
        source = base.joinpath(*node.module.split(".")).with_suffix(".py")
        if not source.is_file() or is_data(source):
            continue
        tables = _tables(ast.parse(source.read_text(encoding="utf-8")))
        for alias in node.names:
            if alias.name in tables:
                out[alias.asname or alias.name] = (source, tables[alias.name])
    return out


def _looked_up(node: ast.AST) -> str:
    """The table a name is looked up in (``X[leaf]``, ``X.get(leaf)``, ``leaf in X``), or ""."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return node.value.id if _reads_name(node.slice) else ""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and isinstance(node.func.value, ast.Name)
        and node.args
        and _reads_name(node.args[0])
    ):
        return node.func.value.id
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], (ast.In, ast.NotIn))
        and isinstance(node.comparators[0], ast.Name)
        and _reads_name(node.left)
    ):
        return node.comparators[0].id
    return ""


def _inline_table(node: ast.AST) -> bool:
    """Whether ``node`` looks a name up in a dict literal where it stands (``{"alias": [...]}.get(op)``,
    ``{...}[leaf]``): a table of names in code, without a name of its own."""
    if isinstance(node, ast.Subscript):
        table, key = node.value, node.slice
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
    ):
        table, key = node.func.value, node.args[0]
    else:
        return False
    return isinstance(table, ast.Dict) and _string_table(table) and _reads_name(key)


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def python_rules(path: Path) -> list[Rule]:
    """The comparisons of a name with a string literal in one Python file."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines()
    out: list[Rule] = []
    local = {name: (path, line) for name, line in _tables(tree).items()}
    tables = {**_imported_tables(path, tree), **local}
    counted: set[tuple[Path, int]] = set()
    for node in tree.body:  # a table of torch names in code counts however it is read
        value = getattr(node, "value", None)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and value is not None:
            if _string_table(value) and _torch_names(value) and not isinstance(value, ast.Dict):
                counted.add((path, node.lineno))
                first = lines[node.lineno - 1].strip()
                out.append(Rule(_shown(path), node.lineno, f"table of torch names: {first}"[:120]))
    for node in ast.walk(tree):
        table = tables.get(_looked_up(node))
        if table is not None and table not in counted:  # a table of names in code, once
            counted.add(table)
            where, at = table
            first = where.read_text(encoding="utf-8").splitlines()[at - 1].strip()
            out.append(Rule(_shown(where), at, f"table looked up by a name: {first}"[:120]))
        hit = False
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for left, op, right in zip(sides, node.ops, sides[1:], strict=False):
                if isinstance(op, (ast.Eq, ast.NotEq)):
                    pairs = [(left, right), (right, left)]
                elif isinstance(op, (ast.In, ast.NotIn)):
                    pairs = [(left, right)]
                else:
                    continue
                if any(_is_literal(lit) and _reads_name(other) for other, lit in pairs):
                    hit = True
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
            and node.args
            and _is_literal(node.args[0])
            and _reads_name(node.func.value)
        ):
            hit = True
        if _inline_table(node):  # a dict of names written where it is read: ``{"a": ...}.get(x)``
            line = getattr(node, "lineno", 0)
            out.append(Rule(_shown(path), line, lines[line - 1].strip()[:120]))
        if isinstance(node, ast.Dict):  # a table keyed by API names
            for key in node.keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    if re.fullmatch(r"torch(\.[A-Za-z_][A-Za-z0-9_]*)+", key.value):
                        line = key.lineno
                        out.append(Rule(_shown(path), line, lines[line - 1].strip()[:120]))
        if hit:
            line = getattr(node, "lineno", 0)
            out.append(Rule(_shown(path), line, lines[line - 1].strip()[:120]))
    return out


#: the value chain's one table of guesses by name
NAME_TABLE = SRC / "agent" / "facts" / "names.py"


def is_data(path: Path) -> bool:
    """Whether ``path`` is the name table, or a recipe module that holds data only."""
    if path == NAME_TABLE:
        return True
    if "recipes" not in path.parent.parts or path.suffix != ".py":
        return False
    code = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.While, ast.If)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return not any(isinstance(node, code) for node in ast.walk(tree))


def is_snippet(path: Path) -> bool:
    """Whether ``path`` is a recipe snippet (``recipes/snippets/<family>.py``): tests the
    tool writes out for a variant, code that runs as it stands, counted as recipe data."""
    return "snippets" in path.parts and "recipes" in path.parts and path.suffix == ".py"


#: a Jinja comparison of any variable with a quoted literal (a scenario chosen by a value)
TEMPLATE_BRANCH = re.compile(r"\b[a-z_]+\s*(?:==|!=|in|not in)\s*[(\[]?\s*['\"]")


def template_branches(path: Path) -> int:
    """Lines of a template that choose a block by a variable's literal value (``{% if section ==
    "all_reduce" %}``): the scenarios a family's recipe selects by a variant, not yet Python
    snippets. Not name rules unless the variable holds a name (those are counted there too)."""
    return sum(
        1
        for line in path.read_text(encoding="utf-8").splitlines()
        if any(TEMPLATE_BRANCH.search(block) for block in re.findall(r"{%.*?%}", line))
    )


def template_rules(path: Path) -> list[Rule]:
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if any(TEMPLATE_RULE.search(block) for block in JINJA.findall(line)):
            out.append(Rule(_shown(path), i, line.strip()[:120]))
    return out


def _parts() -> dict[str, list[Path]]:
    agent = SRC / "agent"
    return {
        "scaffold": sorted(p for p in (SRC / "scaffold").rglob("*") if p.is_file()),
        "facts": sorted((agent / "facts").rglob("*.py")),
        "api": sorted((agent / "api").rglob("*.py")),
        "runtime agent": sorted(agent.glob("*.py")),
    }


def measure() -> tuple[list[Part], list[Rule]]:
    parts, rules = [], []
    for name, files in _parts().items():
        files = [
            f
            for f in files
            if f.suffix in (".py", ".j2", ".toml", ".json") and "__pycache__" not in f.parts
        ]
        py = tpl = in_data = data_lines = 0
        over, part_rules = [], []
        for f in files:
            n = len(f.read_text(encoding="utf-8").splitlines())
            if f.suffix == ".j2":
                tpl += n
                part_rules += template_rules(f)
            else:
                py += n
                if f.suffix == ".py" and is_snippet(f):  # data the tool writes out, rules counted
                    data_lines += n
                    part_rules = _unique(part_rules + python_rules(f))
                elif f.suffix == ".py" and is_data(f):
                    in_data += len(python_rules(f))
                    data_lines += n
                elif f.suffix == ".py":
                    part_rules = _unique(part_rules + python_rules(f))
            if n > MODULE_LIMIT:
                over.append(f"{f.relative_to(ROOT)} ({n})")
        parts.append(
            Part(
                name,
                len(files),
                py + tpl,
                py,
                tpl,
                tuple(over),
                len(part_rules),
                in_data,
                data_lines,
            )
        )
        rules += part_rules
    return parts, rules


def _unique(rules: list[Rule]) -> list[Rule]:
    """Each rule once (a table in code is found from each module that reads it)."""
    return list(dict.fromkeys(rules))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, help="also write the figures as JSON here")
    ap.add_argument("--list-rules", action="store_true", help="print every name rule found")
    args = ap.parse_args(argv)
    parts, rules = measure()
    print(
        f"{'part':<15} {'files':>5} {'lines':>7} {'code':>7} {'data':>6} {'templates':>9}"
        f" {'name rules':>10} {'in data':>7}"
    )
    for p in parts:
        print(
            f"{p.name:<15} {p.files:>5} {p.lines:>7} {p.python_lines - p.data_lines:>7} "
            f"{p.data_lines:>6} {p.template_lines:>9} {p.name_rules:>10} {p.data_rules:>7}"
        )
    by = {p.name: p for p in parts}
    engine = by["scaffold"].lines + by["facts"].lines
    print(
        f"scaffold + facts: {engine} lines (target 11,000); runtime agent: "
        f"{by['runtime agent'].lines} (target 3,500)"
    )
    over = [o for p in parts for o in p.over_limit]
    print(f"modules over {MODULE_LIMIT} lines: {len(over)}" + "".join(f"\n  {o}" for o in over))
    templates = sorted((SRC / "scaffold" / "templates").glob("*.j2"))
    print(
        "template lines choosing a block by a literal value (scenario selectors): "
        f"{sum(template_branches(t) for t in templates)}"
    )
    if args.list_rules:
        for r in rules:
            print(f"{r.path}:{r.line}: {r.text}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"parts": [asdict(p) for p in parts], "rules": [asdict(r) for r in rules]}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
