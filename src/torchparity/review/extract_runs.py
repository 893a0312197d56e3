"""Test runner output in a PR text: unittest's verbose lines and ``Ran N`` footer, pytest's node lines
and summary, and the command that (the text says) produced them.

One run is the listed tests since the previous run's end, in the same code
block (or the same section, for plain text), up to a footer. Its command is the
log step's ``COMMAND=``, else the nearest ``python ...``/``pytest ...`` line above
it that names a test file.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field

from .context import Context
from .document import Document, Line
from .records import ListedTest, TestRunClaim

_OUTCOME = {
    "ok": "ok",
    "fail": "fail",
    "error": "error",
    "skipped": "skip",
    "expected failure": "xfail",
    "unexpected success": "xpass",
}
_UNITTEST = re.compile(r"^\s*(test\w*) \(([\w.]+)\)(?:\s*(\[.*\]|\(.*\)))?(?:\s*\.\.\.\s*(.*))?$")
_BARE = re.compile(
    r"^\s*(test\w*) \.\.\.\s*(?:(ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)\s*)?$"
)
#: the second line of a test with a docstring: the docstring's first line, then the outcome
_DOC_RESULT = re.compile(
    r"^\s*(?!test)\S.* \.\.\. (ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)\s*$"
)
_RESULT = re.compile(r"^(ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)\s*$")
_RAN = re.compile(r"^\s*Ran (\d+) tests? in [\d.]+\s*s\b")
_STATUS = re.compile(r"^\s*(OK|FAILED)\b\s*(?:\((.*)\)\s*)?$")
_DOTS = re.compile(r"^\s*[.sFExu]+\s*$")
_PYTEST_NODE = re.compile(
    r"^\s*(?:(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+)?((?:[\w.-]*/)*[\w.-]+\.py)::([\w:\[\].,=-]+?)"
    r"(?:\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS))?(?:\s+\[\s*\d+%\])?(?:\s+-\s+.*)?\s*$"
)
_PYTEST_FOOTER = re.compile(
    r"^\s*(?:=+\s*)?((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|subtests? "
    r"(?:passed|failed|skipped))(?:,\s*)?)+)\s+in\s+[\d.]+\s*s(?:econds)?\b.*$"
)
_PYTEST_OUTCOME = {
    "PASSED": "ok",
    "FAILED": "fail",
    "ERROR": "error",
    "SKIPPED": "skip",
    "XFAIL": "xfail",
    "XPASS": "xpass",
}
#: the most lines one command is read over (``\\`` continuations); a real one spans a few
MAX_CONTINUED = 64
_FOOTER_KEY = re.compile(r"(?<![a-z ])([a-z ]+?)=(\d+)")
_FOOTER_COUNT = re.compile(r"(?<!\d)(\d+) ((?:subtests? )?[a-z]+)")
_COMMAND = re.compile(r"(?:^|[\s;&|(])((?:[\w./-]*/)?(?:python[\d.]*|pytest|py\.test))(?=\s)")
_PROMPT = re.compile(r"^\s*(?:\(\S+\)\s*)?(?:[\w.@-]+:[^\s#$]*[#$]\s*|[$#>]\s+)")


@dataclass
class _Open:
    tests: list[ListedTest] = field(default_factory=list)
    first: int = 0
    dots: int = 0
    pending: int | None = None  # index of a test whose outcome comes on a later line
    nodes: set[str] = field(
        default_factory=set
    )  # pytest node ids listed (the short summary repeats them)


def _outcome(rest: str) -> str:
    r = rest.strip()
    for word, outcome in _OUTCOME.items():
        if r == word.upper() or r.lower().startswith(word) and (word != "ok" or r == "ok"):
            return outcome
    if r in ("FAIL", "ERROR"):
        return r.lower()
    return ""


def _split_qualifier(name: str, qual: str) -> tuple[str, str]:
    """``__main__.TestX.test_y`` or ``__main__.TestX`` -> (module, class)."""
    parts = qual.split(".")
    if len(parts) > 1 and parts[-1] == name:
        parts = parts[:-1]
    return ".".join(parts[:-1]), parts[-1]


def parse_footer(text: str) -> tuple[tuple[str, int], ...]:
    """``failures=1, errors=2`` or ``3 passed, 1 failed`` as ((key, n), ...)."""
    out = []
    for m in _FOOTER_KEY.finditer(text):
        out.append((m.group(1).strip(), int(m.group(2))))
    for m in _FOOTER_COUNT.finditer(text):
        key = m.group(2).replace("errors", "error").replace("warnings", "warning")
        out.append((key, int(m.group(1))))
    return tuple(out)


_LOG_KEY = re.compile(r"^([A-Z][A-Z0-9_]*)=")


def is_command(text: str) -> bool:
    """A shell line that runs a Python test file or pytest (not ``python -c``)."""
    t = _PROMPT.sub("", text.strip())
    key = _LOG_KEY.match(t)
    if key and not key.group(1).endswith("COMMAND"):
        return False  # a log's KEY=value line (RESULTS_FROM=... a pytest plugin) is no command
    m = _COMMAND.search(t)
    if not m or re.search(r"\s-c\s", t[m.end() - 1 : m.end() + 4] + " ") and ".py" not in t:
        return False
    rest = t[m.start(1) :]
    return bool(
        re.search(r"\.py\b", rest)
        or re.search(r"-m\s+(?:pytest|unittest)", rest)
        or m.group(1).endswith(("pytest", "py.test"))
    )


def command_text(doc: Document, ln: Line, last: int = 0) -> str:
    """The command on ``ln``, with ``\\`` continuation lines joined (up to ``MAX_CONTINUED`` lines, and not
    past line ``last`` when given) and any prompt removed."""
    parts = [_PROMPT.sub("", ln.stripped)]
    no = ln.no
    end = min(len(doc), last or len(doc))
    while parts[-1].endswith("\\") and no < end and len(parts) < MAX_CONTINUED:
        parts[-1] = parts[-1][:-1].rstrip()
        no += 1
        parts.append(doc.at(no).stripped)
    return " ".join(p for p in parts if p)


def command_file(command: str) -> str:
    """The test file a command runs (``test/npu/test_x.py``), "" when it names none."""
    try:
        words = shlex.split(command, comments=False)
    except ValueError:
        words = command.split()
    for w in words:
        w = w.split("::", 1)[0]
        if w.endswith(".py") and "=" not in w:
            return w
    return ""


def _find_command(doc: Document, ln: Line, floor: int) -> tuple[str, int]:
    """The nearest command above ``ln`` (not above ``floor``), in the same section."""
    no = ln.no - 1
    while no > floor and no >= max(1, ln.no - 60):
        prev = doc.at(no)
        if prev.section != ln.section and prev.section:
            break
        if not prev.is_heading and is_command(prev.stripped):
            head = no
            while (
                head > 1 and no - head < MAX_CONTINUED and doc.at(head - 1).stripped.endswith("\\")
            ):
                head -= 1
            cmd = command_text(doc, doc.at(head))
            if command_file(cmd) or "pytest" in cmd or "unittest" in cmd:
                return cmd, head
        no -= 1
    return "", 0


class _Runs:
    def __init__(self, doc: Document, ctx: Context) -> None:
        self.doc, self.ctx = doc, ctx
        self.out: list[TestRunClaim] = []
        self.open = _Open()
        self.scope: tuple[int | None, str] = (None, "")
        self.floor = 0  # the line the previous run ended on
        self.closed_nodes: set[str] = set()

    def _scope_of(self, ln: Line) -> tuple[int | None, str]:
        return (ln.block, "") if ln.block is not None else (None, ln.section)

    def close(
        self,
        runner: str,
        ran: int | None,
        ran_line: int,
        status: str,
        status_line: int,
        footer: tuple[tuple[str, int], ...],
        end: int,
    ) -> None:
        o = self.open
        if o.tests and all(t.file for t in o.tests):
            runner = "pytest"
        if o.tests or ran is not None:
            first = o.first or ran_line
            anchor = self.doc.at(first)
            c = self.ctx.at(first)
            command, cline = (c.command, c.command_line) if c.command else ("", 0)
            if not command:
                command, cline = _find_command(self.doc, anchor, self.floor_before(first))
            file = command_file(command) if command else ""
            if not file and c.log_start:
                file = c.key("TEST_FILE")
            line = ran_line or first
            text = self.doc.at(line).stripped.strip("= ") or self.doc.at(line).stripped
            self.out.append(
                TestRunClaim(
                    line=line,
                    text=text,
                    runner=runner,
                    tests=tuple(o.tests),
                    ran=ran,
                    ran_line=ran_line,
                    status=status,
                    status_line=status_line,
                    footer=footer,
                    command=command,
                    command_line=cline,
                    file=file,
                    branch=c.branch or c.key("TARGET_BRANCH"),
                )
            )
        self.closed_nodes = self.open.nodes
        self.open = _Open()
        self.floor = end

    def floor_before(self, first: int) -> int:
        return self.floor if self.floor < first else 0

    def add(self, test: ListedTest, pending: bool) -> None:
        if not self.open.tests and not self.open.dots:
            self.open.first = test.line
        self.open.tests.append(test)
        self.open.pending = len(self.open.tests) - 1 if pending else None

    def run(self) -> list[TestRunClaim]:
        lines = self.doc.lines
        i = 0
        while i < len(lines):
            ln = lines[i]
            text = ln.text
            scope = self._scope_of(ln)
            if scope != self.scope and (self.open.tests or self.open.dots):
                if ln.block is not None or self.scope[0] is not None or ln.is_heading:
                    self.close("unittest", None, 0, "", 0, (), ln.no - 1)
            self.scope = scope
            if text.lstrip().startswith("COMMAND=") and (self.open.tests or self.open.dots):
                # a log's next command starts another run: the one above ended without its footer
                # (it crashed), and its tests are not the next run's
                self.close("unittest", None, 0, "", 0, (), ln.no - 1)
            m = _UNITTEST.match(text)
            if m and not re.match(r"^\s*(FAIL|ERROR):", text):
                name, qual, sub, rest = m.group(1), m.group(2), m.group(3), m.group(4)
                if sub:  # a subTest line belongs to the test above it
                    i += 1
                    continue
                module, cls = _split_qualifier(name, qual)
                outcome = _outcome(rest or "")
                self.add(
                    ListedTest(
                        line=ln.no,
                        name=name,
                        cls=cls,
                        module=module,
                        outcome=outcome,
                        text=ln.stripped,
                    ),
                    pending=not outcome,
                )
                i += 1
                continue
            m = _BARE.match(text)
            if m:
                self.add(
                    ListedTest(
                        line=ln.no,
                        name=m.group(1),
                        outcome=_outcome(m.group(2) or ""),
                        text=ln.stripped,
                    ),
                    pending=not m.group(2),
                )
                i += 1
                continue
            if self.open.pending is not None:
                r = _RESULT.match(text.strip()) or _DOC_RESULT.match(text)
                if r:
                    t = self.open.tests[self.open.pending]
                    self.open.tests[self.open.pending] = ListedTest(
                        line=t.line,
                        name=t.name,
                        cls=t.cls,
                        module=t.module,
                        outcome=_outcome(r.group(1)),
                        file=t.file,
                        text=t.text,
                    )
                    self.open.pending = None
                    i += 1
                    continue
            doc_result = _DOC_RESULT.match(text) if ln.block is not None else None
            if doc_result:
                # a docstring line whose test line is above it (or was cut off the paste)
                self.add(
                    ListedTest(
                        line=ln.no, name="", outcome=_outcome(doc_result.group(1)), text=ln.stripped
                    ),
                    pending=False,
                )
                i += 1
                continue
            if _DOTS.match(text) and not self.open.tests and ln.block is not None:
                if not self.open.dots:
                    self.open.first = ln.no
                self.open.dots += len(text.strip())
            m = _RAN.match(text)
            if m:
                status, status_line = "", 0
                footer: tuple[tuple[str, int], ...] = ()
                for j in range(i + 1, min(i + 4, len(lines))):
                    s = _STATUS.match(lines[j].text)
                    if s:
                        status, status_line = s.group(1), lines[j].no
                        footer = parse_footer(s.group(2) or "")
                        break
                self.close(
                    "unittest",
                    int(m.group(1)),
                    ln.no,
                    status,
                    status_line,
                    footer,
                    status_line or ln.no,
                )
                i = status_line or ln.no
                continue
            m = _PYTEST_NODE.match(text)
            if m and (m.group(1) or m.group(4)):
                node = f"{m.group(2)}::{m.group(3)}"
                if node in self.open.nodes or (m.group(1) and node in self.closed_nodes):
                    i += 1  # the short test summary repeats a node listed above
                    continue
                self.open.nodes.add(node)
                nodes = m.group(3).split("::")
                name = nodes[-1].split("[", 1)[0]
                cls = nodes[0] if len(nodes) > 1 else ""
                self.add(
                    ListedTest(
                        line=ln.no,
                        name=name,
                        cls=cls,
                        outcome=_PYTEST_OUTCOME[m.group(1) or m.group(4)],
                        file=m.group(2),
                        text=ln.stripped,
                    ),
                    pending=False,
                )
                i += 1
                continue
            m = _PYTEST_FOOTER.match(text)
            if m:
                summary = parse_footer(m.group(1))
                counts: dict[str, int] = dict(summary)
                total = sum(
                    counts.get(k, 0)
                    for k in ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
                )
                status = "FAILED" if counts.get("failed") or counts.get("error") else "OK"
                self.close("pytest", total, ln.no, status, ln.no, summary, ln.no)
            i += 1
        if self.open.tests:
            runner = "pytest" if any(t.file for t in self.open.tests) else "unittest"
            self.close(runner, None, 0, "", 0, (), len(lines))
        return self.out


def extract_runs(doc: Document, ctx: Context) -> Iterator[TestRunClaim]:
    yield from _Runs(doc, ctx).run()
