"""A bundle whose ``manifest.json`` does not match its own zip header (CRC, length) is damaged evidence:
``bundle verify`` and ``bundle import`` exit 3 with one line naming it, as for any other entry, and the
import leaves nothing behind. (A zip that cannot be read as a bundle at all stays bad input, exit 2.)"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from tests.store.evidence import fill, read_zip
from tests.store.zipcraft import RawEntry, write_raw_zip
from torchparity.cli import main
from torchparity.store import Store


@pytest.fixture
def store_contents():
    return fill


def _with_a_bad_crc(store: Store, tmp_path: Path) -> Path:
    good = tmp_path / "good.zip"
    assert main(["bundle", "export", "1", "-o", str(good), "--store", str(store.root)]) == 0
    entries = []
    for name, data in read_zip(good).items():
        crc = zlib.crc32(data)
        if name == "manifest.json":
            data = data.replace(
                b'"status": "complete"', b'"status": "COMPLETE"'
            )  # one byte, same length
            assert zlib.crc32(data) != crc
        entries.append(
            RawEntry(name, data, crc, len(data), method=0)
        )  # stored: the bytes as they are
    return write_raw_zip(tmp_path / "bad-crc.zip", entries)


def test_a_manifest_with_a_bad_crc_is_exit_3_for_verify_and_import(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _with_a_bad_crc(store, tmp_path)
    capsys.readouterr()
    assert main(["bundle", "verify", str(bad)]) == 3
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("ERROR: "), err
    assert "manifest.json" in err and "CRC" in err and str(bad) in err, err
    into = tmp_path / "new-store"
    assert main(["bundle", "import", str(bad), "--store", str(into)]) == 3
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "manifest.json" in err, err
    assert not into.exists()
