"""The store: SQLite (WAL) for runs, targets and records; blobs for evidence bytes.

Layout under the store folder (``.torchparity/`` by default)::

    store.sqlite        runs, targets, records, cache (schema version in user_version)
    blobs/ab/abcd...    evidence logs and JSON records, named by their SHA-256

Other parts add their own tables through ``Store.ensure_schema`` (e.g. the
coverage index's blob cache); nothing outside this package speaks SQL to
tables it does not own.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StoreCorrupt, UsageError
from .blobs import BlobStore

SCHEMA_VERSION = 1
DEFAULT_STORE = ".torchparity"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    kind      TEXT NOT NULL,               -- run | verify | ...
    created   REAL NOT NULL,
    finished  REAL,
    status    TEXT NOT NULL,               -- running | complete | incomplete
    result    TEXT,                        -- PASS | FAIL | ERROR (NULL while running)
    argv      TEXT NOT NULL,               -- JSON list: how the run was asked for
    summary   TEXT NOT NULL DEFAULT '{}'   -- JSON: what the run's verb wants to keep
);
CREATE TABLE IF NOT EXISTS targets (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id      INTEGER NOT NULL REFERENCES runs(id),
    label       TEXT NOT NULL,             -- ref@env, unique within a run
    ref         TEXT NOT NULL,
    env         TEXT NOT NULL,
    result      TEXT NOT NULL,             -- PASS | FAIL | ERROR | INCOMPLETE
    log_sha     TEXT,                      -- the evidence log (blob)
    record_sha  TEXT,                      -- the JSON record (blob)
    finished    REAL NOT NULL,
    UNIQUE (run_id, label)
);
CREATE TABLE IF NOT EXISTS records (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id    INTEGER REFERENCES runs(id),
    kind      TEXT NOT NULL,               -- resolve | coverage | docs-check | checklist | ...
    key       TEXT NOT NULL,               -- e.g. the API name
    created   REAL NOT NULL,
    sha       TEXT NOT NULL                -- the JSON document (blob)
);
CREATE INDEX IF NOT EXISTS records_by_kind ON records(kind, key);
"""


@dataclass(frozen=True)
class RunRow:
    id: int
    kind: str
    created: float
    finished: float | None
    status: str
    result: str | None
    argv: list[str]
    summary: dict[str, Any]

    @property
    def uid(self) -> str:
        """The run's name in texts and bundles; runs made before uids existed are named by id."""
        return str(self.summary.get("uid") or f"run-{self.id}")

    @property
    def orphaned(self) -> bool:
        """Still 'running', but the process that ran it on this host is gone (killed, lost)."""
        s = self.summary
        return (self.status == "running" and s.get("host") == socket.gethostname()
                and isinstance(s.get("pid"), int) and not _alive(s["pid"]))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True)
class TargetRow:
    id: int
    run_id: int
    label: str
    ref: str
    env: str
    result: str
    log_sha: str | None
    record_sha: str | None
    finished: float


