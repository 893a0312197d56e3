"""The review's records: what the text claims (typed, one class per kind) and what the repo says.

A ``Claim`` subclass carries the facts one kind of check needs; every claim
has the line it was read from and its text. A ``Verdict`` is one row of the
review: ``verified``, ``contradicted`` (``detail`` is the fact found) or
``unverifiable`` (``detail`` says why). ``Review`` is the whole answer; its
``to_json`` is the JSON the verb prints.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

REVIEW_SCHEMA = "torchparity.review/1"

VERIFIED, CONTRADICTED, UNVERIFIABLE = "verified", "contradicted", "unverifiable"
VERDICTS = (VERIFIED, CONTRADICTED, UNVERIFIABLE)

#: the kinds a verdict row can have, in the order the table shows them
KINDS = (
    "scope",
    "commit",
    "submodule",
    "sha256",
    "grep",
    "docs",
    "docs.status",
    "test.defined",
    "test.count",
    "test.qualifier",
    "test.result",
    "version",
    "outcome",
    "evidence",
    "bundle",
    "attestation",
)


@dataclass(frozen=True)
class Claim:
    """Where a claim was read: its 1-based line and that line's text (stripped)."""

    line: int
    text: str


@dataclass(frozen=True)
class CommitClaim(Claim):
    sha: str
    #: baseline | source | docs | searched | upstream | other
    role: str
    #: the branch the context names for it (the docs PR's target for a docs commit), "" if none
    branch: str = ""
    #: the PR number the context names (a docs PR's ``#44139``), "" if none
    pr: str = ""


@dataclass(frozen=True)
class SubmoduleClaim(Claim):
    #: the paths the line names, the likeliest first (the check takes the first that is a gitlink)
    paths: tuple[str, ...]
    new: str
    old: str = ""
    branch: str = ""


@dataclass(frozen=True)
class Sha256Claim(Claim):
    digest: str
    #: the path the text gives or implies ("" when only the change can tell)
    path: str = ""
    #: how the path was found: line | test_file | nearest | changed
    path_from: str = ""
    branch: str = ""


@dataclass(frozen=True)
class ListedTest:
    """One test named in a runner's output, with its printed qualifier and outcome."""

    line: int
    name: str
    #: the class the output names (``TestX``), "" when it names none
    cls: str = ""
    #: the module the qualifier prints (``__main__``, ``test.npu.test_x``), "" when none
    module: str = ""
    #: ok | fail | error | skip | xfail | xpass | "" (not printed)
    outcome: str = ""
    #: the file a pytest node id names
    file: str = ""
    text: str = ""


@dataclass(frozen=True)
class TestRunClaim(Claim):
    """A runner's output block: the tests it lists, its count and its verdict line."""

    runner: str  # unittest | pytest
    tests: tuple[ListedTest, ...] = ()
    #: ``Ran N`` (unittest) or the footer's total (pytest); None when not printed
    ran: int | None = None
    ran_line: int = 0
    #: OK | FAILED (unittest), "" when not printed
    status: str = ""
    status_line: int = 0
    #: counts the footer prints: failures/errors/skipped (unittest), passed/failed/... (pytest)
    footer: tuple[tuple[str, int], ...] = ()
    #: the command that produced it, as the text states it ("" when none is stated)
    command: str = ""
    command_line: int = 0
    #: the test file the command (or the log's TEST_FILE) names, as written
    file: str = ""
    branch: str = ""


@dataclass(frozen=True)
class GrepClaim(Claim):
    command: str
    args: tuple[str, ...]
    count: int
    count_line: int
    #: the commit or ref the text says it ran at ("" when none)
    at: str = ""
    upstream: bool = False


@dataclass(frozen=True)
class DocsClaim(Claim):
    api: str
    #: versions (``2.7.1``) the claim is about; empty: every version folder
    versions: tuple[str, ...] = ()
    #: True: the entry exists; False: the text says it is missing (at the docs baseline)
    present: bool = True
    #: the commit the docs are to be read at, when the text states one
    at: str = ""
    branch: str = ""
    pr: str = ""


@dataclass(frozen=True)
class DocsStatusClaim(Claim):
    api: str
    product: str
    #: the status as written (支持 / 暂不支持 / yes / no ...)
    status: str
    supported: bool
    versions: tuple[str, ...] = ()
    at: str = ""
    branch: str = ""
    pr: str = ""


@dataclass(frozen=True)
class ScopeClaim(Claim):
    #: target (the PR's target branch) | covered (the task covers it) | maintenance (said to be)
    what: str
    branch: str


@dataclass(frozen=True)
class VersionClaim(Claim):
    #: torch | backend | python | device_available | device_count
    key: str
    stated: str


@dataclass(frozen=True)
class ProbeValue:
    """A value an environment probe printed (the facts version claims are held against)."""

    line: int
    key: str
    value: str


@dataclass(frozen=True)
class EvidenceClaim(Claim):
    """A torchparity evidence log quoted by its SHA-256 (full or the short form of a table)."""

    digest: str


