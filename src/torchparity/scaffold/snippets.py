"""Recipe snippets: scenarios written once as real, linted Python tests, filled in for one API.

A family's snippets are one module, ``scaffold/recipes/snippets/<family>.py``, that runs as it
stands (``python -m unittest``): it binds ``DEVICE`` at its top and holds one ``unittest.TestCase``
whose methods are its scenarios, ``test_<variant>`` (``test_grad``: the test of
``torch.autograd.grad``). Each method starts with a docstring, whose first line says what it
checks, and a line that binds ``API`` to the API it tests; the rest is the test. Scaffold writes
that rest into the test it generates under the test's own name, with each placeholder (``API``,
``DEVICE``) replaced by its spelling there (``torch.autograd.grad``, ``self.device``); strings and
comments are left as written. A family finds its scenario by variant (``snippet(family,
variant)``): choosing a scenario is a method's name, not a branch of a template.
"""

from __future__ import annotations

import ast
import io
import tokenize
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
    lines = text.splitlines(keepends=True)
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
    assert fn.end_lineno is not None
    body = "".join(lines[fn.body[2].lineno - 1 : fn.end_lineno])
    return Snippet(family, fn.name[len(PREFIX) :], path, doc.split("\n", 1)[0].strip(), body)


def snippet(family: str, variant: str) -> Snippet | None:
    """The scenario of ``family`` for ``variant``, or None where it has none."""
    return _scenarios(family).get(variant)


def variants(family: str) -> tuple[str, ...]:
    """The variants ``family`` has a scenario for."""
    return tuple(sorted(_scenarios(family)))


def filled(found: Snippet, name: str, values: dict[str, str]) -> str:
    """The scenario as the method ``name`` of a generated test, each placeholder replaced by
    ``values``' text (where it is a name: not in strings or comments)."""
    missing = [p for p in PLACEHOLDERS if p not in values]
    if missing:
        raise SnippetError(f"{found.path}: no value given for {', '.join(missing)}")
    lines = found.body.splitlines(keepends=True)
    places: list[tuple[int, int, str]] = []
    source = "if True:\n" + found.body  # its indented statements, as the tokenizer reads them
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME and tok.string in values and tok.start[0] > 1:
            places.append((tok.start[0] - 2, tok.start[1], tok.string))
    for row, col, word in reversed(places):  # right to left: earlier columns stay where they are
        line = lines[row]
        lines[row] = line[:col] + values[word] + line[col + len(word) :]
    return f"    def {name}(self):\n" + "".join(lines)
