"""Opening the store's SQLite file: writable (WAL), or read-only where the folder or file cannot be written.

A read-only store still answers the verbs that only read (``runs``, ``show``,
``report``, ``bundle export``); a verb that writes is told the store is read-only,
naming the path. SQLite's own errors become one line each: disk full and
read-only are named as such, anything else is a damaged store.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from ..errors import EnvironmentBroken, StoreCorrupt, TorchparityError

# SQLite's primary result codes (sqlite3.h)
_SQLITE_READONLY = 8
_SQLITE_FULL = 13
_SQLITE_CANTOPEN = 14


def read_only_reason(root: Path, db_path: Path) -> str | None:
    """Why the store cannot be written (None when it can): SQLite needs the folder for its journal."""
    if not os.access(root, os.W_OK):
        return f"its folder {root} is not writable"
    if db_path.exists() and not os.access(db_path, os.W_OK):
        return f"its database {db_path} is not writable"
    return None


def read_only_error(root: Path, reason: str, doing: str) -> EnvironmentBroken:
    return EnvironmentBroken(
        f"the evidence store at {root} is read-only ({reason}): cannot {doing}; "
        "make it writable or pass --store DIR"
    )


def connect_read_only(db_path: Path) -> sqlite3.Connection:
    """Open ``db_path`` for reading without writing anything next to it.

    ``mode=ro`` reads a WAL database whose ``-shm``/``-wal`` files are there; a store closed
    cleanly has none and cannot get them in a read-only folder, so ``immutable=1`` then.
    """
    uri = "file:" + quote(str(db_path))
    last: sqlite3.Error | None = None
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(f"{uri}?{flags}", uri=True, timeout=30, isolation_level=None)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.Error as exc:
            last = exc
    raise StoreCorrupt(
        f"cannot open the store database {db_path} (read-only): {last}; "
        "move it aside or pass another --store"
    )


def sql_error(exc: sqlite3.Error, db_path: Path, doing: str) -> TorchparityError:
    """One line for a failed SQLite call: disk full and read-only by name, the rest as a damaged store."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc)
    if primary == _SQLITE_FULL or "disk is full" in text:
        return EnvironmentBroken(
            f"cannot write the evidence store at {db_path} while {doing}: no space left "
            "on the device; nothing of this write was kept; free some space (or pass "
            "--store DIR on another disk) and run again"
        )
    if primary == _SQLITE_READONLY or "readonly database" in text:
        return read_only_error(db_path.parent, f"{text}", doing)
    if primary == _SQLITE_CANTOPEN and not os.access(db_path.parent, os.W_OK):
        return read_only_error(
            db_path.parent, f"its folder {db_path.parent} is not writable", doing
        )
    return StoreCorrupt(
        f"the store database {db_path} failed while {doing}: {text}; "
        "move it aside or pass another --store"
    )
