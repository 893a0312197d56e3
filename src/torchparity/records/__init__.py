"""Typed, versioned records: one per stage, the ground every part stands on.

Every boundary between parts is crossed by one of these (never a loose dict);
every text is rendered from them alone. Each record has a ``SCHEMA`` with a
version and a lossless ``to_json``/``from_json``; the store keeps them in an
envelope naming the run and task (``base.envelope``).

==================  ===================================  ======================
record              made by                              module
==================  ===================================  ======================
``TaskRecord``      the verb that starts a run           ``records.task``
``ApiInfo``         resolve                              ``records.resolve``
``ApiCoverage``     coverage                             ``records.coverage``
``ScaffoldRecord``  scaffold                             ``records.scaffold``
``TargetRecord``    collect (one per ref x environment)  ``records.target``
``DocsCheckRecord`` docs check (``DocsAddRecord``: add)  ``records.docs``
``ChangeRecord``    change (the PR's commits and files)  ``records.change``
``Checklist``       checklist                            ``records.checklist``
``UpstreamRecord``  upstream (the API's official tests)  ``records.upstream``
``VerifyRecord``    verify / batch (the verdict)         ``records.verify``
==================  ===================================  ======================
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Record, RecordError, envelope, open_envelope
    from .change import ChangeRecord
    from .checklist import Checklist, ChecklistItem, ChecklistRecord
    from .coverage import ApiCoverage, GrepResult, RefCoverage, TestHit
    from .docs import DocsAddRecord, DocsCheckRecord
    from .notes import Note
    from .resolve import ApiInfo, ResolveRecord, Trace
    from .run import RunInfo, RunRecords, TargetEvidence
    from .scaffold import ScaffoldRecord
    from .target import Step, TargetRecord, TestFile
    from .task import TaskRecord
    from .upstream import UpstreamRecord
    from .verify import VerifyRecord

#: where each name lives: a record module is imported when a name of it is first asked for (a verb
#: imports the records it uses, not all of them)
_WHERE = {
    "ApiCoverage": "coverage",
    "ApiInfo": "resolve",
    "ChangeRecord": "change",
    "Checklist": "checklist",
    "ChecklistItem": "checklist",
    "ChecklistRecord": "checklist",
    "DocsAddRecord": "docs",
    "DocsCheckRecord": "docs",
    "GrepResult": "coverage",
    "Note": "notes",
    "Record": "base",
    "RecordError": "base",
    "RefCoverage": "coverage",
    "ResolveRecord": "resolve",
    "RunInfo": "run",
    "RunRecords": "run",
    "ScaffoldRecord": "scaffold",
    "Step": "target",
    "TargetEvidence": "run",
    "TargetRecord": "target",
    "TaskRecord": "task",
    "TestFile": "target",
    "TestHit": "coverage",
    "Trace": "resolve",
    "UpstreamRecord": "upstream",
    "VerifyRecord": "verify",
    "envelope": "base",
    "open_envelope": "base",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "ApiCoverage",
    "ApiInfo",
    "ChangeRecord",
    "Checklist",
    "ChecklistItem",
    "ChecklistRecord",
    "DocsAddRecord",
    "DocsCheckRecord",
    "GrepResult",
    "Note",
    "Record",
    "RecordError",
    "RefCoverage",
    "ResolveRecord",
    "RunInfo",
    "RunRecords",
    "ScaffoldRecord",
    "Step",
    "TargetEvidence",
    "TargetRecord",
    "TaskRecord",
    "TestFile",
    "TestHit",
    "Trace",
    "UpstreamRecord",
    "VerifyRecord",
    "envelope",
    "open_envelope",
]
