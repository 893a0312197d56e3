"""``report --out PATH`` writes a regular file, or through a symlink to one; anything else is refused.

A FIFO, a device node, a folder, a symlink to any of them or to nothing is bad input (exit 2, one line
naming PATH and what it is), and is left as it was. A symlink to a regular file stays a symlink: the
file it names gets the report. An existing regular file is replaced whole (atomically).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.store.evidence import fill
from torchparity.cli import main
from torchparity.store import Store


@pytest.fixture
def store_contents():
    return fill


def _report(store: Store, out: Path) -> int:
    return main(["report", "1", "--kind", "json", "--out", str(out), "--store", str(store.root)])


def _refused(capsys: pytest.CaptureFixture[str], what: str) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("ERROR: --out "), err
    assert what in err, err
    return err


def test_a_fifo_is_refused_and_stays_a_fifo(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert _report(store, fifo) == 2
    _refused(capsys, "is a FIFO")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_device_node_is_refused(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("device nodes cannot be made here (no CAP_MKNOD)")
    assert _report(store, node) == 2
    _refused(capsys, "is a character device")
    assert stat.S_ISCHR(node.lstat().st_mode)


@pytest.mark.parametrize(
    ("target", "what"),
    [
        ("/dev/null", "a character device"),
        ("fifo", "a FIFO"),
        ("folder", "a folder"),
        ("missing", "names nothing"),
    ],
)
def test_a_symlink_to_anything_but_a_regular_file_is_refused_and_kept(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, what: str
) -> None:
    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")
    elif target == "folder":
        (tmp_path / "folder").mkdir()
    link = tmp_path / "report.json"
    link.symlink_to(target if target.startswith("/") else tmp_path / target)
    assert _report(store, link) == 2
    _refused(capsys, what)
    assert link.is_symlink() and os.readlink(link) == (
        target if target.startswith("/") else str(tmp_path / target)
    )


def test_a_folder_is_refused(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    assert _report(store, folder) == 2
    _refused(capsys, "is a folder")
    assert folder.is_dir() and not list(folder.iterdir())


def test_a_symlink_to_a_regular_file_is_written_through(store: Store, tmp_path: Path) -> None:
    real = tmp_path / "real" / "report.json"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "report.json"
    link.symlink_to(real)
    assert _report(store, link) == 0
    assert link.is_symlink() and link.resolve() == real
    assert json.loads(real.read_text())["conclusion"]["result"] == "PASS"
    assert not [p for p in real.parent.iterdir() if p != real]  # no temporary file left


def test_a_regular_file_is_replaced_and_a_new_one_made(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    out.write_text("old\n")
    assert _report(store, out) == 0
    assert json.loads(out.read_text())["conclusion"]["result"] == "PASS"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".report.json")] == []
    new = tmp_path / "new.json"
    assert _report(store, new) == 0 and new.is_file()
