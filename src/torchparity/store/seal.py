"""A run's seal: one content-addressed document naming the run's verdict, every target's evidence and
every record the run's texts are rendered from.

When a run ends, the store writes a ``RunSeal`` as a blob and keeps its SHA-256 in
the run's row. Every read of the run compares the rows (``runs``, ``targets`` and
``records``: kind, key and hash of each, in order) with the seal, and each target
row with its own record (which names its log's hash); a disagreement is tampering,
never a verdict. Bundles carry the seals.

Seals of schema 1 (torchparity before records were sealed) name no records; a store
upgrade replaces them (``Store._migrate``), so one met later is itself a disagreement.

What a seal can and cannot show: the index (SQLite rows) cannot be edited without
it being noticed, and a blob cannot be edited without its hash changing. Someone
who rewrites a blob, re-hashes the record that names it *and* writes a new seal
for the run can make a consistent store; only a signature made with a key they
do not hold (``bundle export --sign``) rules that out.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from . import jsoncheck as jc

SEAL_SCHEMA = "torchparity.run-seal/2"
#: the seal before records were sealed: read (to report what disagrees, and for the upgrade), never written
SEAL_SCHEMA_1 = "torchparity.run-seal/1"


def canonical_json(doc: Any) -> bytes:
    return json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8"
    )


def summary_sha256(summary: dict[str, Any]) -> str:
    """The hash of a run's summary as the seal names it (canonical JSON, so key order does not matter)."""
    return hashlib.sha256(canonical_json(summary)).hexdigest()


@dataclass(frozen=True)
class TargetSeal:
    label: str
    ref: str
    env: str
    result: str
    log_sha256: str
    record_sha256: str
    finished: float

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "ref": self.ref,
            "env": self.env,
            "result": self.result,
            "log_sha256": self.log_sha256,
            "record_sha256": self.record_sha256,
            "finished": self.finished,
        }

    @classmethod
    def from_json(cls, d: Any, where: str) -> TargetSeal:
        d = jc.obj(d, where)
        return cls(
            label=jc.text(d, "label", where),
            ref=jc.text(d, "ref", where),
            env=jc.text(d, "env", where),
            result=jc.text(d, "result", where),
            log_sha256=jc.sha(d, "log_sha256", where),
            record_sha256=jc.sha(d, "record_sha256", where),
            finished=jc.number(d, "finished", where),
        )


@dataclass(frozen=True)
class RecordSeal:
    """One row of the run's ``records`` table as the seal names it (a bundle's manifest lists the same)."""

    kind: str
    key: str
    sha256: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "key": self.key, "sha256": self.sha256}

    @classmethod
    def from_json(cls, d: Any, where: str) -> RecordSeal:
        d = jc.obj(d, where)
        return cls(jc.text(d, "kind", where), jc.text(d, "key", where), jc.sha(d, "sha256", where))

    def describe(self) -> str:
        return f"record {self.kind} {self.key!r}"


@dataclass(frozen=True)
class RunSeal:
    run: int
    kind: str
    created: float
    finished: float | None
    status: str
    result: str | None
    argv: tuple[str, ...]
    summary_sha256: str
    targets: tuple[TargetSeal, ...]
    #: the run's records in the order they were stored; None only in a seal of schema 1
    records: tuple[RecordSeal, ...] | None
    schema: str = SEAL_SCHEMA

    def to_json(self) -> dict[str, Any]:
        doc = {
            "schema": self.schema,
            "run": self.run,
            "kind": self.kind,
            "created": self.created,
            "finished": self.finished,
            "status": self.status,
            "result": self.result,
            "argv": list(self.argv),
            "summary_sha256": self.summary_sha256,
            "targets": [t.to_json() for t in self.targets],
        }
        if self.records is not None:
            doc["records"] = [r.to_json() for r in self.records]
        return doc

    def to_bytes(self) -> bytes:
        return json.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=False).encode(
            "utf-8"
        )

    @classmethod
    def from_json(cls, d: Any, where: str = "seal") -> RunSeal:
        d = jc.obj(d, where)
        schema = jc.text(d, "schema", where)
        if schema not in (SEAL_SCHEMA, SEAL_SCHEMA_1):
            raise jc.ShapeError(f"{where}.schema is {schema!r}, not {SEAL_SCHEMA!r}")
        targets = tuple(
            TargetSeal.from_json(t, f"{where}.targets[{i}]")
            for i, t in enumerate(jc.objects(d, "targets", where))
        )
        records = (
            None
            if schema == SEAL_SCHEMA_1
            else tuple(
                RecordSeal.from_json(r, f"{where}.records[{i}]")
                for i, r in enumerate(jc.objects(d, "records", where))
            )
        )
        return cls(
            run=jc.integer(d, "run", where),
            kind=jc.text(d, "kind", where),
            created=jc.number(d, "created", where),
            finished=jc.number(d, "finished", where, optional=True),
            status=jc.text(d, "status", where),
            result=jc.text(d, "result", where, optional=True),
            argv=tuple(jc.texts(d, "argv", where)),
            summary_sha256=jc.sha(d, "summary_sha256", where),
            targets=targets,
            records=records,
            schema=schema,
        )

    @classmethod
    def from_bytes(cls, data: bytes, where: str = "seal") -> RunSeal:
        try:
            doc = json.loads(data)
        except ValueError as exc:
            raise jc.ShapeError(f"{where} is not JSON ({exc})") from exc
        return cls.from_json(doc, where)


