"""The JSON record of one target (ref x environment): every fact the log states, structured.

Data first: the evidence log (``evidence.py``) is rendered from this record,
reports read it, a bundle carries it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

RECORD_SCHEMA = "torchparity.target/1"


@dataclass
class TestFile:
    path: str  # as given (relative to the repo root when a repo is used)
    abs_path: str  # where it ran
    sha256: str  # of the bytes that ran
    blob_sha256: str | None = None  # of the git blob at the ref (None without a repo)
    added: bool = False  # written into the worktree for this run (not committed at the ref)


@dataclass
class Step:
    """One agent job: the probe, a full test file run, a leak check or an isolation probe."""

    name: str
    status: str  # OK | FAIL | TIMEOUT | CRASH | WORKER_DIED | ERROR | SKIPPED
    exit_code: int | None
    signal: str = ""
    command: str = ""
    how: str = ""
    duration: float = 0.0
    output: str = ""
    test_file: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    tests: list[dict[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "OK"


@dataclass
class TargetRecord:
    label: str
    ref: str
    commit: str
    env: str
    python: str
    mode: str  # warm | fresh
    device: str
    run_id: int | None = None
    schema: str = RECORD_SCHEMA
    source_branch: str = ""
    test_files: list[TestFile] = field(default_factory=list)
    probe: Step | None = None
    full: list[Step] = field(default_factory=list)
    leak_check: list[Step] = field(default_factory=list)
    leaks: list[dict[str, Any]] = field(default_factory=list)
    isolation: list[Step] = field(default_factory=list)
    trace: list[Step] = field(default_factory=list)
    result: str = "INCOMPLETE"  # PASS | FAIL | ERROR | INCOMPLETE
    collector_exit_code: int | None = None
    worktree_remove_exit_code: int | None = None
    notes: list[str] = field(default_factory=list)
    started: float = 0.0
    finished: float = 0.0
    torchparity_version: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def probe_facts(self) -> dict[str, Any]:
        if self.probe is None:
            return {}
        return {k: v for k, v in self.probe.result.get("facts", [])}


def step_from_json(d: dict[str, Any]) -> Step:
    return Step(**d)


def record_from_json(d: dict[str, Any]) -> TargetRecord:
    d = dict(d)
    d.pop("log_sha256", None)
    d["test_files"] = [TestFile(**t) for t in d.get("test_files", [])]
    d["probe"] = step_from_json(d["probe"]) if d.get("probe") else None
    for key in ("full", "leak_check", "isolation", "trace"):
        d[key] = [step_from_json(s) for s in d.get(key, [])]
    return TargetRecord(**d)
