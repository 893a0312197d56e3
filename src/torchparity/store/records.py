"""Typed records in the store: written in their envelope, read back as one run's ``RunRecords``.

A run's texts are rendered from what this module reads for that run alone: no
record of another run, no newest-record-by-key fallback.
"""

from __future__ import annotations

from typing import Any

from ..errors import StoreCorrupt
from ..records.base import Record, RecordError, envelope, open_envelope
from ..records.run import FIELD_OF_KIND, RECORD_KINDS, RunInfo, RunRecords, TargetEvidence
from ..records.target import TargetRecord
from .db import RunRow, Store


def put(store: Store, record: Record, run_id: int, task: str = "") -> str:
    """Store ``record`` in run ``run_id`` under ``task`` (the API); returns the blob's sha256."""
    uid = store.run(run_id).uid
    return store.put_record(record.KIND, task, envelope(record, uid, task), run_id=run_id)


def keep(store: Store, kind: str, argv: list[str], records: list[tuple[str, Record]]) -> int:
    """A run of its own for a verb's records (``resolve --store``, ``coverage --store``, ...): its
    report renders them, and no other run ever picks them up. Returns the run id."""
    run_id = store.new_run(kind, argv)
    for task, record in records:
        put(store, record, run_id, task)
    store.finish_run(run_id, "RECORDED", status="complete")
    return run_id


def run_info(row: RunRow) -> RunInfo:
    return RunInfo(
        uid=row.uid,
        id=row.id,
        kind=row.kind,
        status=row.status,
        result=row.result,
        created=row.created,
        finished=row.finished,
    )


def _open(kind: str, doc: Any, where: str) -> Record:
    cls = RECORD_KINDS[kind]
    try:
        return open_envelope(doc, cls)
    except RecordError as exc:
        raise StoreCorrupt(f"{where}: {exc}") from None
    except (
        KeyError,
        TypeError,
        ValueError,
        AttributeError,
    ) as exc:  # a hand-written from_json met a bad body
        raise StoreCorrupt(
            f"{where}: not a {cls.__name__} record ({type(exc).__name__}: {exc})"
        ) from None


def read_run(store: Store, run_id: int | str) -> RunRecords:
    """Every record of one run, typed; the newest of each kind when a stage ran twice."""
    row = store.run(run_id)
    fields: dict[str, Any] = {}
    for kind, key, doc in store.records(row.id):
        if kind not in RECORD_KINDS:
            continue  # a kind this version does not render (kept in the store and in bundles)
        fields[FIELD_OF_KIND[kind]] = _open(kind, doc, f"run {row.id} {kind} record {key!r}")
    targets = []
    for t in store.targets(row.id):
        if t.record_sha is None:
            continue
        doc = store.read_json(t.record_sha)
        schema = str(doc.get("schema") or "")
        if not schema.startswith("torchparity.target/") or schema > TargetRecord.SCHEMA:
            raise StoreCorrupt(
                f"run {row.id} target {t.label}: its record's schema {doc.get('schema')!r} is not "
                f"one this torchparity reads (up to {TargetRecord.SCHEMA})"
            )
        try:
            rec = TargetRecord.from_json(doc)
        except (TypeError, KeyError, ValueError) as exc:
            raise StoreCorrupt(
                f"run {row.id} target {t.label}: its record does not load ({exc})"
            ) from None
        log = store.blobs.read(t.log_sha).decode("utf-8", "replace") if t.log_sha else ""
        targets.append(TargetEvidence(rec, log, t.log_sha or "", t.record_sha))
    return RunRecords(run=run_info(row), targets=tuple(targets), **fields)


__all__ = ["keep", "put", "read_run", "run_info"]