@dataclass(frozen=True)
class OutcomeClaim(Claim):
    """A sentence stating an outcome (``extract_outcomes``): targets passed, a target's result or counts,
    consistency, docs complete, a stale disabled entry, the number of direct tests."""

    #: all_targets | some_targets | tests | api_ran | api_counts | counts | passed_of | result |
    #: consistent | docs_complete | docs_box | stale_entry | direct
    subject: str
    #: the target label the heading or table row names ("" for the whole text)
    label: str = ""
    #: the numbers stated, by name (passed, total, ran, failed, ...)
    numbers: tuple[tuple[str, int], ...] = ()
    #: a target's state as stated (PASS, FAIL, NONE_RAN, ...), for ``result``
    state: str = ""


@dataclass(frozen=True)
class Claims:
    """Everything one PR text claims, by kind."""

    commits: tuple[CommitClaim, ...] = ()
    submodules: tuple[SubmoduleClaim, ...] = ()
    sha256: tuple[Sha256Claim, ...] = ()
    runs: tuple[TestRunClaim, ...] = ()
    greps: tuple[GrepClaim, ...] = ()
    docs: tuple[DocsClaim, ...] = ()
    docs_status: tuple[DocsStatusClaim, ...] = ()
    scope: tuple[ScopeClaim, ...] = ()
    versions: tuple[VersionClaim, ...] = ()
    probes: tuple[ProbeValue, ...] = ()
    evidence: tuple[EvidenceClaim, ...] = ()
    outcomes: tuple[OutcomeClaim, ...] = ()
    #: the API the text is about, when it names one
    api: str = ""
    #: the test files the text says it changes (修改文件)
    files: tuple[str, ...] = ()
    #: the test files any command of the text runs
    command_files: tuple[str, ...] = ()
    #: (line, length) of the lines too long to be read for claims (``document.MAX_LINE``)
    long_lines: tuple[tuple[int, int], ...] = ()

    @property
    def count(self) -> int:
        return sum(
            len(getattr(self, k))
            for k in (
                "commits",
                "submodules",
                "sha256",
                "runs",
                "greps",
                "docs",
                "docs_status",
                "scope",
                "versions",
                "evidence",
                "outcomes",
            )
        )


@dataclass(frozen=True)
class Verdict:
    """One row of the review."""

    kind: str
    text: str
    line: int
    verdict: str
    detail: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}")

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "line": self.line,
            "verdict": self.verdict,
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Verdict:
        return cls(
            str(doc["kind"]),
            str(doc["text"]),
            int(doc["line"]),
            str(doc["verdict"]),
            str(doc["detail"]),
        )


def verified(
    claim: Claim, kind: str, detail: str, text: str | None = None, line: int | None = None
) -> Verdict:
    return Verdict(
        kind,
        claim.text if text is None else text,
        claim.line if line is None else line,
        VERIFIED,
        detail,
    )


def contradicted(
    claim: Claim, kind: str, detail: str, text: str | None = None, line: int | None = None
) -> Verdict:
    return Verdict(
        kind,
        claim.text if text is None else text,
        claim.line if line is None else line,
        CONTRADICTED,
        detail,
    )


def unverifiable(
    claim: Claim, kind: str, detail: str, text: str | None = None, line: int | None = None
) -> Verdict:
    return Verdict(
        kind,
        claim.text if text is None else text,
        claim.line if line is None else line,
        UNVERIFIABLE,
        detail,
    )


@dataclass(frozen=True)
class Review:
    """The review of one PR text at one commit."""

    source: str
    repo: str
    commit: str
    #: how the commit was given: merge | head
    mode: str
    target_branch: str
    verdicts: tuple[Verdict, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def contradicted(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.verdict == CONTRADICTED]

    @property
    def ok(self) -> bool:
        return not self.contradicted

    def summary(self) -> dict[str, Any]:
        counts = Counter(v.verdict for v in self.verdicts)
        by_kind: dict[str, dict[str, int]] = {}
        for v in self.verdicts:
            by_kind.setdefault(v.kind, {k: 0 for k in VERDICTS})[v.verdict] += 1
        return {
            "claims": len(self.verdicts),
            **{k: counts.get(k, 0) for k in VERDICTS},
            "by_kind": {k: by_kind[k] for k in sorted(by_kind, key=_kind_order)},
            "commit": self.commit,
            "mode": self.mode,
            "target_branch": self.target_branch,
            "source": self.source,
            "ok": self.ok,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": REVIEW_SCHEMA,
            "claims": [v.to_json() for v in self.verdicts],
            "summary": self.summary(),
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Review:
        s = doc.get("summary", {})
        return cls(
            source=str(s.get("source", "")),
            repo="",
            commit=str(s.get("commit", "")),
            mode=str(s.get("mode", "")),
            target_branch=str(s.get("target_branch", "")),
            verdicts=tuple(Verdict.from_json(v) for v in doc.get("claims", [])),
            notes=tuple(doc.get("notes", ())),
        )


def _kind_order(kind: str) -> int:
    return KINDS.index(kind) if kind in KINDS else len(KINDS)
