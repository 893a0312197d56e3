"""What a test runner's printed output (unittest -v or pytest -v) claims, for cross-checking only.

Verdicts never come from here: a test can print any line it likes. The
structured results (``record.TestOutcome``, from the runner's result API) are
the evidence; this text is compared with them, and a disagreement is a finding.
"""

from __future__ import annotations

import re

from ..records.target import TestOutcome

_UNITTEST_START = re.compile(r"^(?P<name>\w+) \((?P<id>[\w.]+)\)(?: \.\.\. |\n)", re.MULTILINE)
_UNITTEST_END = re.compile(
    r"(?:^| \.\.\. )(?P<outcome>ok|FAIL|ERROR|skipped(?: .*)?|expected failure|unexpected success)$"
)
_PYTEST_LINE = re.compile(
    r"^(?P<id>\S+::\S+) (?P<outcome>PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b", re.MULTILINE
)
_FAILURE_BLOCK = re.compile(
    r"^={50,}\n(?P<kind>FAIL|ERROR): (?P<name>\w+) \((?P<id>[\w.]+)\)\n-{50,}\n(?P<text>.*?)(?=^={50,}\n|^-{50,}\nRan |\Z)",
    re.MULTILINE | re.DOTALL,
)
_RAN = re.compile(r"^Ran (\d+) tests? in ([\d.]+)s$", re.MULTILINE)

_NORMAL = {
    "ok": "passed",
    "FAIL": "failed",
    "ERROR": "error",
    "expected failure": "xfail",
    "unexpected success": "xpass",
    "PASSED": "passed",
    "FAILED": "failed",
    "SKIPPED": "skipped",
    "XFAIL": "xfail",
    "XPASS": "xpass",
}


def _normal(raw: str) -> str:
    if raw.startswith("skipped"):
        return "skipped"
    return _NORMAL.get(raw, raw)


def parse_outcomes(output: str) -> list[TestOutcome]:
    """Every test the output claims to report, in order, with failure text where printed."""
    failures = {}
    for m in _FAILURE_BLOCK.finditer(output):
        tid = m["id"] if m["id"].endswith("." + m["name"]) else f"{m['id']}.{m['name']}"
        failures[tid] = m["text"].rstrip()
    seen: dict[str, TestOutcome] = {}
    lines = output.splitlines()
    pending: str | None = None
    for line in lines:
        start = _UNITTEST_START.match(line + "\n")
        if start and (" ... " in line or line.endswith(")")):
            # Python < 3.11 prints the class only: test_x (__main__.T)
            tid, name = start["id"], start["name"]
            pending = tid if tid.endswith("." + name) else f"{tid}.{name}"
        if pending is not None:
            end = _UNITTEST_END.search(line)
            if end:
                raw = end["outcome"]
                seen[pending] = TestOutcome(pending, _normal(raw), failures.get(pending, ""))
                pending = None
    for m in _PYTEST_LINE.finditer(output):
        seen.setdefault(m["id"], TestOutcome(m["id"], _normal(m["outcome"])))
    return list(seen.values())


def ran_count(output: str) -> int | None:
    """The 'Ran N tests' figure of the last unittest summary, if any."""
    found = _RAN.findall(output)
    return int(found[-1][0]) if found else None
