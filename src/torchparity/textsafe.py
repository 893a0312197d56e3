"""Text from tests made safe to show: every renderer (terminal, Markdown, JSON, JUnit, the log's lines) uses this.

A test's output, its names and its failure messages are data, never
instructions to the terminal or the Markdown renderer that shows them:

* ``escape_controls``: control characters other than newline and tab (C0, DEL,
  C1, and the Unicode controls that reorder or break lines) become visible
  escapes (``\\x1b``, ``\\x00``, ``\\r``, ``\\u202e``);
* ``one_line``: the same, and newlines too, for a ``KEY=VALUE`` line of the log;
* ``md_code`` / ``md_fence``: Markdown code spans and fences that the text inside
  cannot close (a delimiter longer than any backtick run inside);
* ``json_safe``: a JSON document with those characters as ``\\uXXXX`` escapes;
* ``excerpt``: at most N lines of each section of an evidence log.

Stands on the ground: imports only the standard library.
"""

from __future__ import annotations

import re

#: C0 controls but tab and newline, DEL, C1 controls; bidi overrides/isolates and marks; line and
#: paragraph separators; the BOM/zero-width no-break space
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]"
)
_UNSAFE_OR_NEWLINE = re.compile(_UNSAFE.pattern[:-1] + "\n]")
#: what ``json.dumps(ensure_ascii=False)`` leaves raw but a terminal may obey: DEL, C1, bidi, separators
_JSON_RAW = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]")

_NAMED = {"\r": "\\r", "\n": "\\n"}

#: raw output quoted per log section in a PR description or comment, unless configured otherwise
DEFAULT_OUTPUT_LINES = 200


def _visible(m: re.Match[str]) -> str:
    ch = m.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with every control character but newline and tab shown as an escape."""
    return _UNSAFE.sub(_visible, text)


def one_line(text: str) -> str:
    """``text`` as one line: newlines and control characters escaped (a value cannot start a new line)."""
    return _UNSAFE_OR_NEWLINE.sub(_visible, text)


def has_controls(text: str) -> bool:
    return _UNSAFE.search(text) is not None


def _longest_run(text: str, char: str) -> int:
    return max((len(m.group(0)) for m in re.finditer(re.escape(char) + "+", text)), default=0)


def md_code(text: object) -> str:
    """``text`` as a Markdown code span no backtick inside can close; newlines become spaces."""
    body = one_line("" if text is None else str(text)).replace("\\n", " ")
    ticks = "`" * (_longest_run(body, "`") + 1)
    if (
        body.startswith("`")
        or body.endswith("`")
        or (body.startswith(" ") and body.endswith(" ") and body.strip())
    ):
        body = f" {body} "
    return f"{ticks}{body}{ticks}" if body else "` `"


def md_fence(text: str | None, info: str = "") -> str:
    """``text`` in a fenced code block longer than any backtick run inside it, controls escaped."""
    body = escape_controls((text or "").rstrip("\n"))
    ticks = "`" * max(3, _longest_run(body, "`") + 1)
    return f"{ticks}{info}\n{body}\n{ticks}"


def json_safe(doc: str) -> str:
    """A JSON text with the characters ``json.dumps(ensure_ascii=False)`` leaves raw but a terminal
    may act on written as ``\\uXXXX`` escapes (they can only occur inside strings: still valid JSON)."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group(0)):04x}", doc)


_SECTION = re.compile(r"^===== .+ =====$")


def excerpt(log: str, max_lines: int = DEFAULT_OUTPUT_LINES) -> str:
    """``log`` with each ``===== SECTION =====`` (and the header before the first) cut to ``max_lines``
    lines: the first and last halves, and a line saying how many were left out. ``max_lines`` <= 0
    keeps everything."""
    if max_lines <= 0:
        return log
    sections: list[list[str]] = [[]]
    for line in log.split("\n"):
        if _SECTION.match(line):
            sections.append([])
        sections[-1].append(line)
    out: list[str] = []
    for sec in sections:
        if len(sec) <= max_lines:
            out.extend(sec)
            continue
        head = (max_lines + 1) // 2
        tail = max_lines - head
        out.extend(sec[:head])
        out.append(
            f"[... {len(sec) - max_lines} lines left out here; the full log is in the store ...]"
        )
        out.extend(sec[len(sec) - tail :] if tail else [])
    return "\n".join(out)
