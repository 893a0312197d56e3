"""A store whose ``store.sqlite`` is not a file (a folder, a FIFO) is a damaged store: exit 3 naming the
path, for the verbs that read and for those that write; never "no evidence store here" (exit 2), which
is for a store that is not there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from torchparity.cli import main


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_store_database_that_is_not_a_file_is_exit_3_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    root = tmp_path / ".torchparity"
    root.mkdir()
    db = root / "store.sqlite"
    if kind == "folder":
        db.mkdir()
        what = "is a folder"
    else:
        os.mkfifo(db)
        what = "is a FIFO"
    for argv in (
        ["runs"],
        ["show", "1"],
        ["report", "1", "--kind", "json"],
        ["bundle", "import", str(tmp_path / "missing.zip")],
    ):
        code = main([*argv, "--store", str(root)])
        err = capsys.readouterr().err.strip()
        if argv[0] == "bundle":
            assert code == 2 and "bundle not found" in err, err  # the bundle is looked at first
            continue
        assert code == 3, (argv, err)
        assert err.count("\n") == 0 and f"{db} {what}" in err, err
        assert "no evidence store" not in err
    zip_path = tmp_path / "b.zip"
    zip_path.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip: read, then the store is opened
    code = main(["bundle", "import", str(zip_path), "--store", str(root)])
    err = capsys.readouterr().err.strip()
    assert code in (2, 3) and "Traceback" not in err, err


def test_a_missing_store_is_still_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["runs", "--store", str(tmp_path / "none")]) == 2
    assert "no evidence store at" in capsys.readouterr().err
