"""Blobs read one at a time from ``git cat-file --batch``: every blob, in order, and nothing stalls."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.coverage.conftest import RepoFactory
from torchparity.coverage.gitobjects import list_tree, read_blobs
from torchparity.errors import UsageError
from torchparity.gitblobs import BlobReader, stream_blobs


def test_each_blob_comes_with_its_bytes(cov_repo: RepoFactory) -> None:
    repo = cov_repo(
        {"master": {"test/a.py": "a = 1\n", "test/b.bin": b"\x00\x01\n\n", "test/c.py": ""}}
    )
    blobs = [e.blob for e in list_tree(repo, "master", ["test"])]
    assert list(stream_blobs(repo, blobs)) == list(read_blobs(repo, blobs).items())
    assert [data for _, data in stream_blobs(repo, blobs)] == [b"a = 1\n", b"\x00\x01\n\n", b""]
    reader = BlobReader(repo)
    assert [reader.read(b) for b in reversed(blobs)] == [b"", b"\x00\x01\n\n", b"a = 1\n"]
    reader.close()


def test_many_missing_blobs_come_as_none_without_a_stall(cov_repo: RepoFactory) -> None:
    """More names and answers than a pipe holds (about 120 KB each way): git is fed while it is read."""
    repo = cov_repo({"master": {"test/a.py": "a = 1\n"}})
    real = list_tree(repo, "master", ["test"])[0].blob
    absent = [f"{i:040x}" for i in range(1, 3001)]
    got = dict(stream_blobs(repo, [*absent[:1500], real, *absent[1500:]]))
    assert got.pop(real) == b"a = 1\n"
    assert len(got) == 3000 and set(got.values()) == {None}


def test_a_reader_that_stops_early_leaves_no_git_running(cov_repo: RepoFactory) -> None:
    repo = cov_repo({"master": {f"test/f{i}.py": f"x = {i}\n" for i in range(50)}})
    blobs = [e.blob for e in list_tree(repo, "master", ["test"])]
    it = stream_blobs(repo, blobs)
    assert next(it)[1].startswith(b"x = ")  # type: ignore[union-attr]
    it.close()
    ps = subprocess.run(["pgrep", "-f", f"git -C {repo} cat-file"], capture_output=True, text=True)
    assert ps.stdout.strip() == ""


def test_a_git_that_ends_before_answering_is_one_line_not_empty_blobs(tmp_path: Path) -> None:
    """(Here: no repository at all.) The reader says so instead of taking every blob as empty."""
    with pytest.raises(UsageError) as info:
        list(stream_blobs(tmp_path, ["0" * 40, "1" * 40]))
    msg = str(info.value)
    assert "\n" not in msg and "ended after 0 of 2 blobs (fatal: not a git repository" in msg
    assert msg.endswith("check the repository (git fsck)")
    with pytest.raises(UsageError):
        read_blobs(tmp_path, ["0" * 40])
