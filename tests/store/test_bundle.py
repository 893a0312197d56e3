"""Bundles round-trip and catch tampering (real store, real zip)."""

from __future__ import annotations

import zipfile

from torchparity.cli import main
from torchparity.store import Store


def _fill(store: Store) -> int:
    rid = store.new_run("run", ["run", "t.py"])
    store.add_target(
        rid,
        label="master@py",
        ref="master",
        env="py",
        result="PASS",
        log=b"RESULT=PASS\n",
        record={"label": "master@py", "result": "PASS"},
    )
    store.put_record("resolve", "torch.add", {"canonical": "torch.add"}, run_id=rid)
    store.finish_run(rid, "PASS")
    return rid


def test_export_verify_import_round_trip(tmp_path, capsys):
    src = Store(tmp_path / "a")
    rid = _fill(src)
    zpath = tmp_path / "ev.zip"
    assert (
        main(["bundle", "export", str(rid), "-o", str(zpath), "--store", str(tmp_path / "a")]) == 0
    )
    assert main(["bundle", "verify", str(zpath)]) == 0
    assert (
        "OK: 4 files, 1 runs checked, every seal matches" in capsys.readouterr().out
    )  # log, record, resolve record, seal
    assert main(["bundle", "import", str(zpath), "--store", str(tmp_path / "b")]) == 0
    dst = Store(tmp_path / "b")
    (t,) = dst.targets(1)
    orig = src.targets(rid)[0]
    assert (t.log_sha, t.record_sha, t.result) == (orig.log_sha, orig.record_sha, "PASS")
    assert dst.latest_record("resolve", "torch.add") == {"canonical": "torch.add"}
    assert dst.run(1).result == "PASS"
    # exporting to an existing file is refused, nothing overwritten
    assert (
        main(["bundle", "export", str(rid), "-o", str(zpath), "--store", str(tmp_path / "a")]) == 2
    )


def test_tampered_bundle_fails_and_is_not_imported(tmp_path, capsys):
    src = Store(tmp_path / "a")
    rid = _fill(src)
    zpath = tmp_path / "ev.zip"
    assert (
        main(["bundle", "export", str(rid), "-o", str(zpath), "--store", str(tmp_path / "a")]) == 0
    )
    log_sha = src.targets(rid)[0].log_sha
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(zpath) as zin, zipfile.ZipFile(bad, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == f"blobs/{log_sha}":
                data = b"RESULT=FAIL\n"
            zout.writestr(item, data)
    assert main(["bundle", "verify", str(bad)]) == 3
    out = capsys.readouterr().out
    assert f"blobs/{log_sha}: its bytes hash to" in out and "TAMPERED" in out
    assert main(["bundle", "import", str(bad), "--store", str(tmp_path / "c")]) == 3
    assert Store(tmp_path / "c").runs() == []
    assert main(["bundle", "verify", str(tmp_path / "nope.zip")]) == 2


def test_import_keeps_the_run_times_and_rezipped_bundles_verify(tmp_path):
    import os

    src = Store(tmp_path / "a")
    rid = _fill(src)
    zpath = tmp_path / "ev.zip"
    assert (
        main(["bundle", "export", str(rid), "-o", str(zpath), "--store", str(tmp_path / "a")]) == 0
    )
    # unzipped and zipped again by hand: the folder entries carry no evidence
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(zpath) as zf:
        zf.extractall(unpacked)
    again = tmp_path / "again.zip"
    with zipfile.ZipFile(again, "w") as zf:
        for folder, _dirs, names in os.walk(unpacked):
            rel = os.path.relpath(folder, unpacked)
            if rel != ".":
                zf.write(folder, rel + "/")
            for name in names:
                zf.write(os.path.join(folder, name), os.path.normpath(os.path.join(rel, name)))
    assert main(["bundle", "verify", str(again)]) == 0
    assert main(["bundle", "import", str(again), "--store", str(tmp_path / "b")]) == 0
    orig, imported = src.run(rid), Store(tmp_path / "b").run(1)
    assert (imported.created, imported.finished) == (orig.created, orig.finished)


def test_store_under_a_file_and_read_verbs_without_a_store_are_one_line_errors(tmp_path, capsys):
    afile = tmp_path / "file"
    afile.write_text("x")
    assert main(["runs", "--store", str(afile / "store")]) == 2
    assert main(["run", "t.py", "--store", str(afile / "store")]) == 2
    assert main(["runs", "--store", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "no evidence store at" in err
    assert not (tmp_path / "none").exists()


def test_malformed_bundles_are_reported_not_tracebacks(tmp_path, capsys):
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("manifest.json", "{not json")
    assert main(["bundle", "verify", str(bad)]) == 2
    assert "manifest.json: it is not JSON" in capsys.readouterr().err
    src = Store(tmp_path / "a")
    rid = _fill(src)
    assert (
        main(
            [
                "bundle",
                "export",
                str(rid),
                "-o",
                str(tmp_path / "no" / "x.zip"),
                "--store",
                str(tmp_path / "a"),
            ]
        )
        == 2
    )
    assert "does not exist" in capsys.readouterr().err


def test_an_internal_error_is_one_line_and_exit_4(tmp_path, monkeypatch, capsys):
    import torchparity.cli.store as cli_store

    def broken(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(cli_store.Store, "runs", broken)
    _fill(Store(tmp_path / "a"))
    assert main(["runs", "--store", str(tmp_path / "a")]) == 4
    err = capsys.readouterr().err
    assert "ERROR: internal error: RuntimeError: simulated bug" in err and "Traceback" not in err
