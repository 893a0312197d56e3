"""A store that checks itself: edits behind its back are tampering (exit 3) for every verb that reads.

Each case edits a real store as anyone with the files could (SQL on the index, bytes in
the blob folder) and runs the real CLI: ``runs``, ``show``, ``report`` and ``bundle
export`` must each refuse with one line naming the run, the target and what disagrees,
and print none of the evidence.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.store.evidence import LABEL, fill, sha, sql
from torchparity.cli import main
from torchparity.errors import EvidenceTampered
from torchparity.store import Store

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


def _point_at_the_pass(store: Store) -> None:
    """The issue's attack: the FAIL target's row points at run 1's PASS log and record."""
    t1 = store.targets(1)[0]
    sql(
        store,
        "UPDATE targets SET result='PASS', log_sha=?, record_sha=? WHERE run_id=2 AND label=?",
        (t1.log_sha, t1.record_sha, LABEL),
    )


def _point_at_the_pass_records_without_run(store: Store) -> None:
    """The same, where the records name no run (as older records do): the seal catches it."""
    for t in store.targets(1) + store.targets(2):
        rec = store.read_json(t.record_sha or "")
        rec.pop("run_id")
        new = store.blobs.put(json.dumps(rec, indent=2).encode())
        sql(store, "UPDATE targets SET record_sha=? WHERE id=?", (new, t.id))
    sql(
        store, "UPDATE runs SET seal_sha=NULL"
    )  # the seals named the old records: reseal both honestly
    for rid in (1, 2):
        sql(
            store, "UPDATE runs SET status='running', result=NULL, finished=NULL WHERE id=?", (rid,)
        )
        store.finish_run(rid, "PASS" if rid == 1 else "FAIL")
    _point_at_the_pass(store)
    sql(store, "UPDATE runs SET result='PASS' WHERE id=2")


def _swap_log_and_record(store: Store) -> None:
    sql(
        store,
        "UPDATE targets SET log_sha=record_sha, record_sha=log_sha WHERE run_id=2 AND label=?",
        (LABEL,),
    )


def _swap_pairs_between_targets(store: Store) -> None:
    a2, a5 = store.targets(2)
    sql(
        store,
        "UPDATE targets SET log_sha=?, record_sha=? WHERE id=?",
        (a5.log_sha, a5.record_sha, a2.id),
    )
    sql(
        store,
        "UPDATE targets SET log_sha=?, record_sha=? WHERE id=?",
        (a2.log_sha, a2.record_sha, a5.id),
    )


def _edit_the_row_result(store: Store) -> None:
    sql(store, "UPDATE targets SET result='PASS' WHERE run_id=2 AND label=?", (LABEL,))


def _edit_the_run_result(store: Store) -> None:
    sql(store, "UPDATE runs SET result='PASS' WHERE id=2")


def _drop_the_seal(store: Store) -> None:
    sql(store, "UPDATE runs SET result='PASS', seal_sha=NULL WHERE id=2")


def _mark_it_running_with_a_result(store: Store) -> None:
    sql(store, "UPDATE runs SET status='running', seal_sha=NULL, finished=NULL WHERE id=2")


def _rehash_in_the_store(store: Store) -> None:
    """Log edited FAIL -> PASS and stored under its new hash, the record re-written to name it, the
    row pointed at both: everything but the seal."""
    t = store.targets(2)[0]
    log = store.blobs.read(t.log_sha or "").replace(b"RESULT=FAIL", b"RESULT=PASS")
    rec = store.read_json(t.record_sha or "")
    rec.update(result="PASS", log_sha256=store.blobs.put(log))
    new = store.blobs.put(json.dumps(rec, indent=2).encode())
    sql(
        store,
        "UPDATE targets SET result='PASS', log_sha=?, record_sha=? WHERE id=?",
        (rec["log_sha256"], new, t.id),
    )
    sql(store, "UPDATE runs SET result='PASS' WHERE id=2")


def _edit_the_log_bytes(store: Store) -> None:
    path = store.blobs.path(store.targets(2)[0].log_sha or "")
    path.write_bytes(path.read_bytes().replace(b"RESULT=FAIL", b"RESULT=PASS"))


