"""A run's seal names its records: an edited ``records`` table is tampering for every verb that reads.

The records (task, verify, resolve, coverage, checklist, ...) are what every report is rendered
from. Each case edits a real store's index as anyone with the file could (the record row's hash
pointed at another run's PASS verify record, a row deleted, a row inserted, two rows swapped) and
runs the real CLI; bundles are edited the same way in their manifest.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.report.report_fixtures import API, target_record
from tests.store.evidence import manifest, read_zip, set_manifest, sql, write_zip
from torchparity.cli import main
from torchparity.collect.evidence import render_log
from torchparity.config import load_preset
from torchparity.errors import EvidenceTampered
from torchparity.records.verify import TargetVerdict, VerifyRecord
from torchparity.store import Store, put
from torchparity.store.seal import SEAL_SCHEMA, SEAL_SCHEMA_1


def _verify_run(store: Store, failed: bool) -> int:
    """A verify run as the pipeline stores it: task record, one target, the verify record, sealed."""
    rid = store.new_run("verify", ["verify", API, "--env", "a2"])
    put(store, load_preset("torch_npu").task_record(API, None, repo=True), rid, API)
    rec = target_record("a2", "c0ffee" * 6 + "abcd", "ab" * 32, failed=failed)
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
    put(
        store,
        VerifyRecord(
            api=API,
            canonical=API,
            doc_name=API,
            kind="method",
            category="autograd",
            result=rec.result,
            targets=(TargetVerdict(rec.label, rec.result),),
            blockers=(f"target {rec.label}: FAIL",) if failed else (),
        ),
        rid,
        API,
    )
    store.finish_run(rid, rec.result, summary={"api": API})
    return rid


@pytest.fixture
def store_contents() -> Callable[[Store], None]:
    """The ``store`` fixture's store holds two verify runs, one passing and one failing."""

    def two_verify_runs(st: Store) -> None:
        assert (_verify_run(st, failed=False), _verify_run(st, failed=True)) == (1, 2)

    return two_verify_runs


def _sha(store: Store, run: int, kind: str) -> str:
    (row,) = store.query("SELECT sha FROM records WHERE run_id=? AND kind=?", (run, kind))
    return str(row["sha"])


def _swap_to_the_pass(store: Store) -> None:
    """The FAIL run's verify record row pointed at the PASS run's verify record."""
    sql(
        store,
        "UPDATE records SET sha=? WHERE run_id=2 AND kind='verify'",
        (_sha(store, 1, "verify"),),
    )


def _delete_a_row(store: Store) -> None:
    sql(store, "DELETE FROM records WHERE run_id=2 AND kind='verify'")


def _insert_a_row(store: Store) -> None:
    """A newer verify record (the one a report renders) added to the finished run."""
    sql(
        store,
        "INSERT INTO records(run_id, kind, key, created, sha) VALUES (2, 'verify', ?, ?, ?)",
        (API, time.time(), _sha(store, 1, "verify")),
    )


def _reorder(store: Store) -> None:
    """The same rows in another order: the contents of the run's two record rows exchanged."""
    (a, b) = store.query("SELECT id, kind, sha FROM records WHERE run_id=2 ORDER BY id")
    sql(store, "UPDATE records SET kind=?, sha=? WHERE id=?", (b["kind"], b["sha"], a["id"]))
    sql(store, "UPDATE records SET kind=?, sha=? WHERE id=?", (a["kind"], a["sha"], b["id"]))


CASES: dict[str, tuple[Callable[[Store], None], str]] = {
    "sha swapped to another run's PASS": (
        _swap_to_the_pass,
        f"run 2: record verify '{API}': sha is ",
    ),
    "row deleted": (_delete_a_row, f"run 2: record verify '{API}' ("),
    "row inserted": (_insert_a_row, f"run 2: record verify '{API}' ("),
    "rows reordered": (
        _reorder,
        "run 2: the records are in another order than the seal's (2 rows)",
    ),
}
#: the end of each case's message
TAILS = {
    "sha swapped to another run's PASS": ", the seal says ",
    "row deleted": "is sealed but has no row",
    "row inserted": "has a row but is not in the seal",
    "rows reordered": "",
}

VERBS = {
    "runs": lambda st: ["runs", "--store", st],
    "show": lambda st: ["show", "2", "--store", st],
    "report": lambda st: ["report", "2", "--kind", "json", "--store", st],
    "bundle export": lambda st: [
        "bundle",
        "export",
        "2",
        "-o",
        str(Path(st).parent / "out.zip"),
        "--store",
        st,
    ],
}


