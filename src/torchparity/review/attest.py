"""An in-toto test-result statement for one run, built from the run's stored target records.

Subject: each target commit (``gitCommit``). Predicate
(``https://in-toto.io/attestation/test-result/v0.1``): ``result`` pass/fail,
``configuration`` the test files (SHA-256 of the bytes that ran) and the
evidence logs and records (by SHA-256), and the tests by outcome. Signed, it
is a detached SSH signature beside the file (``ssh-keygen -Y sign``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..fsutil import atomic_write
from ..records.target import TargetRecord, record_from_json
from ..store import Store
from . import sshsig

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://in-toto.io/attestation/test-result/v0.1"
#: test outcomes (the collector's words) -> the predicate's lists
_LISTS = {"passed": "passedTests", "xfail": "passedTests", "skipped": "warnedTests", "failed": "failedTests",
          "error": "failedTests", "xpass": "failedTests"}


@dataclass(frozen=True)
class Attestation:
    """A written statement and, when signed, its signature file."""

    path: Path
    statement: dict[str, Any]
    signature: Path | None = None


def _records(store: Store, run_id: int) -> list[tuple[Any, TargetRecord]]:
    rows = [t for t in store.targets(run_id) if t.record_sha]
    if not rows:
        raise UsageError(f"run {run_id} has no target records to attest; see 'torchparity show {run_id}'")
    return [(t, record_from_json(store.read_json(t.record_sha))) for t in rows if t.record_sha]


def build_statement(store: Store, run_id: int) -> dict[str, Any]:
    """The statement for run ``run_id`` of ``store`` (every target, in the order they ran)."""
    run = store.run(run_id)
    pairs = _records(store, run.id)
    subjects: dict[str, dict[str, Any]] = {}
    configuration: list[dict[str, Any]] = []
    tests: dict[str, list[str]] = {"passedTests": [], "warnedTests": [], "failedTests": []}
    for row, rec in pairs:
        if rec.commit:
            subjects.setdefault(rec.commit, {"name": rec.ref or rec.commit, "digest": {"gitCommit": rec.commit}})
        for tf in rec.test_files:
            configuration.append({"name": tf.path, "digest": {"sha256": tf.sha256},
                                  "annotations": {"target": rec.label, "role": "test file"}})
        if row.log_sha:
            configuration.append({"name": f"{rec.label}.log", "digest": {"sha256": row.log_sha},
                                  "mediaType": "text/plain", "annotations": {"target": rec.label,
                                                                             "role": "evidence log"}})
        if row.record_sha:
            configuration.append({"name": f"{rec.label}.json", "digest": {"sha256": row.record_sha},
                                  "mediaType": "application/json", "annotations": {"target": rec.label,
                                                                                   "role": "target record"}})
        for step in rec.full:
            for t in step.tests:
                key = _LISTS.get(t.outcome, "failedTests")
                tests[key].append(f"{rec.label}::{t.id or '?'}")
    if not subjects:
        raise UsageError(f"run {run_id} records no commit (it ran without --repo); nothing to attest as subject")
    passed = all(rec.result == "PASS" for _, rec in pairs)
    return {
        "_type": STATEMENT_TYPE,
        "subject": list(subjects.values()),
        "predicateType": PREDICATE_TYPE,
        "predicate": {"result": "pass" if passed else "fail", "configuration": configuration, **tests},
    }


def write_attestation(statement: dict[str, Any], dest: Path, key: Path | None = None) -> Attestation:
    """Write ``statement`` to ``dest`` (a new file) and sign it when ``key`` is given."""
    if dest.exists():
        raise UsageError(f"{dest} already exists; pass a new file name to --output")
    if not dest.parent.is_dir():
        raise UsageError(f"folder {dest.parent} does not exist; make it or pass another --output")
    atomic_write(dest, json.dumps(statement, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
    sig = None
    if key is not None:
        try:
            sig = sshsig.sign(dest, key)
        except BaseException:
            dest.unlink(missing_ok=True)
            raise
    return Attestation(dest, statement, sig)


def attest_run(store: Store, run_id: int, dest: Path, key: Path | None = None) -> Attestation:
    return write_attestation(build_statement(store, run_id), dest, key)


def load_statement(path: Path) -> dict[str, Any]:
    """A statement file as JSON; a clear error when it is not one."""
    if not path.is_file():
        raise UsageError(f"attestation not found: {path}; pass the statement file to --attestation")
    try:
        doc = json.loads(path.read_text("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is not a JSON in-toto statement ({exc})") from exc
    if not isinstance(doc, dict):
        raise UsageError(f"{path} is not a JSON in-toto statement (not an object)")
    return doc
