"""Jinja2 templates (``scaffold/templates``) to test source: methods, and whole files."""

from __future__ import annotations

import ast
import re
import sys
import unicodedata
from functools import lru_cache
from typing import Any

import jinja2

from .. import pyast
from ..names import is_private_name
from .conventions import Conventions
from .plan import TestPlan

#: stdlib modules a family may import (they go in their own isort section)
STDLIB = (
    "math",
    "warnings",
    "os",
    "tempfile",
    "io",
    "pickle",
    "copy",
    "collections",
    "itertools",
    "functools",
)


def _pyrepr(value: Any) -> str:
    """A Python literal with double quotes (the house style of generated files)."""
    if isinstance(value, str):
        text = repr(value)
        if text.startswith("'") and '"' not in value:
            text = '"' + text[1:-1].replace("\\'", "'") + '"'
        return text
    return repr(value)


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("torchparity.scaffold", "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["pyrepr"] = _pyrepr
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def render_macro(template: str, name: str, context: dict[str, Any], **kwargs: Any) -> str:
    """One macro of a template (a family's test method), with the template's ``context``."""
    module = environment().get_template(template).make_module(context)
    return str(getattr(module, name)(**kwargs))


def render_helpers(template: str, **context: Any) -> list[tuple[str, str]]:
    """(name, source) of each helper method in a template (helpers separated by ``---`` lines)."""
    text = render(template, **context)
    out = []
    for chunk in text.split("\n---\n"):
        chunk = chunk.strip("\n") + "\n"
        name = chunk.split("def ", 1)[1].split("(", 1)[0]
        out.append((name, chunk))
    return out


def names_used(text: str) -> set[str]:
    """The names class-body source ``text`` reads (strings and comments do not count)."""
    try:
        tree = pyast.parse_module("class _Body:\n" + (text if text.strip() else "    pass\n"))
    except SyntaxError:
        return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def used_imports(imports: tuple[str, ...] | list[str], text: str) -> list[str]:
    """The ``import X`` lines whose module the code uses (others would be unused imports)."""
    used = names_used(text)
    out = []
    for line in imports:
        words = line.split()
        if words[0] == "import" and len(words) == 2 and words[1].split(".")[0] not in used:
            continue
        out.append(line)
    return out


def import_sections(plan: TestPlan, conv: Conventions) -> tuple[list[str], list[str]]:
    """(stdlib imports, third-party imports) in the order ruff's isort wants them."""
    body = class_body(plan)
    imports = used_imports(plan.imports, body)
    stdlib_set = {
        i
        for i in imports
        if i.split()[1].split(".")[0] in STDLIB
        or i.split()[1].split(".")[0] in sys.stdlib_module_names
    }
    # isort's order: ``import x`` lines first, then ``from x import y`` lines
    stdlib = sorted(stdlib_set, key=lambda s: (s.startswith("from "), s))
    other = {i for i in imports if i not in stdlib_set}
    if plan.uses_device or "torch" in names_used(body):
        other.add("import torch")
    other.add(conv.testcase_import)
    plain = sorted((i for i in other if i.startswith("import ")), key=lambda s: s.lower())
    froms = sorted((i for i in other if i.startswith("from ")), key=lambda s: s.split()[1].lower())
    return stdlib, plain + froms


def class_body(plan: TestPlan) -> str:
    """The methods, tests first then helpers, one blank line apart."""
    ordered = [m for m in plan.methods if not m.helper] + [m for m in plan.methods if m.helper]
    return "\n".join(m.source.rstrip("\n") + "\n" for m in ordered)


def shown_name(plan: TestPlan) -> str:
    """The API as a docstring names it: a reader knows it by a public name (torch.Generator.seed, not
    torch._C.Generator.seed)."""
    if is_private_name(plan.api) and not is_private_name(plan.spelling):
        return plan.spelling
    return plan.api


def docstring_parts(
    plan: TestPlan, conv: Conventions, device_type: str, generated: str = ""
) -> tuple[str, list[str]]:
    """(title, body lines) of the module docstring that names the API: a new file's docstring, and what
    ``--into`` adds to a file whose docstring does not name it. The body is the paragraph naming the API
    (and what is not written yet) and ``generated`` (the line saying what wrote the file), in English,
    then the coverage list when the conventions ask for it, in Chinese and nothing else; each part
    ends with a blank line."""
    where = device_type.upper() if device_type else "the device under test"
    shown = shown_name(plan)
    paragraphs = [f"This file validates {shown}{': ' + plan.summary if plan.summary else '.'}"]
    if plan.fill_in:
        paragraphs.append(
            "Some tests are not written yet and fail on purpose: " + " ".join(plan.fill_in)
        )
    if generated:
        paragraphs.append(generated)
    body: list[str] = []
    for para in paragraphs:
        body += [*_wrap(para).split("\n"), ""]
    if conv.coverage_table:
        body += [f"API 覆盖说明（{shown}）：", "", *coverage_lines(plan.coverage), ""]
    return f"Validation cases for {shown} on {where}.", body


def docstring_text(title: str, body: list[str]) -> str:
    """The module docstring, its closing quotes on a line of their own."""
    lines = [f'"""{title}', "", *body]
    while lines[-1] == "":
        lines.pop()
    return "\n".join([*lines, '"""']) + "\n"


def render_file(
    plan: TestPlan,
    conv: Conventions,
    *,
    device_line: str,
    device_type: str,
    torch_version: str,
    year: int | None = None,
) -> str:
    stdlib, third = import_sections(plan, conv)
    # what wrote the file goes with the English paragraphs, never inside the Chinese coverage list
    generated = (
        f"Generated by torchparity scaffold ({plan.family} family) with torch {torch_version}."
    )
    title, body = docstring_parts(plan, conv, device_type, generated)
    text = render(
        "file.py.j2",
        header=conv.header(year).rstrip("\n"),
        docstring=docstring_text(title, body).rstrip("\n"),
        stdlib_imports=stdlib,
        third_party_imports=third,
        device_line=device_line if plan.uses_device else "",
        class_name=plan.class_name,
        body=class_body(plan),
    )
    return text


def display_width(text: str) -> int:
    """Columns a line takes (CJK characters take two), as ruff measures line length."""
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


_BREAK_AFTER = "；，、。：） "


def wrap_cjk(text: str, width: int, indent: str = "  ") -> list[str]:
    """Lines of at most ``width`` columns, broken after punctuation or a space where possible."""
    lines: list[str] = []
    current = ""
    for char in text:
        if display_width(current + char) > width:
            cut = max(current.rfind(p) for p in _BREAK_AFTER)
            if cut > len(indent) + 4:
                lines.append(current[: cut + 1].rstrip())
                current = indent + current[cut + 1 :].lstrip()
            else:
                lines.append(current.rstrip())
                current = indent
        current += char
    if current.strip():
        lines.append(current.rstrip())
    return lines


def coverage_lines(rows: tuple[tuple[str, str], ...], width: int = 96) -> list[str]:
    """The coverage dimensions as a list, one ``- 维度：覆盖`` item per dimension, wrapped."""
    out: list[str] = []
    for dim, text in rows:
        out += wrap_cjk(f"- {dim}：{text}", width)
    return out


def _wrap(text: str, width: int = 96) -> str:
    """Greedy wrap on spaces (docstrings); words longer than the width stay whole."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return "\n".join(lines)
