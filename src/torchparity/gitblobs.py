"""Blob bytes straight from git's object store, through one ``git cat-file --batch`` process.

``BlobReader`` answers one blob at a time (a caller that decides what to read next from what it read);
``stream_blobs`` streams a known list, written to git beside the reading so that neither pipe fills
up and stalls it. Neither holds more than one blob's bytes.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from .errors import EnvironmentBroken


class BlobReader:
    """One ``git cat-file --batch`` process answering blob requests one at a time."""

    def __init__(self, repo: Path) -> None:
        try:
            self.proc = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except FileNotFoundError as exc:
            raise EnvironmentBroken("git is not installed or not on PATH; install git") from exc

    def read(self, blob: str) -> bytes | None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(blob.encode("ascii") + b"\n")
        self.proc.stdin.flush()
        return _answer(self.proc.stdout)

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        self.proc.wait()


def _answer(stream: object) -> bytes | None:
    header = stream.readline().split()  # type: ignore[attr-defined]
    if len(header) < 3 or header[1] == b"missing":
        return None
    size = int(header[2])
    data = stream.read(size)  # type: ignore[attr-defined]
    stream.read(1)  # type: ignore[attr-defined]  # the newline after the content
    return bytes(data)


def stream_blobs(repo: Path, blobs: Sequence[str]) -> Iterator[tuple[str, bytes | None]]:
    """(blob id, bytes or None when missing) for each of ``blobs``, in order, from one process."""
    if not blobs:
        return
    try:
        proc = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise EnvironmentBroken("git is not installed or not on PATH; install git") from exc
    assert proc.stdin is not None and proc.stdout is not None
    stdin = proc.stdin

    def feed() -> None:
        try:
            for blob in blobs:
                stdin.write(blob.encode("ascii") + b"\n")
            stdin.close()
        except OSError:  # the reader stopped early
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for blob in blobs:
            yield blob, _answer(proc.stdout)
    finally:
        proc.stdout.close()
        proc.kill()
        proc.wait()
        writer.join()