class Store:
    """One evidence store folder. Safe to use from several threads (a connection each)."""

    def __init__(self, root: str | Path = DEFAULT_STORE, *, create: bool = True) -> None:
        """``create=False`` for verbs that only read: a missing store is then an error, not a new one."""
        self.root = Path(root).absolute()
        self.create = create
        self.blobs = BlobStore(self.root / "blobs")
        self._local = threading.local()
        self._schemas_done: set[str] = set()
        self._lock = threading.Lock()

    # -- connection -------------------------------------------------------------------
    @property
    def db_path(self) -> Path:
        return self.root / "store.sqlite"

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self.root.exists() and not self.root.is_dir():
                raise UsageError(f"store path {self.root} is not a folder; pass --store DIR")
            if not self.create and not self.db_path.is_file():
                raise UsageError(
                    f"no evidence store at {self.root}; run 'torchparity run' or 'torchparity verify' "
                    "here first, or pass --store DIR"
                )
            if not self.root.exists():
                try:
                    self.root.mkdir(parents=True)
                except OSError as exc:
                    raise UsageError(f"cannot make the store folder {self.root}: {exc.strerror}; pass --store DIR") from exc
                # evidence is not source: git ignores the store wherever it is made
                (self.root / ".gitignore").write_text("# made by torchparity: the evidence store\n*\n")
            try:
                conn = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA foreign_keys=ON")
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise StoreCorrupt(
                        f"store {self.db_path} has schema version {version}, newer than this "
                        f"torchparity understands ({SCHEMA_VERSION}); upgrade torchparity"
                    )
                conn.executescript(_SCHEMA)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            except sqlite3.DatabaseError as exc:
                raise StoreCorrupt(
                    f"cannot open the store database {self.db_path}: {exc}; "
                    "move it aside or pass another --store"
                ) from exc
            self._local.conn = conn
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreCorrupt(f"cannot write the store {self.db_path}: {exc}") from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreCorrupt(f"writing the store {self.db_path} failed: {exc}") from exc
            raise

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        conn = self._conn()
        conn.row_factory = sqlite3.Row
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreCorrupt(f"store query failed on {self.db_path}: {exc}") from exc

    def ensure_schema(self, name: str, ddl: str) -> None:
        """Let a part of torchparity create the tables it owns (idempotent)."""
        with self._lock:
            if name in self._schemas_done:
                return
            self._conn().executescript(ddl)
            self._schemas_done.add(name)

    # -- runs -----------------------------------------------------------------------
    def new_run(self, kind: str, argv: list[str], created: float | None = None, uid: str | None = None) -> int:
        # where and by whom: a resume starts from the same folder; a dead run is told from a live one;
        # the uid names the run in texts and bundles (the id is only this store's number)
        origin = {"cwd": os.getcwd(), "pid": os.getpid(), "host": socket.gethostname(),
                  "uid": uid or uuid.uuid4().hex}
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO runs(kind, created, status, argv, summary) VALUES (?, ?, 'running', ?, ?)",
                (kind, time.time() if created is None else created, json.dumps(argv), json.dumps(origin)),
            )
            return int(cur.lastrowid or 0)

    def reopen_run(self, run_id: int) -> None:
        """An interrupted run is resumed: it is running again until it finishes."""
        with self.transaction() as conn:
            conn.execute("UPDATE runs SET status='running', finished=NULL, result=NULL WHERE id=?", (run_id,))

    def finish_run(
        self, run_id: int, result: str, *, status: str = "complete", summary: dict[str, Any] | None = None,
        finished: float | None = None,
    ) -> None:
        with self.transaction() as conn:
            row = conn.execute("SELECT summary FROM runs WHERE id=?", (run_id,)).fetchone()
            merged = json.loads(row[0] or "{}") if row else {}
            merged.update(summary or {})
            conn.execute(
                "UPDATE runs SET finished=?, status=?, result=?, summary=? WHERE id=?",
                (time.time() if finished is None else finished, status, result,
                 json.dumps(merged, ensure_ascii=False), run_id),
            )

    def add_target(
        self, run_id: int, *, label: str, ref: str, env: str, result: str, log: bytes, record: dict[str, Any]
    ) -> TargetRow:
        """Store one target's evidence log and JSON record (blobs first, then the row)."""
        log_sha = self.blobs.put(log)
        record = dict(record, log_sha256=log_sha)
        record_sha = self.blobs.put(json.dumps(record, indent=2, ensure_ascii=False).encode("utf-8"))
        now = time.time()
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT OR REPLACE INTO targets(run_id, label, ref, env, result, log_sha, record_sha, finished)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, label, ref, env, result, log_sha, record_sha, now),
            )
            tid = int(cur.lastrowid or 0)
        return TargetRow(tid, run_id, label, ref, env, result, log_sha, record_sha, now)

    def runs(self, limit: int = 50) -> list[RunRow]:
        rows = self.query("SELECT * FROM runs ORDER BY id DESC LIMIT ?", (limit,))
        return [self._run_row(r) for r in rows]

    def run(self, run_id: int | str) -> RunRow:
        """The run with this id (a number) or uid (its hex name in texts and bundles, or a prefix of it)."""
        text = str(run_id).lstrip("#")
        if not text.isdigit() and re.fullmatch(r"[0-9a-f]{6,32}", text):
            return self._run_by_uid(text)
        try:
            rid = int(text)
        except ValueError:
            raise UsageError(f"run must be an id or a uid, got {run_id!r}; see 'torchparity runs'") from None
        rows = self.query("SELECT * FROM runs WHERE id=?", (rid,))
        if not rows:
            raise UsageError(f"no run {rid} in store {self.root}; see 'torchparity runs'")
        return self._run_row(rows[0])

    def _run_by_uid(self, prefix: str) -> RunRow:
        rows = [self._run_row(r) for r in self.query(
            "SELECT * FROM runs WHERE summary LIKE ? ORDER BY id", (f'%"uid": "{prefix}%',))]
        rows = [r for r in rows if r.uid.startswith(prefix)]
        if not rows:
            raise UsageError(f"no run with uid {prefix} in store {self.root}; see 'torchparity runs'")
        if len({r.uid for r in rows}) > 1:
            raise UsageError(f"uid {prefix} names {len(rows)} runs; give more of it")
        return rows[-1]

    def targets(self, run_id: int) -> list[TargetRow]:
        rows = self.query("SELECT * FROM targets WHERE run_id=? ORDER BY id", (run_id,))
        return [TargetRow(**dict(r)) for r in rows]


    @staticmethod
    def _run_row(r: sqlite3.Row) -> RunRow:
        return RunRow(
            id=r["id"], kind=r["kind"], created=r["created"], finished=r["finished"],
            status=r["status"], result=r["result"], argv=json.loads(r["argv"]),
            summary=json.loads(r["summary"] or "{}"),
        )

    # -- records (resolve, coverage, docs check, ... as JSON documents) ---------------------
    def put_record(self, kind: str, key: str, doc: dict[str, Any], run_id: int | None = None) -> str:
        sha = self.blobs.put(json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True).encode("utf-8"))
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO records(run_id, kind, key, created, sha) VALUES (?, ?, ?, ?, ?)",
                (run_id, kind, key, time.time(), sha),
            )
        return sha

    def latest_record(self, kind: str, key: str, run_id: int | None = None) -> dict[str, Any] | None:
        if run_id is None:
            rows = self.query(
                "SELECT sha FROM records WHERE kind=? AND key=? ORDER BY id DESC LIMIT 1", (kind, key)
            )
        else:
            rows = self.query(
                "SELECT sha FROM records WHERE kind=? AND key=? AND run_id=? ORDER BY id DESC LIMIT 1",
                (kind, key, run_id),
            )
        if not rows:
            return None
        return json.loads(self.blobs.read(rows[0]["sha"]))

    def records(self, run_id: int) -> list[tuple[str, str, dict[str, Any]]]:
        rows = self.query("SELECT kind, key, sha FROM records WHERE run_id=? ORDER BY id", (run_id,))
        return [(r["kind"], r["key"], json.loads(self.blobs.read(r["sha"]))) for r in rows]

    def read_json(self, sha: str) -> dict[str, Any]:
        return json.loads(self.blobs.read(sha))
