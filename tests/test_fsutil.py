"""atomic_write: content, mode (umask, not mkstemp's 0600), same-folder rename, no temp file left on failure."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from torchparity.fsutil import atomic_write, current_umask


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    os.umask(old)
    yield
    os.umask(old)


def mode_of(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_writes_str_as_utf8_and_bytes_as_given(tmp_path: Path) -> None:
    p = tmp_path / "page.md"
    atomic_write(p, "支持\r\nline\n")
    assert p.read_bytes() == "支持\r\nline\n".encode()
    atomic_write(p, b"\xef\xbb\xbfbom")
    assert p.read_bytes() == b"\xef\xbb\xbfbom"
    assert [x.name for x in tmp_path.iterdir()] == ["page.md"]


@pytest.mark.parametrize(("mask", "want"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_new_file_mode_follows_the_umask(tmp_path: Path, umask: None, mask: int, want: int) -> None:
    os.umask(mask)
    assert current_umask() == mask
    p = tmp_path / "new.json"
    atomic_write(p, "{}")
    assert mode_of(p) == want


def test_mode_given_wins_and_replaces_an_existing_file(tmp_path: Path, umask: None) -> None:
    os.umask(0o022)
    p = tmp_path / "run.sh"
    p.write_text("old")
    os.chmod(p, 0o600)
    atomic_write(p, "new")  # no mode: a fresh file's mode, not the old one's and not mkstemp's 0600
    assert p.read_text() == "new" and mode_of(p) == 0o644
    atomic_write(p, "newer", mode=0o750)
    assert p.read_text() == "newer" and mode_of(p) == 0o750


def test_the_temp_file_sits_in_the_target_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, str]] = []
    real = os.replace

    def spy(src: str, dst: str) -> None:
        seen.append((str(src), str(dst)))
        real(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    p = tmp_path / "sub" / "x.txt"
    p.parent.mkdir()
    atomic_write(p, "x")
    ((src, dst),) = seen
    assert Path(src).parent == p.parent and Path(dst) == p and not Path(src).exists()


def test_a_failed_rename_leaves_no_temp_file_and_the_target_as_it_was(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    (target / "keep").write_text("k")
    with pytest.raises(OSError):
        atomic_write(target, "data")  # a non-empty folder cannot be replaced by a file
    assert sorted(x.name for x in tmp_path.iterdir()) == ["taken"]
    assert (target / "keep").read_text() == "k"


def test_a_failed_sync_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "page.md"
    p.write_text("old")

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError, match="Input/output"):
        atomic_write(p, "new")
    assert p.read_text() == "old"
    assert [x.name for x in tmp_path.iterdir()] == ["page.md"]


def test_a_missing_folder_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        atomic_write(tmp_path / "nope" / "x.txt", "x")
    assert list(tmp_path.iterdir()) == []
