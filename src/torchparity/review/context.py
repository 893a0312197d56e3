"""What surrounds a line: the evidence log it is in (its ``KEY=VALUE`` header), the branch it is about.

An evidence log starts at a rule of ``=`` followed by ``KEY=VALUE`` lines (or at
``TARGET_BRANCH=``); ``===== NAME =====`` opens a step inside it. A line's branch
is the nearest one above it in its section: the log's ``TARGET_BRANCH``, a heading
naming a branch (``## v2.7.1``), or ``目标分支：v2.7.1`` / ``Target branch: v2.7.1``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .document import Document, Line

KEY_VALUE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_.]*)=(.*)$")
RULE = re.compile(r"^\s*={10,}\s*$")
_STEP_NAME = re.compile(r"[A-Z][A-Z0-9 _/-]*")
#: header keys a log keeps (a real header has about ten; more are not read)
MAX_LOG_KEYS = 64
BRANCH_TOKEN = r"(?:master|main|v\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?)"
_BRANCH_WORD = re.compile(rf"(?<![\w./-]){BRANCH_TOKEN}(?![\w/-])")
_TARGET_LINE = re.compile(
    rf"(?:目标分支|target[ _-]?branch|TARGET_BRANCH)\s*[:：=]\s*`?(?:origin/)?({BRANCH_TOKEN})",
    re.IGNORECASE,
)
_PROSE = re.compile(r"[\u4e00-\u9fff]")
PATH = re.compile(
    r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.(?:py|md|txt|json|yaml|yml|toml|cpp|h|sh|patch))(?![\w/])"
)


@dataclass
class LogState:
    """The evidence log a line is in: its header keys and the step it is in."""

    start: int = 0
    keys: dict[str, str] = field(default_factory=dict)
    step: str = ""
    #: COMMAND= inside the current step
    command: str = ""
    command_line: int = 0


@dataclass(frozen=True)
class LineContext:
    branch: str
    log_start: int
    keys: tuple[tuple[str, str], ...]
    step: str
    command: str
    command_line: int

    def key(self, name: str) -> str:
        return next((v for k, v in self.keys if k == name), "")


def step_name(text: str) -> str | None:
    """The step a ``===== NAME =====`` line opens (None when it is no such line); linear in its length."""
    body = text.strip()
    inner = body.strip("=")
    if len(body) - len(body.lstrip("=")) < 3 or len(body) - len(body.rstrip("=")) < 3 or not inner:
        return None
    inner = inner.strip()
    return inner if _STEP_NAME.fullmatch(inner) else None


class Context:
    """Per-line context of one document."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self._lines: list[LineContext] = []
        state = LogState()
        branch, branch_section = "", ""
        keys: tuple[tuple[str, str], ...] = ()
        keys_of: dict[str, str] | None = None  # the dict ``keys`` was made from, while unchanged
        lines = doc.lines
        for i, ln in enumerate(lines):
            text = ln.stripped
            nxt = lines[i + 1].stripped if i + 1 < len(lines) else ""
            if state.start and _ends_log(ln, lines[state.start - 1].block):
                state = LogState()
            if RULE.match(text) and KEY_VALUE.match(nxt):
                state = LogState(start=ln.no)
            elif text.startswith("TARGET_BRANCH=") and state.keys.get("TARGET_BRANCH"):
                state = LogState(start=ln.no)
            step = step_name(text) if text.startswith("=") else None
            if step is not None and not RULE.match(text):
                state.step, state.command, state.command_line = step, "", 0
            kv = KEY_VALUE.match(text)
            if kv and state.start:
                key, value = kv.group(1), kv.group(2).strip()
                if key == "COMMAND":
                    state.command, state.command_line = value, ln.no
                elif (
                    # the header's keys; and in a step, the file it names (``UPSTREAM_FILE=``), which
                    # the hash after it (``UPSTREAM_FILE_SHA256=``) is of
                    (not state.step or key.endswith("_FILE"))
                    and state.keys.get(key) != value
                    and (key in state.keys or len(state.keys) < MAX_LOG_KEYS)
                ):
                    state.keys[key] = value
                    keys_of = None
            if (
                keys_of is not state.keys
            ):  # one tuple per change of the header, shared by the lines after it
                keys, keys_of = tuple(state.keys.items()), state.keys
            if ln.section != branch_section:
                branch, branch_section = "", ln.section
            found = self.branch_in(text, heading=ln.is_heading)
            if found:
                branch = found
            self._lines.append(
                LineContext(
                    branch=branch,
                    log_start=state.start,
                    keys=keys,
                    step=state.step,
                    command=state.command,
                    command_line=state.command_line,
                )
            )

    @staticmethod
    def branch_in(text: str, heading: bool = False) -> str:
        """The branch a line names as its target (a heading may name it alone: ``## v2.7.1``)."""
        m = _TARGET_LINE.search(text)
        if m:
            return m.group(1)
        if heading:
            words: list[str] = _BRANCH_WORD.findall(text)
            if len(words) == 1 and len(text) <= 40:
                return words[0]
        return ""

    def at(self, no: int) -> LineContext:
        return self._lines[no - 1]


def _ends_log(ln: Line, block: int | None) -> bool:
    """A log ends with its code block, at a heading, or (in plain text) at a line of prose."""
    if block is not None:
        return ln.block != block
    return ln.is_heading or bool(
        ln.block is None and _PROSE.search(ln.text) and not KEY_VALUE.match(ln.text)
    )


def paths_in(text: str) -> list[str]:
    """Repository-looking paths on a line (``test/npu/test_x.py``), in order."""
    return [m.group(1) for m in PATH.finditer(text)]
