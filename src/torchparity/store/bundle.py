"""Bundles: a zip of runs (logs, records, manifest of hashes) that anyone can verify.

Layout of a bundle::

    manifest.json          schema, who made it, the runs and their targets, every file's SHA-256
    blobs/<sha256>         each evidence log, target record and stored record, named by its hash

``verify_bundle`` recomputes every hash, checks that each target record names
its log's hash, and that the manifest lists exactly the files present.
``import_bundle`` verifies first, then copies the evidence into a store under
new run ids.
"""

from __future__ import annotations

import json
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .blobs import sha256_bytes
from .db import Store

BUNDLE_SCHEMA = "torchparity.bundle/1"


@dataclass
class BundleCheck:
    path: str
    files: int = 0
    runs: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"bundle": self.path, "files": self.files, "runs": self.runs, "ok": self.ok,
                "problems": self.problems}


def export_bundle(store: Store, run_ids: list[int], dest: Path, version: str = "") -> Path:
    """Write the runs' evidence into ``dest`` (a new zip); returns its path."""
    if dest.exists():
        raise UsageError(f"{dest} already exists; pass a new file name to --output")
    if not dest.parent.is_dir():
        raise UsageError(f"folder {dest.parent} does not exist; make it or pass another --output")
    runs_doc = []
    blobs: set[str] = set()
    for rid in run_ids:
        row = store.run(rid)
        targets = []
        for t in store.targets(row.id):
            targets.append({"label": t.label, "ref": t.ref, "env": t.env, "result": t.result,
                            "log_sha256": t.log_sha, "record_sha256": t.record_sha})
            blobs.update(s for s in (t.log_sha, t.record_sha) if s)
        recs = [
            {"kind": r["kind"], "key": r["key"], "sha256": r["sha"]}
            for r in store.query("SELECT kind, key, sha FROM records WHERE run_id=? ORDER BY id", (row.id,))
        ]
        blobs.update(r["sha256"] for r in recs)
        runs_doc.append({"id": row.id, "uid": row.uid, "kind": row.kind, "created": row.created, "finished": row.finished,
                         "status": row.status, "result": row.result, "argv": row.argv,
                         "targets": targets, "records": recs})
    manifest = {
        "schema": BUNDLE_SCHEMA, "created": time.time(), "torchparity_version": version,
        "runs": runs_doc, "files": {f"blobs/{s}": s for s in sorted(blobs)},
    }
    tmp = dest.with_name(dest.name + ".partial")
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False))
            for sha in sorted(blobs):
                zf.writestr(f"blobs/{sha}", store.blobs.read(sha))
        tmp.replace(dest)
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def _open(path: Path) -> zipfile.ZipFile:
    if not path.is_file():
        raise UsageError(f"bundle not found: {path}")
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise UsageError(f"{path} is not a torchparity bundle (not a zip file)") from exc


def verify_bundle(path: Path) -> BundleCheck:
    check = BundleCheck(str(path))
    with _open(path) as zf:
        names = {n for n in zf.namelist() if not n.endswith("/")}  # folder entries carry no bytes
        if "manifest.json" not in names:
            check.problems.append("manifest.json is missing")
            return check
        try:
            manifest = json.loads(zf.read("manifest.json"))
        except ValueError as exc:
            check.problems.append(f"manifest.json is not JSON ({exc})")
            return check
        if not isinstance(manifest, dict) or manifest.get("schema") != BUNDLE_SCHEMA:
            check.problems.append(f"unknown bundle schema {manifest.get('schema')!r}")
            return check
        listed: dict[str, str] = manifest.get("files", {})
        for name in sorted(names - {"manifest.json"} - set(listed)):
            check.problems.append(f"{name}: present but not listed in the manifest")
        contents: dict[str, bytes] = {}
        for name, sha in sorted(listed.items()):
            if name not in names:
                check.problems.append(f"{name}: listed in the manifest but missing")
                continue
            data = zf.read(name)
            actual = sha256_bytes(data)
            if actual != sha or name != f"blobs/{sha}":
                check.problems.append(f"{name}: bytes hash to {actual}, the manifest says {sha}")
            contents[sha] = data
            check.files += 1
        for run in manifest.get("runs", []):
            check.runs += 1
            for t in run.get("targets", []):
                where = f"run {run.get('id', '?')} {t.get('label', '?')}"
                rec_bytes = contents.get(t.get("record_sha256") or "")
                if rec_bytes is None:
                    check.problems.append(f"{where}: record missing")
                    continue
                try:
                    record = json.loads(rec_bytes)
                except ValueError:
                    check.problems.append(f"{where}: record is not JSON")
                    continue
                if record.get("log_sha256") != t.get("log_sha256"):
                    check.problems.append(f"{where}: record names another log")
                if record.get("result") != t.get("result"):
                    check.problems.append(f"{where}: result differs from its record")
    return check


def import_bundle(store: Store, path: Path) -> list[int]:
    """Verify, then copy every run of the bundle into ``store``; returns the new run ids."""
    check = verify_bundle(path)
    if not check.ok:
        raise UsageError(f"bundle {path} does not verify ({check.problems[0]}); nothing imported")
    new_ids = []
    with _open(path) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        for name in manifest["files"]:
            store.blobs.put(zf.read(name))
        for run in manifest["runs"]:
            rid = store.new_run(run["kind"], run["argv"] + [f"(imported from {path.name}, run {run['id']})"],
                                created=run.get("created"), uid=run.get("uid"))
            for t in run["targets"]:
                record = json.loads(store.blobs.read(t["record_sha256"]))
                record.pop("log_sha256", None)
                store.add_target(rid, label=t["label"], ref=t["ref"], env=t["env"], result=t["result"],
                                 log=store.blobs.read(t["log_sha256"]), record=record)
            for r in run.get("records", []):
                store.put_record(r["kind"], r["key"], json.loads(store.blobs.read(r["sha256"])), run_id=rid)
            store.finish_run(rid, run.get("result") or "INCOMPLETE", status=run.get("status") or "incomplete",
                             finished=run.get("finished"))
            new_ids.append(rid)
    return new_ids
