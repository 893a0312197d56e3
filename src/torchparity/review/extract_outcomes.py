"""Sentences that state an outcome: how many targets passed, a target's result and test counts, that
the evidence supports consistency, that the docs need no change, that a disabled entry is stale.

These are the sentences a reader acts on, and the ones no repository can check: ``review`` holds them
against the runner output quoted in the same text, the self-review (``report.selfreview``) against the
run's records. The patterns read torchparity's own wording in both languages and the plain forms a
person writes (``全部 3 个验证目标通过``, ``5/5 tests passed``); every pattern is linear in the line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .document import Document, Line
from .records import OutcomeClaim

#: a target's result as the texts word it -> the record's state
RESULT_WORDS = {
    "通过": "PASS",
    "未通过": "FAIL",
    "环境错误": "ERROR",
    "未完成": "INCOMPLETE",
    "该 API 的用例均未运行": "NONE_RAN",
    "PASS": "PASS",
    "FAIL": "FAIL",
    "ERROR": "ERROR",
    "INCOMPLETE": "INCOMPLETE",
    "NONE_RAN": "NONE_RAN",
    "MISMATCH": "MISMATCH",
}

_N = r"(\d{1,9})"  # bounded: linear on a line of digits
#: (subject, pattern): groups are (passed, total) or (total,) as the subject says
_COUNTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("all_targets", re.compile(rf"全部 ?{_N} ?个验证目标[^，。；]*?通过")),
    ("all_targets", re.compile(rf"\bAll {_N} targets passed")),
    ("some_targets", re.compile(rf"(?<![\d/]){_N}/{_N} ?个验证目标通过")),
    ("some_targets", re.compile(rf"(?<![\d/]){_N}/{_N} targets passed")),
    ("tests", re.compile(rf"测试 ?{_N}/{_N} ?通过")),
    ("tests", re.compile(rf"(?<![\d/]){_N}/{_N} tests passed")),
    ("api_ran", re.compile(rf"该 API 的用例运行 ?{_N} ?个、通过 ?{_N} ?个")),
    ("api_ran", re.compile(rf"{_N} of the API's tests ran, {_N} passed")),
)
#: totals with their parts, in the texts' order: (subject, pattern, part names)
_PARTS: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = (
    (
        "api_counts",
        re.compile(
            rf"该 API 的用例共 ?{_N} ?个：通过 ?{_N}，失败 ?{_N}，跳过 ?{_N}，禁用 ?{_N}，未启动 ?{_N}"
        ),
        ("total", "passed", "failed", "skipped", "disabled", "not_started"),
    ),
    (
        "api_counts",
        re.compile(
            rf"{_N} of the API's tests?: {_N} passed, {_N} failed, {_N} skipped, {_N} disabled, "
            rf"{_N} never started"
        ),
        ("total", "passed", "failed", "skipped", "disabled", "not_started"),
    ),
    (
        "counts",
        re.compile(rf"共 ?{_N} ?个测试：通过 ?{_N}，失败 ?{_N}，错误 ?{_N}，跳过 ?{_N}"),
        ("total", "passed", "failed", "error", "skipped"),
    ),
    (
        "counts",
        re.compile(rf"{_N} tests?: {_N} passed, {_N} failed, {_N} errors?, {_N} skipped"),
        ("total", "passed", "failed", "error", "skipped"),
    ),
)
_CONSISTENT = re.compile(r"证据支持|\bthe evidence supports\b")
_RESULT_LINE = re.compile(r"^\s*[-*]\s*(?:结果|Result)[:：]\s*(.+?)\s*(?:[（(]|$)")
#: a per-target heading: ``## LABEL（运行 UID，RESULT）`` / ``## LABEL (run UID, RESULT)``
_TARGET_HEADING = re.compile(
    r"^#{2,6}\s+(\S+)\s*[（(](?:运行|run) [0-9a-f]+[，,]\s*([^）)]+)[）)]\s*$"
)
#: a comment's per-environment heading ``#### ENV（LABEL）``
_ENV_HEADING = re.compile(r"^#{3,6}\s+.+?[（(]([^（）()]+)[）)]\s*$")
_NO_DOCS = re.compile(
    r"^不涉及[:：]|无需补充资料|^Not involved: every version|无需另提资料 PR|no documentation PR is needed"
)
#: the PR template's docs box: ``- [x] 资料更新`` / ``- [ ] Documentation update``
_DOCS_BOX = re.compile(r"^\s*[-*]\s*\[([ xX])\]\s*(?:资料更新|Documentation update)\s*$")
_STALE = re.compile(r"过期的禁用条目|Stale disabled entry")
_DIRECT = re.compile(rf"^(?:直接用例数[:：]|Direct tests: ){_N}\s*$")


def _context(ln: Line) -> str:
    """The target label the line's heading names ("" outside a target's part)."""
    for pattern in (_TARGET_HEADING, _ENV_HEADING):
        m = pattern.match(ln.heading.strip())
        if m:
            return m.group(1)
    return ""


def _table_row(ln: Line) -> list[str] | None:
    """The cells of a table row ([] for the separator row), None for a line that is no row."""
    s = ln.stripped
    if not (s.startswith("|") and s.endswith("|") and len(s) > 1):
        return None
    if set(s) <= set("|- :"):
        return []
    return [c.strip() for c in re.split(r"(?<!\\)\|", s[1:-1])]


def _table_claims(doc: Document) -> Iterator[OutcomeClaim]:
    """Result and counts of each row of a targets table (the PR's 功能验证 table, the summary)."""
    header: list[str] | None = None
    for ln in doc:
        row = _table_row(ln) if ln.block is None else None
        if row is None:
            header = None
            continue
        if not row:
            continue
        if header is None:
            header = row
            continue
        cols = {name: i for i, name in enumerate(header)}
        label_col = next((cols[n] for n in ("目标", "Target") if n in cols), None)
        if label_col is None or label_col >= len(row):
            continue
        label = row[label_col].replace("\\|", "|")
        for name in ("结果", "Result"):
            if name in cols and cols[name] < len(row):
                word = row[cols[name]].strip("*").split(" (")[0].strip()
                if word in RESULT_WORDS:
                    yield OutcomeClaim(
                        ln.no, ln.stripped, "result", label, state=RESULT_WORDS[word]
                    )
        for name in ("测试（通过/总数）", "Tests (passed/total)", "测试", "Tests"):
            if name in cols and cols[name] < len(row):
                m = re.fullmatch(r"(\d+)/(\d+)", row[cols[name]])
                if m:
                    yield OutcomeClaim(
                        ln.no,
                        ln.stripped,
                        "passed_of",
                        label,
                        numbers=(("passed", int(m.group(1))), ("total", int(m.group(2)))),
                    )


def extract_outcomes(doc: Document) -> Iterator[OutcomeClaim]:
    """Every outcome sentence of ``doc`` outside code blocks, with the target its heading names."""
    yield from _table_claims(doc)
    for ln in doc:
        if ln.block is not None or ln.bot:
            continue
        text, label = ln.stripped, _context(ln)
        if ln.is_heading:
            m = _TARGET_HEADING.match(text)
            if m and m.group(2).strip() in RESULT_WORDS:
                yield OutcomeClaim(
                    ln.no, text, "result", m.group(1), state=RESULT_WORDS[m.group(2).strip()]
                )
            continue
        for subject, pattern in _COUNTS:
            for m in pattern.finditer(text):
                nums = [int(g) for g in m.groups()]
                if subject == "all_targets":
                    pairs = (("passed", nums[0]), ("total", nums[0]))
                elif subject == "api_ran":
                    pairs = (("ran", nums[0]), ("passed", nums[1]))
                else:
                    pairs = (("passed", nums[0]), ("total", nums[1]))
                yield OutcomeClaim(ln.no, text, subject, label, numbers=pairs)
        if re.match(r"^\s*[-*]?\s*The target passed\b", text):
            yield OutcomeClaim(
                ln.no, text, "all_targets", label, numbers=(("passed", 1), ("total", 1))
            )
        for subject, pattern, names in _PARTS:
            m = pattern.search(text)
            if m:
                parts = tuple(zip(names, (int(g) for g in m.groups()), strict=True))
                yield OutcomeClaim(ln.no, text, subject, label, numbers=parts)
        m = _RESULT_LINE.match(text)
        if m:
            word = m.group(1).strip()
            state = RESULT_WORDS.get(word) or RESULT_WORDS.get(word.split()[0] if word else "")
            if state:
                yield OutcomeClaim(ln.no, text, "result", label, state=state)
        if _CONSISTENT.search(text):
            yield OutcomeClaim(ln.no, text, "consistent", label)
        if _NO_DOCS.search(text):
            yield OutcomeClaim(ln.no, text, "docs_complete", label)
        if _STALE.search(text):
            yield OutcomeClaim(ln.no, text, "stale_entry", label)
        m = _DOCS_BOX.match(text)
        if m:
            state = "unchecked" if m.group(1) == " " else "checked"
            yield OutcomeClaim(ln.no, text, "docs_box", label, state=state)
        m = _DIRECT.match(text)
        if m:
            yield OutcomeClaim(ln.no, text, "direct", label, numbers=(("total", int(m.group(1))),))
