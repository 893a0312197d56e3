"""``git grep`` commands in a PR text and the match count the text gives for each.

The count is the number after a label (``匹配数：0``, ``matches: 3``), a line
holding only a number, "no match" words (0), or the matching lines the text
pastes below the command (counted). The commit it ran at is the command's own
revision, or the one the line above names (``在 origin/v2.7.1（bacce7d…）中执行``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from .document import Document, Line
from .extract_hashes import HASH, SHORT_COMMIT
from .extract_runs import MAX_CONTINUED
from .records import GrepClaim

_GIT_GREP = re.compile(r"\bgit\s+(?:-C\s+\S+\s+)?grep\b")
_COUNT_LABEL = re.compile(
    r"匹配数|匹配结果|命中数|匹配行数|结果数|个匹配|条匹配|matches|match count|count|hits",
    re.IGNORECASE,
)
_NO_MATCH = re.compile(
    r"无匹配|没有匹配|未匹配到|无输出|无结果|no match(?:es)?|no output|no results?|\(empty\)",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"^\s*`?(\d{1,6})`?\s*(?:(?:个|条|处|lines?|matches)\s*)?(?:[。.]\s*)?$")
_LABEL_NUMBER = re.compile(r"[:：]\s*`?(\d{1,6})`?\s*(?:(?:个|条|处)\s*)?(?:[。.；;,，]\s*)?$")
_MATCH_LINE = re.compile(r"^\s*(?:[\w.-]+:)?[\w./-]+\.\w+:\d+[:-]")
#: the ref a grep ran at: ``在 origin/v2.7.1（bacce7d…）中执行`` (see ``_ref``), ``at v2.7.1 (…)``
_REF_ZAI = re.compile(r"在\s*`?([\w./-]+?)`?\s*[（(]")
_REF_AT = re.compile(r"(?:\bat|\bon|\bin)\s+`?((?:origin/)?[\w./-]+)`?\s*[（(]")
_NAME_RUN = re.compile(r"[\w./-]+")


def _join(doc: Document, ln: Line) -> tuple[str, int]:
    parts, no = [ln.stripped], ln.no
    while parts[-1].endswith("\\") and no < len(doc) and len(parts) < MAX_CONTINUED:
        parts[-1] = parts[-1][:-1].rstrip()
        no += 1
        parts.append(doc.at(no).stripped)
    return " ".join(p for p in parts if p), no


def _count_after(doc: Document, end: int) -> tuple[int, int] | None:
    """(count, line) the text states after the command that ends on line ``end``."""
    matches: list[int] = []
    label_pending = False
    for no in range(end + 1, min(len(doc), end + 14) + 1):
        ln = doc.at(no)
        text = ln.stripped
        if not text or text.startswith(("```", "~~~")):
            continue
        if (
            ln.is_heading
            or _GIT_GREP.search(text)
            or re.match(r"^\s*(?:\$\s*)?(?:python|pytest|cd)\b", text)
        ):
            break
        if _MATCH_LINE.match(text) and ln.block is not None:
            matches.append(no)
            continue
        if matches:
            break
        if _NO_MATCH.search(text) and not re.search(r"\d", text):
            return 0, no
        if _COUNT_LABEL.search(text):
            m = _LABEL_NUMBER.search(text)
            if m:
                return int(m.group(1)), no
            label_pending = True
            continue
        m = _NUMBER.match(text)
        if m and (label_pending or ln.block is not None):
            return int(m.group(1)), no
        if ln.block is None and not label_pending:
            break
    if matches:
        return len(matches), matches[0]
    return None


def grep_args(command: str) -> tuple[str, ...] | None:
    """The words after ``git grep`` (None when the command cannot be split or pipes elsewhere)."""
    cmd = command
    pipe = cmd.find("|")
    while pipe != -1 and cmd[:pipe].count("'") % 2 == 1:
        pipe = cmd.find("|", pipe + 1)
    tail = ""
    if pipe != -1:
        cmd, tail = cmd[:pipe], cmd[pipe + 1 :]
        if not re.fullmatch(r"\s*wc\s+-l\s*", tail):
            return None
    try:
        words = shlex.split(cmd)
    except ValueError:
        return None
    for i, w in enumerate(words):
        if w == "grep" and i and words[i - 1] in ("git",) or (w == "grep" and "git" in words[:i]):
            return tuple(words[i + 1 :])
    return None


def _stated_commit(doc: Document, ln: Line) -> str:
    for prev in [ln, *doc.previous_text(ln.no, limit=3)]:
        text = prev.stripped
        m = HASH.search(text)
        if m and len(m.group(1)) == 40:
            return m.group(1)
        m = SHORT_COMMIT.search(text)
        if m:
            return m.group(1)
        found = _ref(text)
        if found:
            return found.strip("`")
    return ""


def _ref(text: str) -> str:
    """The ref the leftmost ``在 REF（`` or ``at REF (`` of ``text`` names ("" for none), in one walk.

    ``在`` is a word character itself: from each ``在`` inside a run of name characters the name would
    run to the run's end, so only the first one of a run (and its last one, which blanks may follow)
    is tried.
    """
    zai = None
    pos = 0
    while (i := text.find("在", pos)) != -1:
        zai = _REF_ZAI.match(text, i)
        if zai:
            break
        run = _NAME_RUN.match(text, i + 1)
        pos = max(i + 1, run.end() - 1) if run else i + 1
    at = _REF_AT.search(text)
    m = at if at and (zai is None or at.start() < zai.start()) else zai
    return m.group(1) if m else ""


def _upstream(doc: Document, ln: Line) -> bool:
    near = " ".join(p.stripped for p in [ln, *doc.previous_text(ln.no, limit=3)])
    return bool(
        re.search(
            r"upstream|pytorch/pytorch|PyTorch\s*(?:仓|主仓|社区仓|官方仓|源码)",
            near,
            re.IGNORECASE,
        )
    )


def extract_greps(doc: Document) -> Iterator[GrepClaim]:
    skip_to = 0
    for ln in doc:
        if ln.no <= skip_to or not _GIT_GREP.search(ln.text) or ln.is_heading:
            continue
        command, end = _join(doc, ln)
        start = _GIT_GREP.search(command)
        assert start is not None
        command = command[start.start() :]
        skip_to = end
        args = grep_args(command)
        if args is None:
            continue
        found = _count_after(doc, end)
        if found is None:
            continue
        count, count_line = found
        yield GrepClaim(
            line=ln.no,
            text=command,
            command=command,
            args=args,
            count=count,
            count_line=count_line,
            at=_stated_commit(doc, ln),
            upstream=_upstream(doc, ln),
        )
