"""The bundle's ``manifest.json``, typed: read strictly (a wrong type is bad input naming where)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import jsoncheck as jc
from .bundle_zip import BLOB_DIR, path_problem
from .seal import RecordSeal, RunSeal, TargetSeal, summary_sha256

#: 3: the runs' seals name their records (``torchparity.run-seal/2``); a bundle/2 carries seals that do not
BUNDLE_SCHEMA = "torchparity.bundle/3"

#: a run's record as the manifest lists it: the same as its seal names it
BundleRecord = RecordSeal


@dataclass(frozen=True)
class BundleRun:
    """One run as the bundle describes it; its seal (``seal_sha256``) must say the same."""

    id: int
    kind: str
    created: float
    finished: float | None
    status: str
    result: str | None
    argv: tuple[str, ...]
    summary: dict[str, Any]
    seal_sha256: str
    targets: tuple[TargetSeal, ...]
    records: tuple[BundleRecord, ...]

    def seal(self) -> RunSeal:
        """The seal this description amounts to (compared with the sealed one)."""
        return RunSeal(
            run=self.id,
            kind=self.kind,
            created=self.created,
            finished=self.finished,
            status=self.status,
            result=self.result,
            argv=self.argv,
            summary_sha256=summary_sha256(self.summary),
            targets=self.targets,
            records=self.records,
        )

    def blobs(self) -> set[str]:
        """Every blob the run names: seal, logs, target records, other records."""
        out = {self.seal_sha256} | {r.sha256 for r in self.records}
        for t in self.targets:
            out |= {t.log_sha256, t.record_sha256}
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "created": self.created,
            "finished": self.finished,
            "status": self.status,
            "result": self.result,
            "argv": list(self.argv),
            "summary": self.summary,
            "seal_sha256": self.seal_sha256,
            "targets": [t.to_json() for t in self.targets],
            "records": [r.to_json() for r in self.records],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any], where: str) -> BundleRun:
        targets = tuple(
            TargetSeal.from_json(t, f"{where}.targets[{i}]")
            for i, t in enumerate(jc.objects(d, "targets", where))
        )
        records = tuple(
            BundleRecord.from_json(r, f"{where}.records[{i}]")
            for i, r in enumerate(jc.objects(d, "records", where))
        )
        labels = [t.label for t in targets]
        if len(set(labels)) != len(labels):
            raise jc.ShapeError(f"{where}.targets names a target twice")
        return cls(
            id=jc.integer(d, "id", where),
            kind=jc.text(d, "kind", where),
            created=jc.number(d, "created", where),
            finished=jc.number(d, "finished", where, optional=True),
            status=jc.text(d, "status", where),
            result=jc.text(d, "result", where, optional=True),
            argv=tuple(jc.texts(d, "argv", where)),
            summary=jc.obj(d.get("summary"), f"{where}.summary"),
            seal_sha256=jc.sha(d, "seal_sha256", where),
            targets=targets,
            records=records,
        )


@dataclass(frozen=True)
class BundleManifest:
    created: float
    torchparity_version: str
    runs: tuple[BundleRun, ...]
    #: entry name (``blobs/<sha256>``) -> its SHA-256
    files: dict[str, str]
    schema: str = BUNDLE_SCHEMA

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "created": self.created,
            "torchparity_version": self.torchparity_version,
            "runs": [r.to_json() for r in self.runs],
            "files": dict(sorted(self.files.items())),
        }

    def to_bytes(self) -> bytes:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False).encode("utf-8")

    @classmethod
    def from_json(cls, d: Any) -> BundleManifest:
        where = "manifest"
        d = jc.obj(d, where)
        schema = jc.text(d, "schema", where)
        if schema != BUNDLE_SCHEMA:
            raise jc.ShapeError(
                f"unknown bundle schema {schema!r} (this torchparity reads {BUNDLE_SCHEMA!r}; "
                "a bundle of an older torchparity is exported again from its store)"
            )
        files = jc.obj(d.get("files"), f"{where}.files")
        for name, sha in files.items():
            problem = path_problem(name)
            if problem is not None:
                raise jc.ShapeError(f"{where}.files: {name!r} is a path problem: {problem}")
            if not isinstance(sha, str) or name != f"{BLOB_DIR}{sha}":
                raise jc.ShapeError(
                    f"{where}.files: {name!r} must map to the SHA-256 it is named by, "
                    f"not {str(sha)[:80]!r}"
                )
            jc.sha(files, name, f"{where}.files")
        runs = tuple(
            BundleRun.from_json(r, f"{where}.runs[{i}]")
            for i, r in enumerate(jc.objects(d, "runs", where))
        )
        if len({r.id for r in runs}) != len(runs):
            raise jc.ShapeError(f"{where}.runs names a run id twice")
        return cls(
            created=jc.number(d, "created", where),
            torchparity_version=jc.text(d, "torchparity_version", where),
            runs=runs,
            files=dict(files),
            schema=schema,
        )
