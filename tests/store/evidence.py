"""Stores and bundles for the integrity tests: real runs' records, real SQLite, real zips.

``fill`` writes two runs of the same target the way the collector does (record with
its run id, rendered log): run 1 PASS, run 2 FAIL (and, with ``second_target``, a
second FAIL target in run 2). ``read_zip``/``write_zip`` take a bundle apart and put
it back together, so the tests can edit it as an attacker would.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

from tests.report.report_fixtures import target_record
from torchparity.collect.evidence import render_log
from torchparity.store import Store

LABEL = "v2.7.1@a2"


def fill(store: Store, *, second_target: bool = False) -> tuple[int, int]:
    ids = []
    for failed in (False, True):
        rid = store.new_run("run", ["run", "test/npu/test_x.py", "--env", "a2"])
        envs = ["a2", "a5"] if (failed and second_target) else ["a2"]
        results = []
        for env in envs:
            rec = target_record(
                env, "c0ffee" * 6 + "abcd", "ab" * 32, failed=failed if env == "a2" else True
            )
            rec = rec.replace(run_id=rid)
            store.add_target(
                rid,
                label=rec.label,
                ref=rec.ref,
                env=rec.env,
                result=rec.result,
                log=render_log(rec).encode(),
                record=rec.to_json(),
            )
            results.append(rec.result)
        store.finish_run(
            rid,
            "FAIL" if "FAIL" in results else "PASS",
            summary={
                "targets": [
                    {"label": f"v2.7.1@{e}", "result": r}
                    for e, r in zip(envs, results, strict=True)
                ]
            },
        )
        ids.append(rid)
    return ids[0], ids[1]


def sql(store: Store, statement: str, params: tuple[Any, ...] = ()) -> None:
    """Edit the index behind the store's back, as anyone with the file can."""
    conn = sqlite3.connect(store.db_path)
    conn.execute(statement, params)
    conn.commit()
    conn.close()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_zip(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def write_zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return path


def manifest(entries: dict[str, bytes]) -> dict[str, Any]:
    return json.loads(entries["manifest.json"])


def put(entries: dict[str, bytes], data: bytes) -> str:
    """Add a blob to a bundle under its own hash (the manifest's file list included)."""
    digest = sha(data)
    entries[f"blobs/{digest}"] = data
    doc = manifest(entries)
    doc["files"][f"blobs/{digest}"] = digest
    entries["manifest.json"] = json.dumps(doc, indent=2).encode()
    return digest


def set_manifest(entries: dict[str, bytes], doc: dict[str, Any]) -> None:
    """Replace the manifest, listing exactly the blobs the runs name (as a careful attacker would)."""
    named = set()
    for run in doc["runs"]:
        named.add(run["seal_sha256"])
        named.update(r["sha256"] for r in run["records"])
        for t in run["targets"]:
            named.update((t["log_sha256"], t["record_sha256"]))
    for name in [n for n in entries if n.startswith("blobs/") and n[6:] not in named]:
        del entries[name]
    doc["files"] = {f"blobs/{s}": s for s in sorted(named)}
    entries["manifest.json"] = json.dumps(doc, indent=2).encode()


def rehash_log(entries: dict[str, bytes], run_index: int, *, reseal: bool) -> None:
    """Edit a run's log (FAIL -> PASS) and recompute every hash that names it: the log's, the record's
    (its log hash and result), the manifest's; with ``reseal`` also a new seal for the run."""
    doc = manifest(entries)
    run = doc["runs"][run_index]
    t = run["targets"][0]
    log = entries[f"blobs/{t['log_sha256']}"].replace(b"RESULT=FAIL", b"RESULT=PASS")
    record = json.loads(entries[f"blobs/{t['record_sha256']}"])
    t["log_sha256"] = record["log_sha256"] = put(entries, log)
    t["result"] = record["result"] = "PASS"
    run["result"] = "PASS"
    t["record_sha256"] = put(entries, json.dumps(record, indent=2).encode())
    if reseal:
        seal = json.loads(entries[f"blobs/{run['seal_sha256']}"])
        seal["targets"][0].update(
            result="PASS", log_sha256=t["log_sha256"], record_sha256=t["record_sha256"]
        )
        seal["result"] = "PASS"
        run["seal_sha256"] = put(entries, json.dumps(seal, indent=2, sort_keys=True).encode())
    set_manifest(entries, doc)
