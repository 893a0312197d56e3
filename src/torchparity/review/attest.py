"""An in-toto test-result statement for one run, built from the run's stored target records.

Subject: each target commit (``gitCommit``). Predicate
(``https://in-toto.io/attestation/test-result/v0.1``): ``result`` pass/warn/fail,
``configuration`` the test files (SHA-256 of the bytes that ran) and the
evidence logs and records (by SHA-256), and the tests by outcome. Signed, it
is a detached SSH signature beside the file (``ssh-keygen -Y sign``).

Emulation is a fact of the sealed target records (``emulated``: the device the
run's backend only emulates, on CPU): the predicate lists every emulated target
(``emulated``), each of their configuration items is annotated with it, their
passed tests are ``warnedTests`` and a run whose every target passed but not all
on hardware is ``warn``, never ``pass``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..fsutil import atomic_write
from ..records.target import TargetRecord, emulated_device, record_from_json
from ..store import Store
from . import sshsig

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://in-toto.io/attestation/test-result/v0.1"
#: test outcomes (the collector's words) -> the predicate's lists
_LISTS = {
    "passed": "passedTests",
    "xfail": "passedTests",
    "skipped": "warnedTests",
    "failed": "failedTests",
    "error": "failedTests",
    "xpass": "failedTests",
}


def emulated_of(rec: TargetRecord) -> str:
    """The device ``rec``'s backend only emulates ("" on hardware): the record's field, or for a record
    made before it, what its probe saw."""
    return rec.emulated or emulated_device(rec)


def emulation_note(device: str) -> str:
    return f"{device} emulated on CPU: a dry run, not hardware evidence"


@dataclass(frozen=True)
class Attestation:
    """A written statement and, when signed, its signature file."""

    path: Path
    statement: dict[str, Any]
    signature: Path | None = None


def _records(store: Store, run_id: int) -> list[tuple[Any, TargetRecord]]:
    rows = [t for t in store.targets(run_id) if t.record_sha]
    if not rows:
        raise UsageError(
            f"run {run_id} has no target records to attest; see 'torchparity show {run_id}'"
        )
    return [(t, record_from_json(store.read_json(t.record_sha))) for t in rows if t.record_sha]


def build_statement(store: Store, run_id: int) -> dict[str, Any]:
    """The statement for run ``run_id`` of ``store`` (every target, in the order they ran)."""
    run = store.run(run_id)
    pairs = _records(store, run.id)
    subjects: dict[str, dict[str, Any]] = {}
    configuration: list[dict[str, Any]] = []
    tests: dict[str, list[str]] = {"passedTests": [], "warnedTests": [], "failedTests": []}
    emulated: list[dict[str, str]] = []
    for row, rec in pairs:
        if rec.commit:
            subjects.setdefault(
                rec.commit, {"name": rec.ref or rec.commit, "digest": {"gitCommit": rec.commit}}
            )
        emu = emulated_of(rec)
        if emu:
            emulated.append({"target": rec.label, "device": emu, "note": emulation_note(emu)})
        mark = {"emulated": emu} if emu else {}
        for tf in rec.test_files:
            configuration.append(
                {
                    "name": tf.path,
                    "digest": {"sha256": tf.sha256},
                    "annotations": {"target": rec.label, "role": "test file", **mark},
                }
            )
        if row.log_sha:
            configuration.append(
                {
                    "name": f"{rec.label}.log",
                    "digest": {"sha256": row.log_sha},
                    "mediaType": "text/plain",
                    "annotations": {"target": rec.label, "role": "evidence log", **mark},
                }
            )
        if row.record_sha:
            configuration.append(
                {
                    "name": f"{rec.label}.json",
                    "digest": {"sha256": row.record_sha},
                    "mediaType": "application/json",
                    "annotations": {"target": rec.label, "role": "target record", **mark},
                }
            )
        for step in rec.full:
            for t in step.tests:
                key = _LISTS.get(t.outcome, "failedTests")
                if (
                    emu and key == "passedTests"
                ):  # passed on an emulation: not a pass of the hardware
                    key = "warnedTests"
                tests[key].append(f"{rec.label}::{t.id or '?'}")
    if not subjects:
        raise UsageError(
            f"run {run_id} records no commit (it ran without --repo); nothing to attest as subject"
        )
    passed = all(rec.result == "PASS" for _, rec in pairs)
    result = "fail" if not passed else ("warn" if emulated else "pass")
    return {
        "_type": STATEMENT_TYPE,
        "subject": list(subjects.values()),
        "predicateType": PREDICATE_TYPE,
        "predicate": {
            "result": result,
            "emulated": emulated,
            "configuration": configuration,
            **tests,
        },
    }


def write_attestation(
    statement: dict[str, Any], dest: Path, key: Path | None = None
) -> Attestation:
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
