"""A store under faults: a deleted blob, a read-only store, a full disk, an older schema."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.fsfaults import cli_calls, run_python
from tests.store.evidence import fill, sql
from torchparity.cli import main
from torchparity.store import Store


@pytest.fixture
def store_contents():
    """The ``store`` fixture's store is filled by ``fill``."""
    return fill


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_a_deleted_blob_is_exit_3_naming_it(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    log = store.targets(2)[0].log_sha or ""
    store.blobs.path(log).unlink()
    for argv in (["show", "2"], ["runs"], ["report", "2", "--kind", "json"]):
        assert main([*argv, "--store", str(store.root)]) == 3
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0
        assert (
            f"stored evidence {log} is missing from {store.blobs.path(log)} (deleted after it was written)"
            in err
        )
    seal = store.run(1).seal_sha or ""
    store.blobs.path(seal).unlink()
    assert main(["show", "1", "--store", str(store.root)]) == 3
    assert f"run 1: stored evidence {seal} is missing" in capsys.readouterr().err


def test_a_read_only_store_reads_and_refuses_writes_as_read_only(
    store: Store, tmp_path: Path
) -> None:
    bundle = tmp_path / "ev.zip"
    assert main(["bundle", "export", "1", "-o", str(bundle), "--store", str(store.root)]) == 0
    before = _files(store.root)
    st = str(store.root)
    got, _ = cli_calls(
        [
            ["runs", "--store", st],
            ["show", "2", "--store", st],
            ["report", "1", "--kind", "json", "--store", st],
            ["bundle", "export", "2", "-o", str(tmp_path / "out" / "ev2.zip"), "--store", st],
            ["bundle", "import", str(bundle), "--store", st],
        ],
        setup=f"import os; os.makedirs({str(tmp_path / 'out')!r}, exist_ok=True)",
        readonly=[store.root],
    )
    runs, show, report, export, imp = got
    assert runs["rc"] == 0 and "v2.7.1@a2=FAIL" in runs["out"], runs
    assert show["rc"] == 0 and "RESULT=FAIL" in show["out"] and "verified" in show["out"], show
    assert report["rc"] == 0 and json.loads(report["out"])["conclusion"]["result"] == "PASS", report
    assert export["rc"] == 0, export
    assert imp["rc"] == 3, imp
    assert imp["err"].strip() == (
        f"ERROR: the evidence store at {store.root} is read-only (its folder {store.root} "
        "is not writable): cannot import a bundle; make it writable or pass --store DIR"
    )
    assert "corrupt" not in imp["err"] and "damaged" not in imp["err"]
    assert _files(store.root) == before


def test_a_read_only_store_of_an_older_schema_says_so(store: Store) -> None:
    _downgrade(store)
    (got,), _ = cli_calls([["runs", "--store", str(store.root)]], readonly=[store.root])
    assert (
        got["rc"] == 3
        and "is read-only" in got["err"]
        and "upgrade it from schema 1 to 3" in got["err"]
    )


def test_a_full_disk_during_an_import_is_exit_3_and_the_store_keeps_what_it_had(
    store: Store, tmp_path: Path
) -> None:
    """The store lives on a 1 MiB tmpfs; the bundle brings a 2 MiB log."""
    big = Store(tmp_path / "big")
    rid = big.new_run("run", ["run", "t.py"])
    big.add_target(
        rid,
        label="m@e",
        ref="m",
        env="e",
        result="PASS",
        log=os.urandom(2 << 20),
        record={"label": "m@e", "result": "PASS"},
    )
    big.finish_run(rid, "PASS")
    bundle = tmp_path / "big.zip"
    assert main(["bundle", "export", "1", "-o", str(bundle), "--store", str(big.root)]) == 0
    disk = tmp_path / "disk"
    disk.mkdir()
    on_disk = disk / "store"
    setup = (
        f"import os, shutil; from torchparity.store import Store; shutil.copytree({str(store.root)!r}, "
        f"{str(on_disk)!r}); before = [[r.id, r.result] for r in Store({str(on_disk)!r}).runs()]"
    )
    after = (
        f"extra = {{'before': before, 'left': [f for _, _, fs in os.walk({str(on_disk)!r}) for f in fs "
        "if f.startswith(('.tmp', '.import'))]}"
    )
    (imp, runs), extra = cli_calls(
        [
            ["bundle", "import", str(bundle), "--store", str(on_disk)],
            ["runs", "--json", "--store", str(on_disk)],
        ],
        setup=setup,
        after=after,
        tmpfs=(disk, "1m"),
    )
    assert imp["rc"] == 3, imp
    assert "no space left on the device" in imp["err"] and str(on_disk) in imp["err"]
    assert imp["err"].count("\n") == 1
    assert (
        [[r["id"], r["result"]] for r in json.loads(runs["out"])]
        == extra["before"]
        == [[2, "FAIL"], [1, "PASS"]]
    )
    assert extra["left"] == []


def test_a_full_disk_under_sqlite_is_exit_3_and_rolls_back(store: Store, tmp_path: Path) -> None:
    """The blob is there already, so the write that fails is SQLite's own (its WAL cannot grow)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    code = f"""
import json, shutil
from torchparity.errors import TorchparityError
from torchparity.store import Store
shutil.copytree({str(store.root)!r}, {str(disk / "store")!r})
st = Store({str(disk / "store")!r})
st.put_record("note", "k", {{"a": 1}})
before = [r["id"] for r in st.query("SELECT id FROM records")]
with open({str(disk / "filler")!r}, "wb", buffering=0) as fh:
    try:
        while True:
            fh.write(b"x" * 4096)
            fh.flush()
    except OSError:
        pass
try:
    for _ in range(200):
        st.put_record("note", "k", {{"a": 1}})
    error = None
except TorchparityError as exc:
    error = [type(exc).__name__, int(exc.exit_code), str(exc)]
import os
os.remove({str(disk / "filler")!r})
again = Store({str(disk / "store")!r})
after = [r["id"] for r in again.query("SELECT id FROM records")]
print(json.dumps({{"error": error, "before": before, "after": after, "runs": [r.id for r in again.runs()]}}))
"""
    got = run_python(code, tmpfs=(disk, "2m"))
    assert got["error"] is not None, got
    name, code_, message = got["error"]
    assert code_ == 3 and "no space left on the device" in message, got
    assert message.startswith(
        f"cannot write the evidence store at {disk / 'store' / 'store.sqlite'} while writing"
    )
    assert got["after"][: len(got["before"])] == got["before"]  # what it had is kept
    assert got["runs"] == [2, 1]


def _downgrade(store: Store) -> None:
    """Make ``store`` a schema-1 store (as torchparity 0.1 wrote it): no seals."""
    conn = sqlite3.connect(store.db_path)
    conn.execute("ALTER TABLE runs DROP COLUMN seal_sha")
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()


def test_a_schema_1_store_is_sealed_on_upgrade_except_what_already_disagrees(store: Store) -> None:
    _downgrade(store)
    sql(store, "UPDATE targets SET result='PASS' WHERE run_id=2")  # edited before the upgrade
    upgraded = Store(store.root)
    assert upgraded.run(1).seal_sha is not None
    with pytest.raises(
        Exception, match="run 2 target v2.7.1@a2: the row says result PASS, its record says FAIL"
    ):
        upgraded.run(2)
    sql(store, "UPDATE targets SET result='FAIL' WHERE run_id=2")
    with pytest.raises(Exception, match="run 2 is complete .* but has no seal"):
        Store(store.root).run(2)  # left unsealed: an edit made before the upgrade is not laundered


def test_a_missing_store_folder_parent_is_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["bundle", "import", str(tmp_path / "x.zip"), "--store", str(blocker / "s")]) == 2
    assert "Traceback" not in capsys.readouterr().err
    shutil.rmtree(tmp_path / "nothing", ignore_errors=True)
