"""Evidence store: SQLite records plus content-addressed evidence files."""

from .blobs import BlobStore, sha256_bytes, sha256_file
from .db import DEFAULT_STORE, RunRow, Store, TargetRow
from .records import keep, put, read_run

__all__ = [
    "DEFAULT_STORE",
    "BlobStore",
    "RunRow",
    "Store",
    "TargetRow",
    "keep",
    "put",
    "read_run",
    "sha256_bytes",
    "sha256_file",
]
