"""Content-addressed files: every evidence log and record is stored under its SHA-256.

Blobs are written once (a temporary file renamed into place) and checked against
their name whenever they are read. A missing blob, a blob whose bytes changed and a
name that is not a SHA-256 are all exit 3 (the store is damaged or was edited).

A blob is read only from a regular file (a symlink to one is followed), and no further
than the size the file had when it was opened: a FIFO, a device such as ``/dev/zero`` or
a folder put in a blob's place is exit 3 naming it, never a reader that waits or reads
forever.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..errors import EnvironmentBroken, EvidenceTampered, StoreCorrupt
from ..fsutil import file_kind

CHUNK = 1 << 20
_SHA = re.compile(r"[0-9a-f]{64}")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def is_sha256(text: object) -> bool:
    return isinstance(text, str) and _SHA.fullmatch(text) is not None


def write_error(exc: OSError, path: Path | str, doing: str) -> EnvironmentBroken:
    """One line for a failed write into the store: disk full and read-only named as such."""
    code = exc.errno
    if code in (errno.ENOSPC, errno.EDQUOT):
        what = "no space left on the device"
        hint = "free some space (or pass --store DIR on another disk) and run again"
    elif code in (errno.EROFS, errno.EACCES, errno.EPERM):
        what = (
            "the store is read-only"
            if code == errno.EROFS
            else "permission denied (the store is read-only for you)"
        )
        hint = "make it writable or pass --store DIR"
    else:
        what = exc.strerror or str(exc)
        hint = "check the disk and run again"
    return EnvironmentBroken(
        f"cannot write the evidence store at {path} while {doing}: {what}; "
        f"nothing of this write was kept; {hint}"
    )


class BlobStore:
    """``root/ab/abcdef...``: write once, atomically; read back with a hash check."""

    def __init__(self, root: Path) -> None:
        self.root = root
        #: sha -> (size, mtime_ns, inode) of blobs hashed in full by this process: checked once per change
        self._verified: dict[str, tuple[int, int, int]] = {}

    def path(self, sha: str) -> Path:
        if not is_sha256(sha):
            raise EvidenceTampered(
                f"the store's index names evidence {sha!r}, which is not a SHA-256 "
                f"(under {self.root}); the index was edited"
            )
        return self.root / sha[:2] / sha

    def exists(self, sha: str) -> bool:
        return self.path(sha).is_file()

    # -- writing ----------------------------------------------------------------------
    def put(self, data: bytes) -> str:
        """Store ``data``; returns its SHA-256 (nothing is written when the blob is there already)."""
        sha = sha256_bytes(data)
        if self.path(sha).is_file():
            return sha
        return self.put_stream([data], expect=sha)[0]

    def put_stream(self, chunks: Iterable[bytes], expect: str | None = None) -> tuple[str, bool]:
        """Store the bytes of ``chunks`` (hashed as they are written, never all in memory).

        Returns ``(sha256, created)``; ``created`` is False when the blob was there already.
        With ``expect``, bytes hashing to anything else are not kept (``EvidenceTampered``).
        """
        tmp = self.stage(chunks)
        try:
            sha = tmp[0]
            if expect is not None and sha != expect:
                raise EvidenceTampered(
                    f"evidence meant to be {expect} hashes to {sha}; it was not stored"
                )
            return sha, self.publish(tmp[1], sha)
        finally:
            Path(tmp[1]).unlink(missing_ok=True)

    def stage(self, chunks: Iterable[bytes], folder: Path | None = None) -> tuple[str, str]:
        """Write ``chunks`` to a temporary file (in ``folder``, default the blob root); ``(sha, path)``."""
        where = folder or self.root
        try:
            where.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=where, prefix=".tmp-")
        except OSError as exc:
            raise write_error(exc, where, "writing evidence") from exc
        h = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as fh:
                for chunk in chunks:
                    h.update(chunk)
                    fh.write(chunk)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise write_error(exc, tmp, "writing evidence") from exc
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return h.hexdigest(), tmp

    def publish(self, tmp: str, sha: str) -> bool:
        """Move a staged file into place as blob ``sha``; False (and the file dropped) when it exists."""
        target = self.path(sha)
        if target.is_file():
            Path(tmp).unlink(missing_ok=True)
            return False
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, target)
            st = target.stat()
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise write_error(exc, target, "writing evidence") from exc
        self._verified[sha] = (st.st_size, st.st_mtime_ns, st.st_ino)  # hashed as it was written
        return True

    def remove(self, sha: str) -> None:
        """Drop blob ``sha`` (an import that did not commit takes back what it added)."""
        with contextlib.suppress(OSError):
            self.path(sha).unlink()
        self._verified.pop(sha, None)

    # -- reading ----------------------------------------------------------------------
    def _missing(self, sha: str) -> StoreCorrupt:
        return StoreCorrupt(
            f"stored evidence {sha} is missing from {self.path(sha)} (deleted after it was written); "
            "the run it belongs to cannot be shown: restore the store from a backup or a bundle, or re-run"
        )

    def _changed(self, sha: str, actual: str) -> EvidenceTampered:
        return EvidenceTampered(
            f"stored evidence {self.path(sha)} is corrupt: it changed after it was written (edited or "
            f"damaged), its bytes hash to {actual}, not {sha}; it cannot be shown as valid (restore it "
            "from a bundle or re-run)"
        )

    def _not_regular(self, sha: str, mode: int) -> StoreCorrupt:
        return StoreCorrupt(
            f"stored evidence {sha} at {self.path(sha)} is {file_kind(mode)}, not a regular file (something was "
            "put in the blob's place); it is not read: restore the store from a backup or a bundle, or re-run"
        )

    def _open(self, sha: str) -> tuple[int, int]:
        """``(fd, size)`` of blob ``sha`` opened for reading: a regular file only (checked before opening,
        so that no FIFO or device is ever opened, and again on the open file, which is what is read)."""
        target = self.path(sha)
        try:
            st = os.stat(target)
            if not stat.S_ISREG(st.st_mode):
                raise self._not_regular(sha, st.st_mode)
            # O_NONBLOCK: were a FIFO swapped in after the check, opening it would not wait for a writer
            fd = os.open(
                target, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
            )
        except FileNotFoundError:
            raise self._missing(sha) from None
        except OSError as exc:
            raise StoreCorrupt(f"cannot read stored evidence {target}: {exc.strerror}") from exc
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise self._not_regular(sha, st.st_mode)
        except BaseException:
            os.close(fd)
            raise
        return fd, st.st_size

    def chunks(self, sha: str) -> Iterator[bytes]:
        """The bytes of blob ``sha``, a chunk at a time, no further than its size when opened (unchecked:
        the caller hashes them)."""
        fd, size = self._open(sha)
        try:
            left = size
            while left > 0:
                try:
                    chunk = os.read(fd, min(CHUNK, left))
                except OSError as exc:
                    raise StoreCorrupt(
                        f"cannot read stored evidence {self.path(sha)}: {exc.strerror}"
                    ) from exc
                if not chunk:
                    break
                left -= len(chunk)
                yield chunk
        finally:
            os.close(fd)

    def size(self, sha: str) -> int:
        """The size of blob ``sha`` (a regular file; exit 3 for anything else, as a read)."""
        fd, size = self._open(sha)
        os.close(fd)
        return size

    def read(self, sha: str, *, verify: bool = True) -> bytes:
        """The bytes stored under ``sha``; a missing or changed blob is exit 3."""
        data = b"".join(self.chunks(sha))
        if verify:
            actual = sha256_bytes(data)
            if actual != sha:
                raise self._changed(sha, actual)
        return data

    def verify(self, sha: str) -> int:
        """Check blob ``sha`` against its name (streamed, in chunks); returns its size."""
        target = self.path(sha)
        try:
            st = target.stat()
        except FileNotFoundError:
            raise self._missing(sha) from None
        except OSError as exc:
            raise StoreCorrupt(f"cannot read stored evidence {target}: {exc.strerror}") from exc
        if not stat.S_ISREG(st.st_mode):
            raise self._not_regular(sha, st.st_mode)
        key = (st.st_size, st.st_mtime_ns, st.st_ino)
        if self._verified.get(sha) == key:
            return st.st_size
        h = hashlib.sha256()
        for chunk in self.chunks(sha):
            h.update(chunk)
        actual = h.hexdigest()
        if actual != sha:
            raise self._changed(sha, actual)
        self._verified[sha] = key
        return st.st_size
