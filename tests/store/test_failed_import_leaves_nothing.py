"""A bundle import that fails leaves nothing behind: into a store that was not there, no store is made
(no folder, no empty database); into an empty folder, the folder stays empty; into a store that was
there, it keeps what it had, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.store.evidence import fill, manifest, read_zip, write_zip
from torchparity.cli import main
from torchparity.store import Store


@pytest.fixture
def store_contents():
    return fill


def _tampered(store: Store, tmp_path: Path) -> Path:
    good = tmp_path / "good.zip"
    assert main(["bundle", "export", "1", "2", "-o", str(good), "--store", str(store.root)]) == 0
    entries = read_zip(good)
    doc = manifest(entries)
    doc["runs"][1]["result"] = "PASS"  # run 2 now disagrees with its seal: tampered, exit 3
    entries["manifest.json"] = json.dumps(doc, indent=2).encode()
    return write_zip(tmp_path / "tampered.zip", entries)


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_a_failed_import_into_a_new_store_makes_no_store(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _tampered(store, tmp_path)
    new = tmp_path / "new" / ".torchparity"
    new.parent.mkdir()
    assert main(["bundle", "import", str(bad), "--store", str(new)]) == 3
    assert "does not verify" in capsys.readouterr().err
    assert not new.exists()
    assert main(["runs", "--store", str(new)]) == 2  # still no store: "no evidence store at ..."


def test_a_failed_import_into_an_empty_folder_leaves_it_empty(store: Store, tmp_path: Path) -> None:
    bad = _tampered(store, tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["bundle", "import", str(bad), "--store", str(empty)]) == 3
    assert empty.is_dir() and list(empty.iterdir()) == []


def test_a_failed_import_into_a_store_keeps_what_it_had(store: Store, tmp_path: Path) -> None:
    bad = _tampered(store, tmp_path)
    other = Store(tmp_path / "other")
    fill(other)
    before = _files(other.root)
    assert main(["bundle", "import", str(bad), "--store", str(other.root)]) == 3
    after = _files(other.root)
    assert {k: v for k, v in after.items() if not k.startswith("store.sqlite")} == {
        k: v for k, v in before.items() if not k.startswith("store.sqlite")
    }
    assert [r.id for r in Store(other.root).runs()] == [2, 1]
