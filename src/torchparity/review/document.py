"""A PR text as lines that know their section, their heading and whether they are inside a code block.

The community template's sections (``【合入来源】`` ... ``【CheckList】``, also as
``# 【...】``, ``〖...〗`` or English headings) map to one key each; Markdown
headings below them are sub-headings; fenced blocks (```` ``` ```` / ``~~~``) are
numbered. A squash commit's body (``Description: `` before the template, the
bot's ``Created-by:`` lines) reads the same as the text pasted into the PR.

A line is read up to ``MAX_LINE`` characters: a longer one (a pasted log, an
inline image) is kept as an empty line and listed in ``Document.long_lines``, so
that no claim comes from it and the review can say so. Every pattern here and in
the extractors runs in time linear in the line's length.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import UsageError

#: section key -> the words its heading contains (lower-case; Chinese as written)
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("source", ("合入来源", "source", "related issue")),
    ("scope", ("分支范围", "branch scope", "branches", "target branch")),
    (
        "search",
        ("用例检索", "新增必要性", "社区用例", "existing tests", "coverage search", "test search"),
    ),
    ("docs", ("资料", "documentation", "docs")),
    ("interface", ("接口变更", "interface")),
    (
        "verify",
        (
            "功能验证",
            "测试结果",
            "验证结果",
            "verification",
            "test result",
            "testing",
            "validation",
            "test plan",
            "自验证",
        ),
    ),
    ("upstream", ("test_upstream",)),
    ("checklist", ("checklist",)),
    (
        "change",
        ("修改方案", "修改内容", "change", "modification", "summary", "what does this pr do"),
    ),
)

#: the longest line read for claims (characters); a longer one is skipped, and the review says so
MAX_LINE = 4096

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
#: a Markdown heading: its level and the rest of the line (closing ``#``s are taken off in code)
_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*)$")
_TEMPLATE_HEADING = re.compile(r"^\s*(?:#+\s*)?[【〖]([^】〗]{1,40})[】〗]\s*$")
_BOLD_HEADING = re.compile(r"^\s*\*\*([^*]{1,60})\*\*\s*(?:[:：]\s*)?$")
#: lines the merge bot adds around the description
_BOT = re.compile(
    r"^(Created-by|Commit-by|Merged-by|Co-authored-by|See merge request|Reviewed-by|Signed-off-by):"
)


def _pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    parts = [re.escape(w) if not w.isascii() else rf"\b{re.escape(w)}\b" for w in words]
    return re.compile("|".join(parts))


_SECTION_PATTERNS = tuple((key, _pattern(words)) for key, words in SECTIONS)


def section_key(heading: str) -> str:
    """The section a heading opens ("" for none); long lines and links are never headings of a section."""
    h = heading.strip().lower()
    if len(h) > 40 or "://" in h:
        return ""
    for key, pattern in _SECTION_PATTERNS:
        if pattern.search(h):
            return key
    return ""


@dataclass(frozen=True)
class Line:
    no: int
    text: str
    #: the template section (``verify``, ``docs``...), "" before the first
    section: str
    #: the nearest heading above (any level), as written
    heading: str
    #: the fenced block this line is inside (its number), None outside blocks
    block: int | None
    lang: str = ""
    is_heading: bool = False
    bot: bool = False

    @property
    def stripped(self) -> str:
        return self.text.strip()


class Document:
    """The lines of one PR text (1-based numbers, as an editor shows them)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: list[Line] = []
        #: (line number, length) of each line longer than ``MAX_LINE``, read as an empty line
        self.long_lines: list[tuple[int, int]] = []
        section, heading = "", ""
        block: int | None = None
        fence = ""
        lang = ""
        blocks = 0
        for no, raw in enumerate(text.splitlines(), start=1):
            line = raw.rstrip("\r")
            if len(line) > MAX_LINE:
                self.long_lines.append((no, len(line)))
                line = ""
            if line.startswith("Description: "):
                line = line[len("Description: ") :]
            m = _FENCE.match(line)
            if m and (block is None or m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)):
                if block is None:
                    blocks += 1
                    block, fence, lang = blocks, m.group(1), m.group(2).lower()
                    self.lines.append(Line(no, line, section, heading, None, lang))
                else:
                    self.lines.append(Line(no, line, section, heading, None, lang))
                    block, fence, lang = None, "", ""
                continue
            if block is None:
                title = self._heading(line)
                if title is not None:
                    key = section_key(title)
                    top = bool(_TEMPLATE_HEADING.match(line)) or key and _is_top(line)
                    if top and key:
                        section = key
                    heading = title
                    self.lines.append(Line(no, line, section, heading, None, is_heading=True))
                    continue
            self.lines.append(
                Line(
                    no,
                    line,
                    section,
                    heading,
                    block,
                    lang if block else "",
                    bot=bool(_BOT.match(line)),
                )
            )

    @staticmethod
    def _heading(line: str) -> str | None:
        m = _TEMPLATE_HEADING.match(line)
        if m:
            return m.group(1).strip()
        m = _MD_HEADING.match(line)
        if m and not line.lstrip().startswith("#!"):
            return _heading_title(m.group(2)).strip("*").strip()
        m = _BOLD_HEADING.match(line)
        if m:
            return m.group(1).strip()
        return None

    def __iter__(self):
        return iter(self.lines)

    def __len__(self) -> int:
        return len(self.lines)

    def at(self, no: int) -> Line:
        return self.lines[no - 1]

    def block_lines(self, block: int) -> list[Line]:
        return [ln for ln in self.lines if ln.block == block]

    def previous_text(self, no: int, limit: int = 6) -> list[Line]:
        """Up to ``limit`` non-empty, non-fence lines before line ``no``, nearest first."""
        out: list[Line] = []
        i = no - 2
        while i >= 0 and len(out) < limit:
            ln = self.lines[i]
            if ln.stripped and not _FENCE.match(ln.text):
                out.append(ln)
            i -= 1
        return out


def _heading_title(rest: str) -> str:
    """A Markdown heading's text without its closing ``#``s and blanks (``Title ##`` -> ``Title``)."""
    title = rest.rstrip().rstrip("#").rstrip()
    return title if title or not rest.strip() else rest.strip()[:1]


def _is_top(line: str) -> bool:
    """A Markdown heading of level 1 or 2 can open a section (``# Verification``, ``## Test results``)."""
    m = _MD_HEADING.match(line)
    return m is not None and len(m.group(1)) <= 2


def refuse_nul(text: str, where: str) -> None:
    """A text with a NUL character is not a PR description: one line naming ``where:LINE:COLUMN``."""
    at = text.find("\0")
    if at == -1:
        return
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    raise UsageError(
        f"{where}:{line}:{column}: a NUL byte; a PR description is text: pass the text itself "
        "(a binary file or a UTF-16 file is not one; save it as UTF-8)"
    )


def long_lines_note(long_lines: Sequence[tuple[int, int]]) -> str:
    """The review's note on the lines it did not read ("" when every line was read)."""
    if not long_lines:
        return ""
    if len(long_lines) == 1:
        no, length = long_lines[0]
        return (
            f"line {no} is {length:,} characters long, over the {MAX_LINE:,} a line is read up to: "
            "not read for claims"
        )
    shown = ", ".join(str(no) for no, _ in long_lines[:5])
    more = f" and {len(long_lines) - 5} more" if len(long_lines) > 5 else ""
    longest = max(length for _, length in long_lines)
    return (
        f"lines {shown}{more} are longer than the {MAX_LINE:,} characters a line is read up to "
        f"(the longest {longest:,}): not read for claims"
    )