def test_an_untouched_store_reads_and_its_seal_names_the_records(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    st = str(store.root)
    for verb, argv in VERBS.items():
        assert main(argv(st)) == 0, verb
    assert main(["bundle", "verify", str(store.root.parent / "out.zip")]) == 0
    assert "every seal matches" in capsys.readouterr().out
    seal = json.loads(store.blobs.read(store.run(2).seal_sha or ""))
    assert seal["schema"] == SEAL_SCHEMA
    assert [(r["kind"], r["key"], r["sha256"]) for r in seal["records"]] == [
        ("task", API, _sha(store, 2, "task")),
        ("verify", API, _sha(store, 2, "verify")),
    ]


@pytest.mark.parametrize("verb", list(VERBS))
@pytest.mark.parametrize("case", list(CASES))
def test_an_edited_records_table_is_exit_3_one_line_naming_the_run(
    store: Store, case: str, verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    edit, expected = CASES[case]
    edit(store)
    capsys.readouterr()
    assert main(VERBS[verb](str(store.root))) == 3
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1, cap.err
    assert lines[0].startswith("ERROR: tampered evidence: run 2: "), lines[0]
    assert expected in lines[0] and TAILS[case] in lines[0], lines[0]
    assert "RESULT=" not in cap.out and "PASS" not in cap.out  # nothing of the run rendered
    assert not (store.root.parent / "out.zip").exists()


def test_the_other_run_still_reads_and_the_library_raises(store: Store) -> None:
    _swap_to_the_pass(store)
    fresh = Store(store.root, create=False)
    for read in (
        lambda: fresh.run(2),
        lambda: fresh.targets(2),
        lambda: fresh.records(2),
        lambda: fresh.record_rows(2),
        fresh.runs,
    ):
        with pytest.raises(EvidenceTampered, match="run 2: record verify"):
            read()
    assert fresh.run(1).result == "PASS" and [k for k, _, _ in fresh.records(1)] == [
        "task",
        "verify",
    ]


def test_a_record_is_never_added_to_a_sealed_run_nor_an_edit_resealed(store: Store) -> None:
    before = store.record_rows(1)
    with pytest.raises(
        ValueError, match="cannot add a verify record to run 1: it is complete and sealed"
    ):
        store.put_record("verify", API, {"result": "PASS"}, run_id=1)
    assert store.record_rows(1) == before
    _insert_a_row(store)
    with pytest.raises(EvidenceTampered, match="has a row but is not in the seal"):
        store.finish_run(2, "PASS")  # closing a sealed run again checks it first: no laundering
    with pytest.raises(EvidenceTampered):
        store.reopen_run(2)
    with pytest.raises(EvidenceTampered):
        store.run(2)


def test_a_reopened_run_takes_a_record_and_is_sealed_with_it(store: Store) -> None:
    store.reopen_run(1)
    store.put_record("note", "k", {"a": 1}, run_id=1)
    store.finish_run(1, "PASS")
    assert [r.kind for r in store.record_rows(1)] == ["task", "verify", "note"]


# -- bundles ----------------------------------------------------------------------------------
def _bundle(store: Store, dest: Path) -> Path:
    assert main(["bundle", "export", "1", "2", "-o", str(dest), "--store", str(store.root)]) == 0
    return dest


def _bundle_swap(doc: dict[str, Any]) -> None:
    passing = next(r for r in doc["runs"][0]["records"] if r["kind"] == "verify")
    next(r for r in doc["runs"][1]["records"] if r["kind"] == "verify")["sha256"] = passing[
        "sha256"
    ]


def _bundle_delete(doc: dict[str, Any]) -> None:
    doc["runs"][1]["records"] = [r for r in doc["runs"][1]["records"] if r["kind"] != "verify"]


def _bundle_insert(doc: dict[str, Any]) -> None:
    passing = next(r for r in doc["runs"][0]["records"] if r["kind"] == "verify")
    doc["runs"][1]["records"].append(dict(passing))


BUNDLE_CASES: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "sha swapped": (_bundle_swap, f"run 2: record verify '{API}': sha is "),
    "record deleted": (_bundle_delete, "is sealed but has no row"),
    "record inserted": (_bundle_insert, "has a row but is not in the seal"),
}


@pytest.mark.parametrize("case", list(BUNDLE_CASES))
def test_a_bundle_whose_records_were_edited_does_not_verify_nor_import(
    store: Store, tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    edit, expected = BUNDLE_CASES[case]
    entries = read_zip(_bundle(store, tmp_path / "ev.zip"))
    doc = manifest(entries)
    edit(doc)
    set_manifest(entries, doc)  # the file list made consistent, as a careful editor would
    bad = write_zip(tmp_path / "edited.zip", entries)
    capsys.readouterr()
    assert main(["bundle", "verify", str(bad)]) == 3
    out = capsys.readouterr().out
    problems = [ln for ln in out.splitlines() if ": run " in ln]
    assert len(problems) == 1, out
    assert problems[0].startswith(f"{bad}: run 2: ") and expected in problems[0], out
    assert "its seal says" in problems[0] or "seal" in problems[0]
    assert "TAMPERED" in out
    assert main(["bundle", "import", str(bad), "--store", str(tmp_path / "dst")]) == 3
    assert Store(tmp_path / "dst").query("SELECT id FROM runs") == []


def test_a_bundle_round_trip_keeps_the_records_sealed(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zpath = _bundle(store, tmp_path / "ev.zip")
    assert main(["bundle", "verify", str(zpath)]) == 0
    assert main(["bundle", "import", str(zpath), "--store", str(tmp_path / "dst")]) == 0
    dst = Store(tmp_path / "dst")
    for src_id, dst_id in ((1, 1), (2, 2)):
        assert [(r.kind, r.key, r.sha256) for r in dst.record_rows(dst_id)] == [
            (r.kind, r.key, r.sha256) for r in store.record_rows(src_id)
        ]
    capsys.readouterr()
    assert main(["report", "2", "--kind", "json", "--store", str(tmp_path / "dst")]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["result"] == "FAIL"
    # the imported run is sealed with its records too
    sql(dst, "UPDATE records SET sha=? WHERE run_id=2 AND kind='verify'", (_sha(dst, 1, "verify"),))
    assert main(["show", "2", "--store", str(tmp_path / "dst")]) == 3
    assert f"run 2: record verify '{API}': sha is" in capsys.readouterr().err


def test_a_bundle_of_the_previous_format_is_refused_as_such(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = read_zip(_bundle(store, tmp_path / "ev.zip"))
    doc = manifest(entries)
    doc["schema"] = "torchparity.bundle/2"
    entries["manifest.json"] = json.dumps(doc).encode()
    old = write_zip(tmp_path / "old.zip", entries)
    capsys.readouterr()
    assert main(["bundle", "verify", str(old)]) == 2
    assert (
        "a bundle of an older torchparity is exported again from its store"
        in capsys.readouterr().err
    )


# -- the upgrade from schema 2 ------------------------------------------------------------------
def _as_schema_2(store: Store) -> None:
    """Make ``store`` what torchparity wrote at schema 2: every seal a run-seal/1 (no records)."""
    conn = sqlite3.connect(store.db_path)
    for rid, seal_sha in conn.execute(
        "SELECT id, seal_sha FROM runs WHERE seal_sha IS NOT NULL"
    ).fetchall():
        seal = json.loads(store.blobs.read(seal_sha))
        seal.pop("records")
        seal["schema"] = SEAL_SCHEMA_1
        old = store.blobs.put(json.dumps(seal, indent=2, sort_keys=True).encode())
        conn.execute("UPDATE runs SET seal_sha=? WHERE id=?", (old, rid))
    conn.execute("PRAGMA user_version=2")
    conn.commit()
    conn.close()


def test_a_schema_2_store_is_resealed_with_its_records_except_what_already_disagrees(
    store: Store,
) -> None:
    running = store.new_run("run", ["run"])
    _as_schema_2(store)
    sql(store, "UPDATE runs SET result='PASS' WHERE id=2")  # edited before the upgrade
    upgraded = Store(store.root)
    assert upgraded.query("PRAGMA user_version")[0][0] == 3
    seal = json.loads(upgraded.blobs.read(upgraded.run(1).seal_sha or ""))
    assert seal["schema"] == SEAL_SCHEMA and [r["kind"] for r in seal["records"]] == [
        "task",
        "verify",
    ]
    # run 2 disagreed with its old seal: it keeps it, and reading it says what disagrees
    with pytest.raises(
        EvidenceTampered,
        match="run 2: result is PASS, the seal says FAIL; the seal names no records",
    ):
        upgraded.run(2)
    assert tuple(upgraded.query("SELECT seal_sha, status FROM runs WHERE id=?", (running,))[0]) == (
        None,
        "running",
    )
    # once upgraded, the records of run 1 are covered: an edit now is tampering
    _insert_a_row_into(upgraded, 1)
    with pytest.raises(EvidenceTampered, match="run 1: record verify"):
        Store(store.root).run(1)


def test_the_upgrade_runs_once(store: Store) -> None:
    _as_schema_2(store)
    first = Store(store.root).run(1).seal_sha
    assert Store(store.root).run(1).seal_sha == first


def _insert_a_row_into(store: Store, run: int) -> None:
    sql(
        store,
        "INSERT INTO records(run_id, kind, key, created, sha) VALUES (?, 'verify', ?, ?, ?)",
        (run, API, time.time(), _sha(store, 2, "verify")),
    )
