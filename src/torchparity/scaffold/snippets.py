"""Recipe snippets: scenarios written once as real, linted Python tests, filled in for one API.

A family's snippets are one module, ``scaffold/recipes/snippets/<family>.py``, that runs as it
stands (``python -m unittest``): it binds ``DEVICE`` at its top and holds one ``unittest.TestCase``
whose methods are its scenarios, ``test_<variant>`` (``test_grad``: the test of
``torch.autograd.grad``). Each method starts with a docstring, whose first line says what it
checks, and a line that binds ``API`` to the API it tests; the rest is the test. Scaffold writes
that rest into the test it generates under the test's own name, with each placeholder (``API``,
``DEVICE``) replaced by its spelling there (``torch.autograd.grad``, ``self.device``) where it is
read as a name (found by the parser: not an attribute, a keyword, a string or a comment). A family
finds its scenario by variant (``snippet(family, variant)``): choosing a scenario is a method's
name, not a branch of a template.
"""

from __future__ import annotations

import ast
import io
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: where the snippets are, one module per family
FOLDER = Path(__file__).parent / "recipes" / "snippets"
#: the names a snippet's test reads for the API and the device, replaced where it is written out
PLACEHOLDERS = ("API", "DEVICE")
#: how a scenario's method is named: this, then its variant
PREFIX = "test_"


class SnippetError(Exception):
    """A snippet that is not a test scaffold can write out (said with its path and line)."""


@dataclass(frozen=True)
class Snippet:
    family: str
    variant: str
    path: Path
    #: what its test checks: the first line of the method's docstring
    what: str
    #: the test's statements as written, after the docstring and the binding of ``API``
    body: str


@cache
def _scenarios(family: str) -> dict[str, Snippet]:
    path = FOLDER / f"{family}.py"
    if not family.isidentifier() or not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    lines = io.StringIO(text).readlines()  # lines as ast counts them (not at form feeds)
    out = {}
    for cls in ast.parse(text).body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for fn in cls.body:
            if isinstance(fn, ast.FunctionDef) and fn.name.startswith(PREFIX):
                out[fn.name[len(PREFIX) :]] = _scenario(family, path, lines, fn)
    return out


def _scenario(family: str, path: Path, lines: list[str], fn: ast.FunctionDef) -> Snippet:
    where = f"{path}:{fn.lineno}"
    doc = ast.get_docstring(fn) or ""
    if not doc or len(fn.body) < 3:
        raise SnippetError(
            f"{where}: {fn.name} starts with a docstring that says what it checks, then binds API"
        )
    bind = fn.body[1]
    if not (
        isinstance(bind, ast.Assign)
        and [getattr(t, "id", "") for t in bind.targets] == [PLACEHOLDERS[0]]
    ):
        raise SnippetError(f"{where}: the line after {fn.name}'s docstring binds {PLACEHOLDERS[0]}")
    first = fn.body[2]
    assert fn.end_lineno is not None and bind.end_lineno is not None
    if first.lineno <= bind.end_lineno:
        raise SnippetError(f"{where}: the binding of {PLACEHOLDERS[0]} stands on a line of its own")
    start = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])
    body = "".join(lines[start - 1 : fn.end_lineno])
    return Snippet(family, fn.name[len(PREFIX) :], path, doc.split("\n", 1)[0].strip(), body)


def snippet(family: str, variant: str) -> Snippet | None:
    """The scenario of ``family`` for ``variant``, or None where it has none."""
    return _scenarios(family).get(variant)


def variants(family: str) -> tuple[str, ...]:
    """The variants ``family`` has a scenario for."""
    return tuple(sorted(_scenarios(family)))


def _uses(source: str, names: dict[str, str]) -> list[tuple[int, int, str]]:
    """(line, column, name) of each read of a placeholder in ``source``'s statements: a name, not an
    attribute, a keyword or a word in a string or comment."""
    wrapped = "if True:\n" + source  # its indented statements, as the parser reads them
    lines = io.StringIO(wrapped).readlines()
    out = []
    for node in ast.walk(ast.parse(wrapped)):
        if isinstance(node, ast.Name) and node.id in names:
            row = node.lineno - 1  # the parser's column counts UTF-8 bytes
            col = len(lines[row].encode("utf-8")[: node.col_offset].decode("utf-8"))
            out.append((row - 1, col, node.id))
    return sorted(out)


def filled(found: Snippet, name: str, values: dict[str, str]) -> str:
    """The scenario as the method ``name`` of a generated test, each placeholder replaced by
    ``values``' text where it is read as a name."""
    missing = [p for p in PLACEHOLDERS if p not in values]
    if missing:
        raise SnippetError(f"{found.path}: no value given for {', '.join(missing)}")
    lines = io.StringIO(found.body).readlines()
    for row, col, word in reversed(_uses(found.body, values)):  # right to left, bottom up
        line = lines[row]
        if line[col : col + len(word)] != word:
            raise SnippetError(f"{found.path}: {word} is not where the parser puts it ({row + 1})")
        lines[row] = line[:col] + values[word] + line[col + len(word) :]
    body = "".join(lines)
    left = _uses(body, {p: "" for p in PLACEHOLDERS if values[p] != p})  # ``DEVICE`` may stay
    if left:
        raise SnippetError(f"{found.path}: {left[0][2]} is still read where it was written out")
    return f"    def {name}(self):\n" + body
