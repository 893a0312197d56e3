"""All the records of one run, typed: what a report is a pure function of.

``RunRecords`` is read from the store by ``torchparity.store.read_run`` (or
assembled in memory); ``torchparity.report.build_report`` turns one or more of
them into the report model without reading git, the config, argv or any other
run.
"""

from __future__ import annotations

from dataclasses import dataclass

from .change import ChangeRecord
from .checklist import Checklist
from .coverage import ApiCoverage
from .docs import DocsAddRecord, DocsCheckRecord
from .resolve import ApiInfo
from .scaffold import ScaffoldRecord
from .target import TargetRecord
from .task import TaskRecord
from .upstream import UpstreamRecord
from .verify import VerifyRecord


@dataclass(frozen=True)
class RunInfo:
    """The run's row: ``uid`` names it everywhere (texts, bundles); ``id`` is this store's number."""

    uid: str
    id: int
    kind: str  # run | verify | resolve | coverage | docs-check | checklist | ...
    status: str  # running | complete | incomplete
    result: str | None
    created: float
    finished: float | None


@dataclass(frozen=True)
class TargetEvidence:
    """A target's record with its evidence log, both as stored (content-addressed)."""

    record: TargetRecord
    log: str
    log_sha256: str
    record_sha256: str


@dataclass(frozen=True)
class RunRecords:
    run: RunInfo
    targets: tuple[TargetEvidence, ...] = ()
    task: TaskRecord | None = None
    resolve: ApiInfo | None = None
    coverage: ApiCoverage | None = None
    scaffold: ScaffoldRecord | None = None
    docs_check: DocsCheckRecord | None = None
    docs_add: DocsAddRecord | None = None
    checklist: Checklist | None = None
    change: ChangeRecord | None = None
    upstream: UpstreamRecord | None = None
    verify: VerifyRecord | None = None


#: the record classes a run holds, by the store's record kind
RECORD_KINDS: dict[str, type] = {
    cls.KIND: cls
    for cls in (
        TaskRecord,
        ApiInfo,
        ApiCoverage,
        ScaffoldRecord,
        DocsCheckRecord,
        DocsAddRecord,
        Checklist,
        ChangeRecord,
        UpstreamRecord,
        VerifyRecord,
    )
}

#: RunRecords' field for each record kind
FIELD_OF_KIND = {
    "task": "task",
    "resolve": "resolve",
    "coverage": "coverage",
    "scaffold": "scaffold",
    "docs-check": "docs_check",
    "docs-add": "docs_add",
    "checklist": "checklist",
    "change": "change",
    "upstream": "upstream",
    "verify": "verify",
}

__all__ = ["FIELD_OF_KIND", "RECORD_KINDS", "RunInfo", "RunRecords", "TargetEvidence"]
