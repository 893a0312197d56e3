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
from typing import IO

from .errors import EnvironmentBroken, UsageError


class BlobReader:
    """One ``git cat-file --batch`` process answering blob requests one at a time."""

    def __init__(self, repo: Path) -> None:
        self.proc = _cat_file(repo, stderr=subprocess.DEVNULL)

    def read(self, blob: str) -> bytes | None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(blob.encode("ascii") + b"\n")
        self.proc.stdin.flush()
        try:
            return _answer(self.proc.stdout)
        except EOFError:  # git ended: nothing more to read
            return None

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        self.proc.wait()


def _cat_file(repo: Path, stderr: int) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            ["git", "-C", str(repo), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    except FileNotFoundError as exc:
        raise EnvironmentBroken("git is not installed or not on PATH; install git") from exc


def _answer(stream: IO[bytes]) -> bytes | None:
    """One answer's bytes (None: the blob is missing); EOFError when git answers no more."""
    line = stream.readline()
    if not line:
        raise EOFError
    header = line.split()
    if len(header) < 3 or header[1] == b"missing":
        return None
    size = int(header[2])
    data = stream.read(size)
    stream.read(1)  # the newline after the content
    return bytes(data)


def stream_blobs(repo: Path, blobs: Sequence[str]) -> Iterator[tuple[str, bytes | None]]:
    """(blob id, bytes or None when missing) for each of ``blobs``, in order, from one process; a git
    that ends before answering them all (a broken repository) is one line, not empty blobs."""
    if not blobs:
        return
    proc = _cat_file(repo, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdin = proc.stdin

    def feed() -> None:
        try:
            for blob in blobs:
                stdin.write(blob.encode("ascii") + b"\n")
        except OSError:  # the reader stopped early, or git ended
            pass
        finally:
            try:
                stdin.close()
            except OSError:
                pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    answered = 0
    try:
        for blob in blobs:
            try:
                data = _answer(proc.stdout)
            except EOFError:
                break
            answered += 1
            yield blob, data
    finally:
        proc.stdout.close()
        if answered < len(blobs):
            proc.kill()
        writer.join()
        err = proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
        proc.stderr.close()
        code = proc.wait()
    if answered < len(blobs):
        why = err[-1] if err else f"exit {code}"
        raise UsageError(
            f"git cat-file --batch in {repo} ended after {answered} of {len(blobs)} blobs ({why}); "
            "check the repository (git fsck)"
        )
