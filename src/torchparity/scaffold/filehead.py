"""``--into``: the copyright header and the module docstring the checklist asks for, added where missing.

The checklist's own rules say what is missing (``check_copyright``, ``check_docstring``), and what is
added is what a new file gets: the header of the conventions (``Conventions.header``) at the top of the
file, after a shebang or coding line; the docstring paragraph naming the API (``docstring_parts``),
as a new module docstring or added to the end of the file's own one. A file that has both is not
touched; a file whose header is another copyright or licence is left as it is, with a note.
"""

from __future__ import annotations

import ast
import io
from collections.abc import Sequence
from dataclasses import dataclass

from ..checks.checklist import FAIL, PASS, check_copyright, check_docstring, header_start
from ..checks.pysource import SourceFile
from ..coverage.aliases import AliasTable
from .insert import check_only_insertions
from .render import docstring_text


@dataclass(frozen=True)
class FileHead:
    text: str
    #: what was added, in words ("the copyright header", "a module docstring naming torch.x")
    added: tuple[str, ...] = ()
    #: why something the checklist asks for was not added
    notes: tuple[str, ...] = ()


def _lines(text: str) -> list[str]:
    """The lines as Python numbers them (``\\n``, ``\\r\\n``, ``\\r``), each with its line ending."""
    return io.StringIO(text, newline="").readlines()


def _newline(lines: Sequence[str]) -> str:
    first = lines[0] if lines else ""
    return "\r\n" if first.endswith("\r\n") else "\r" if first.endswith("\r") else "\n"


def _is_blank(line: str) -> bool:
    return not line.strip()


def _foreign_header(lines: Sequence[str], start: int) -> str:
    """The first line of the comment block at ``start`` that states a copyright or licence, or ""."""
    for line in lines[start:]:
        if not line.lstrip().startswith("#"):
            break
        low = line.casefold()
        if "copyright" in low or "spdx-license-identifier" in low:
            return line.strip()
    return ""


def add_header(text: str, path: str, template: str, header: str) -> FileHead:
    """``text`` with ``header`` (the conventions' header, ``{year}`` filled in) at its top, unless
    it starts with the configured header already (``check_copyright``) or with another one."""
    if not header or check_copyright(SourceFile(path, text), template).status != FAIL:
        return FileHead(text)
    lines = _lines(text)
    start = header_start([line.rstrip("\r\n") for line in lines])
    other = _foreign_header(lines, start)
    if other:
        return FileHead(
            text,
            notes=(
                f"the file starts with another copyright or licence header ({other!r}): left as "
                "it is, so the checklist's copyright item fails until it is the configured one",
            ),
        )
    nl = _newline(lines)
    # a file has a statement (its test class): the header goes in front of a line, never at the end
    lines[start:start] = [line + nl for line in header.rstrip("\n").split("\n")] + [nl]
    out = "".join(lines)
    check_only_insertions(text, out, path)
    return FileHead(out, ("the copyright header",))


def _first_line(node: ast.stmt) -> int:
    """The 1-based line a top-level statement starts on (its first decorator for a decorated one)."""
    decorators = getattr(node, "decorator_list", None) or []
    return min([node.lineno, *(d.lineno for d in decorators)])


def _docstring_node(tree: ast.Module) -> ast.Expr | None:
    first = tree.body[0] if tree.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


def add_docstring(
    text: str,
    path: str,
    api: str,
    table: AliasTable,
    title: str,
    body: Sequence[str],
    shown: str,
) -> FileHead:
    """``text`` whose module docstring names ``api`` (``check_docstring``): a new docstring of
    ``title`` and ``body`` where the file has none, else ``body`` added to the end of its own."""
    src = SourceFile(path, text)
    if src.tree is None or check_docstring(src, api, table).status != FAIL:
        return FileHead(text)
    lines = _lines(text)
    nl = _newline(lines)
    node = _docstring_node(src.tree)
    replace: tuple[int, int] | None = None
    if node is None:
        lines, what = _new_docstring(lines, src.tree, nl, title, body), "added"
    else:
        extended = _extend_docstring(lines, node, nl, body)
        if extended is None:
            return FileHead(
                text,
                notes=(
                    "the file's module docstring cannot take more lines as it is written (not "
                    "triple-quoted, or something follows its closing quotes): name "
                    f"{shown} in it by hand, the checklist asks for it",
                ),
            )
        lines, replace = extended
        what = "extended"
    out = "".join(lines)
    check_only_insertions(text, out, path, replace)
    if check_docstring(SourceFile(path, out), api, table).status != PASS:
        return FileHead(
            text,
            notes=(
                f"the file's module docstring would not name {api} as the checklist reads it: "
                f"name {shown} in it by hand",
            ),
        )
    return FileHead(out, (f"the module docstring naming {shown} ({what})",))


def _new_docstring(
    lines: list[str], tree: ast.Module, nl: str, title: str, body: Sequence[str]
) -> list[str]:
    """A module docstring in front of the first statement and the comments right above it; after
    that comment block when it is the top of the file (a shebang, a header), one blank line around."""
    first = _first_line(tree.body[0]) - 1 if tree.body else len(lines)
    at = first
    while at > 0 and lines[at - 1].lstrip().startswith("#"):
        at -= 1
    if all(_is_blank(line) for line in lines[:at]):
        at = first
    doc = [line + nl for line in docstring_text(title, list(body)).rstrip("\n").split("\n")]
    if at > 0 and not _is_blank(lines[at - 1]):
        doc.insert(0, nl)
    if at < len(lines) and not _is_blank(lines[at]):
        doc.append(nl)
    return [*lines[:at], *doc, *lines[at:]]


def _extend_docstring(
    lines: list[str], node: ast.Expr, nl: str, body: Sequence[str]
) -> tuple[list[str], tuple[int, int] | None] | None:
    """The lines with ``body`` added before the docstring's closing quotes, and the line rewritten
    (the closing quotes' own line, when they end a line of text); None when that cannot be done
    by adding lines (a docstring not triple-quoted, code after it on its line)."""
    end = (node.end_lineno or node.lineno) - 1
    col = node.end_col_offset
    if col is None or end >= len(lines):
        return None
    raw = lines[end].encode("utf-8")
    head, tail = raw[:col].decode("utf-8"), raw[col:].decode("utf-8")
    quote = head[-3:]
    added = "\n".join(body)
    if quote not in ('"""', "'''") or tail.strip() or quote in added:
        return None
    extra = [""] + list(body)
    while extra and extra[-1] == "":
        extra.pop()
    if not head[:-3].strip():  # the closing quotes stand on their own line: add lines before it
        if end > 0 and _is_blank(lines[end - 1]):
            extra = extra[1:]
        return [*lines[:end], *(line + nl for line in extra), *lines[end:]], None
    # the closing quotes go on a line of their own, with what followed them (the line ending)
    rewritten = [head[:-3].rstrip() + nl, *(line + nl for line in extra), quote + tail]
    return [*lines[:end], *rewritten, *lines[end + 1 :]], (end, end + 1)
