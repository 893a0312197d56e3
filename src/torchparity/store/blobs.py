"""Content-addressed files: every evidence log and record is stored under its SHA-256."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from ..errors import StoreCorrupt, UsageError


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class BlobStore:
    """``root/ab/abcdef...``: write once, atomically; read back with a hash check."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sha: str) -> Path:
        return self.root / sha[:2] / sha

    def put(self, data: bytes) -> str:
        sha = sha256_bytes(data)
        target = self.path(sha)
        if target.exists():
            return sha
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return sha

    def read(self, sha: str, *, verify: bool = True) -> bytes:
        """The bytes stored under ``sha``; raises ``StoreCorrupt`` if they no longer match."""
        target = self.path(sha)
        if not target.is_file():
            raise UsageError(f"no stored evidence with sha256 {sha} under {self.root}")
        data = target.read_bytes()
        if verify:
            actual = sha256_bytes(data)
            if actual != sha:
                raise StoreCorrupt(
                    f"stored evidence {target} is corrupt: its bytes hash to {actual}, "
                    f"not {sha}; it cannot be shown as valid (restore it from a bundle or re-run)"
                )
        return data