def _short(value: Any) -> str:
    if isinstance(value, str) and len(value) == 64:
        return value[:12] + "…"
    return repr(value) if not isinstance(value, str) else value


def differences(found: RunSeal, sealed: RunSeal) -> list[str]:
    """Where ``found`` (what the rows say now) disagrees with ``sealed`` (the seal); [] when they agree.

    Each item names the target or record (if any) and the field: ``target a@b: result is PASS, the seal
    says FAIL``, ``record verify 'torch.add': sha is 3c4d…, the seal says 1a2b…``. ``found.records`` None
    leaves the records out (the upgrade from schema-1 seals compares the rest); a seal naming no records
    (schema 1) is itself a disagreement otherwise.
    """
    out: list[str] = []
    for name in (
        "run",
        "kind",
        "created",
        "finished",
        "status",
        "result",
        "argv",
        "summary_sha256",
    ):
        a, b = getattr(found, name), getattr(sealed, name)
        if a != b:
            label = "summary" if name == "summary_sha256" else name
            out.append(
                f"{label} is {_short(list(a) if name == 'argv' else a)}, "
                f"the seal says {_short(list(b) if name == 'argv' else b)}"
            )
    have = {t.label: t for t in found.targets}
    want = {t.label: t for t in sealed.targets}
    for label in want.keys() - have.keys():
        out.append(f"target {label} is sealed but has no row")
    for label in have.keys() - want.keys():
        out.append(f"target {label} has a row but is not in the seal")
    for label in sorted(have.keys() & want.keys()):
        a_t, b_t = have[label].to_json(), want[label].to_json()
        for key in ("result", "log_sha256", "record_sha256", "ref", "env", "finished"):
            if a_t[key] != b_t[key]:
                out.append(
                    f"target {label}: {key.replace('_sha256', '')} is {_short(a_t[key])}, "
                    f"the seal says {_short(b_t[key])}"
                )
    if found.records is not None:
        if sealed.records is None:
            out.append(
                f"the seal names no records (a {SEAL_SCHEMA_1} seal, which the store's upgrade replaces)"
            )
        else:
            out.extend(record_differences(found.records, sealed.records))
    return out


def record_differences(found: tuple[RecordSeal, ...], sealed: tuple[RecordSeal, ...]) -> list[str]:
    """Where the run's record rows disagree with the records its seal names; [] when they agree.

    A row whose hash changed is named with both hashes; a row deleted, inserted or moved from another
    run is named as sealed-but-missing or present-but-unsealed; the same rows in another order are
    a disagreement too (the newest record of a kind is the one rendered)."""
    if found == sealed:
        return []
    missing = Counter(sealed) - Counter(found)
    extra = Counter(found) - Counter(sealed)
    out: list[str] = []
    gone = list(missing.elements())
    for row in extra.elements():
        twin = next((s for s in gone if (s.kind, s.key) == (row.kind, row.key)), None)
        if twin is not None:
            gone.remove(twin)
            out.append(
                f"{row.describe()}: sha is {_short(row.sha256)}, the seal says {_short(twin.sha256)}"
            )
        else:
            out.append(f"{row.describe()} ({_short(row.sha256)}) has a row but is not in the seal")
    out.extend(f"{s.describe()} ({_short(s.sha256)}) is sealed but has no row" for s in gone)
    return out or [f"the records are in another order than the seal's ({len(found)} rows)"]


def record_disagreements(
    label: str,
    ref: str,
    env: str,
    result: str,
    log_sha256: str | None,
    record: Any,
    run_ids: Iterable[int],
) -> list[str]:
    """Where a target row disagrees with its own record (the JSON blob it names); [] when they agree.

    ``run_ids`` are the runs the record may name: the row's run and, for an imported run, the
    run it was exported as.
    """
    if not isinstance(record, dict):
        return ["its record is not a JSON object"]
    out = []
    if record.get("log_sha256") != log_sha256:
        out.append(
            f"the row names log {_short(log_sha256)}, its record names log {_short(record.get('log_sha256'))}"
        )
    if record.get("result") != result:
        out.append(f"the row says result {result}, its record says {record.get('result')}")
    for key, value in (("label", label), ("ref", ref), ("env", env)):
        if key in record and record[key] != value:
            out.append(f"the row says {key} {value}, its record says {record[key]}")
    rid = record.get("run_id")
    allowed = set(run_ids)
    if isinstance(rid, int) and not isinstance(rid, bool) and rid not in allowed:
        out.append(f"its record belongs to run {rid}")
    return out