CASES: dict[str, tuple[Callable[[Store], None], str]] = {
    "row pointed at another run's PASS": (
        _point_at_the_pass,
        f"run 2 target {LABEL}: its record belongs to run 1",
    ),
    "same, records naming no run": (_point_at_the_pass_records_without_run, "the seal says"),
    "log and record swapped": (_swap_log_and_record, f"run 2 target {LABEL}: its record"),
    "pairs swapped between targets": (
        _swap_pairs_between_targets,
        f"run 2 target {LABEL}: the row says label {LABEL}, its record says v2.7.1@a5",
    ),
    "row result edited": (_edit_the_row_result, "the row says result PASS, its record says FAIL"),
    "run result edited": (_edit_the_run_result, "run 2: result is PASS, the seal says FAIL"),
    "seal dropped": (_drop_the_seal, "run 2 is complete (result PASS) but has no seal"),
    "marked running with a result": (
        _mark_it_running_with_a_result,
        "run 2 is marked running but has a result",
    ),
    "re-hashed in the store": (
        _rehash_in_the_store,
        f"run 2: result is PASS, the seal says FAIL; target {LABEL}: result is PASS, the seal says FAIL",
    ),
    "log bytes edited": (_edit_the_log_bytes, "changed after it was written"),
}


@pytest.fixture
def store_contents():
    """The ``store`` fixture's store is filled by ``fill``, with a second target."""
    return functools.partial(fill, second_target=True)


def test_an_untouched_store_reads_clean(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    st = str(store.root)
    for verb, argv in VERBS.items():
        assert main(argv(st)) == 0, verb
    assert main(["bundle", "verify", str(store.root.parent / "out.zip")]) == 0
    out = capsys.readouterr().out
    assert "v2.7.1@a2=FAIL" in out and "every seal matches" in out


@pytest.mark.parametrize("verb", list(VERBS))
@pytest.mark.parametrize("case", list(CASES))
def test_tampering_is_exit_3_one_line_and_nothing_rendered(
    store: Store, case: str, verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    edit, expected = CASES[case]
    edit(store)
    capsys.readouterr()
    assert main(VERBS[verb](str(store.root))) == 3
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1, cap.err
    assert lines[0].startswith("ERROR: tampered evidence: run 2"), lines[0]
    assert expected in lines[0]
    assert "RESULT=" not in cap.out and "PASS" not in cap.out  # no evidence rendered
    assert not (store.root.parent / "out.zip").exists()


def test_the_library_raises_on_read_so_every_reader_gets_it(store: Store) -> None:
    _point_at_the_pass(store)
    fresh = Store(store.root, create=False)
    for read in (lambda: fresh.run(2), lambda: fresh.targets(2), lambda: fresh.runs()):
        with pytest.raises(EvidenceTampered, match="run 2 target"):
            read()
    assert fresh.run(1).result == "PASS"  # the run it points at is untouched and still reads


def test_a_tampered_run_is_not_resealed_by_a_resume(store: Store) -> None:
    _edit_the_run_result(store)
    with pytest.raises(EvidenceTampered, match="the seal says FAIL"):
        store.reopen_run(2)
    _point_at_the_pass(store)
    with pytest.raises(EvidenceTampered):
        store.finish_run(2, "PASS")


def test_a_row_naming_a_path_instead_of_a_hash_is_tampering(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    sql(
        store,
        "UPDATE targets SET log_sha='../../../etc/passwd' WHERE run_id=2 AND label=?",
        (LABEL,),
    )
    assert main(["show", "2", "--store", str(store.root)]) == 3
    assert "the row names log ../../../etc/passwd" in capsys.readouterr().err


def test_the_seal_names_every_target_and_the_verdict(store: Store) -> None:
    row = store.run(2)
    assert row.seal_sha is not None
    seal = json.loads(store.blobs.read(row.seal_sha))
    assert seal["run"] == 2 and seal["result"] == "FAIL" and seal["status"] == "complete"
    assert {(t["label"], t["result"]) for t in seal["targets"]} == {
        (LABEL, "FAIL"),
        ("v2.7.1@a5", "FAIL"),
    }
    assert {t["log_sha256"] for t in seal["targets"]} == {t.log_sha for t in store.targets(2)}
    assert sha(store.blobs.read(row.seal_sha)) == row.seal_sha
