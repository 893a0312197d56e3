"""Evidence store: SQLite records plus content-addressed evidence files."""

from .blobs import BlobStore, sha256_bytes, sha256_file
from .db import DEFAULT_STORE, RunRow, Store, TargetRow

__all__ = ["DEFAULT_STORE", "BlobStore", "RunRow", "Store", "TargetRow", "sha256_bytes", "sha256_file"]
