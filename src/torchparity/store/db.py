"""The store: SQLite (WAL) for runs, targets and records; blobs for evidence bytes.

Layout under the store folder (``.torchparity/`` by default)::

    store.sqlite        runs, targets, records, cache (schema version in user_version)
    blobs/ab/abcd...    evidence logs, JSON records and run seals, named by their SHA-256

The store checks itself: every read of a run (``run``, ``runs``, ``targets``,
``records``, ``record_rows``) compares each target row with its record (result, log
hash, label, run) and the run's rows (its ``runs`` row, its targets, its ``records``
rows) with the seal written when the run ended (``seal.py``); logs and records are
checked against their hashes. A disagreement raises ``EvidenceTampered`` (exit 3)
naming the run, the target or record and what disagrees, so no reader renders it.
Rows are added to a run only while it runs (a sealed run would disagree with its seal), and
only by the store that holds the run's lock (``runlock.py``): one writer per run, taken before
any work, dropped when the run is sealed or its writer dies.

Other parts add their own tables through ``Store.ensure_schema`` (e.g. the
coverage index's blob cache); nothing outside this package speaks SQL to
tables it does not own.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import socket
import sqlite3
import stat
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import EvidenceTampered, StoreCorrupt, TorchparityError, UsageError
from ..fsutil import file_kind
from .blobs import BlobStore, write_error
from .connect import connect_read_only, read_only_error, read_only_reason, sql_error
from .jsoncheck import ShapeError
from .runlock import RunLocks
from .seal import (
    SEAL_SCHEMA_1,
    RecordSeal,
    RunSeal,
    TargetSeal,
    differences,
    record_disagreements,
    summary_sha256,
)

#: 1: no seals; 2: runs sealed (targets); 3: seals name the run's records too
SCHEMA_VERSION = 3
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
    summary   TEXT NOT NULL DEFAULT '{}',  -- JSON: what the run's verb wants to keep
    seal_sha  TEXT                         -- the run's seal (blob), written when it ends
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

_FINISHED = ("complete", "incomplete")
#: what a store folder holds that the store itself makes
_STORE_FILES = (
    "store.sqlite",
    "store.sqlite-wal",
    "store.sqlite-shm",
    "store.sqlite-journal",
    "blobs",
    "locks",
    "work",
    ".gitignore",
)


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
    #: the SHA-256 of the run's seal (None while it runs)
    seal_sha: str | None = None
    #: for a running run, whether a writer holds its lock (``RunLocks.held``); None: not asked, or a run
    #: of a torchparity that took no lock
    held: bool | None = None

    @property
    def uid(self) -> str:
        """The run's name in texts and bundles; runs made before uids existed are named by id."""
        return str(self.summary.get("uid") or f"run-{self.id}")

    @property
    def orphaned(self) -> bool:
        """Still 'running', but no process works on it: its lock is free (its writer was killed or lost,
        whatever process now has the pid its row names), or, for a run that took no lock, the process that
        ran it on this host is gone."""
        if self.status != "running":
            return False
        if self.held is not None:
            return not self.held
        s = self.summary
        return (
            s.get("host") == socket.gethostname()
            and isinstance(s.get("pid"), int)
            and not _alive(s["pid"])
        )

    @property
    def origin_ids(self) -> set[int]:
        """The run ids its records may name: its own, and the one it had in the bundle it was imported from."""
        ids = {self.id}
        imported = self.summary.get("imported_from")
        if isinstance(imported, dict) and isinstance(imported.get("run"), int):
            ids.add(imported["run"])
        return ids


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
        #: the runs this store writes: one writer per run (``runlock.py``)
        self.locks = RunLocks(self.root)
        self._local = threading.local()
        self._schemas_done: set[str] = set()
        self._lock = threading.Lock()
        #: why the store cannot be written (None: it can); set when it is opened
        self.read_only: str | None = None

    # -- connection -------------------------------------------------------------------
    @property
    def db_path(self) -> Path:
        return self.root / "store.sqlite"

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
        return conn

    def _open(self) -> sqlite3.Connection:
        if self.root.exists() and not self.root.is_dir():
            raise UsageError(f"store path {self.root} is not a folder; pass --store DIR")
        self._check_db_file()
        if not self.create and not self.db_path.is_file():
            raise UsageError(
                f"no evidence store at {self.root}; run 'torchparity run' or 'torchparity verify' "
                "here first, or pass --store DIR"
            )
        if not self.root.exists():
            try:
                self.root.mkdir(parents=True)
                # evidence is not source: git ignores the store wherever it is made
                (self.root / ".gitignore").write_text(
                    "# made by torchparity: the evidence store\n*\n"
                )
            except OSError as exc:
                if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
                    raise write_error(exc, self.root, "making its folder") from exc
                raise UsageError(
                    f"cannot make the store folder {self.root}: {exc.strerror}; pass --store DIR"
                ) from exc
        reason = read_only_reason(self.root, self.db_path) if self.db_path.is_file() else None
        if reason is not None:
            return self._open_read_only(reason)
        try:
            conn = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
            version = self._version(conn)
            if version == 0:
                conn.executescript(_SCHEMA)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.Error as exc:
            raise sql_error(exc, self.db_path, "opening it") from exc
        self._local.conn = conn
        if 0 < version < SCHEMA_VERSION:
            self._migrate()
        return conn

    def _check_db_file(self) -> None:
        """A ``store.sqlite`` that is there but is no regular file (a folder, a FIFO, a link to nothing) is a
        damaged store (exit 3, naming it), not a missing one."""
        try:
            mode = os.stat(self.db_path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            if self.db_path.is_symlink():
                raise StoreCorrupt(
                    f"the store database {self.db_path} is a symlink that names nothing "
                    f"({os.readlink(self.db_path)}); move it aside or pass another --store"
                ) from None
            return
        except OSError as exc:
            raise StoreCorrupt(
                f"the store database {self.db_path} cannot be looked at ({exc.strerror}); "
                "move it aside or pass another --store"
            ) from None
        if not stat.S_ISREG(mode):
            raise StoreCorrupt(
                f"the store database {self.db_path} is {file_kind(mode)}, not a SQLite file; "
                "move it aside or pass another --store"
            )

    def close(self) -> None:
        """Close this thread's connection (the next use opens it again)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.conn = None
            conn.close()

    def discard_new(self, before: set[str] | None) -> None:
        """Take back a store this process made and did not keep (an import that failed): what a store is
        made of (database, blobs, locks, ...) that the folder did not hold before (``before``: its names
        then; None: the folder was not there, and goes if nothing else was put in it meanwhile)."""
        self.close()
        self.locks.release_all()
        if not self.root.is_dir():
            return
        for name in _STORE_FILES:
            entry = self.root / name
            if before is not None and name in before:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
        if before is None:
            with contextlib.suppress(OSError):
                self.root.rmdir()

    def _open_read_only(self, reason: str) -> sqlite3.Connection:
        conn = connect_read_only(self.db_path)
        try:
            version = self._version(conn)
        except sqlite3.Error as exc:
            raise sql_error(exc, self.db_path, "opening it") from exc
        if version < SCHEMA_VERSION:
            raise read_only_error(
                self.root,
                reason,
                f"upgrade it from schema {version} to {SCHEMA_VERSION} "
                "(made by an older torchparity; open it once where it can be written)",
            )
        self.read_only = reason
        self._local.conn = conn
        return conn

    def _version(self, conn: sqlite3.Connection) -> int:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreCorrupt(
                f"store {self.db_path} has schema version {version}, newer than this "
                f"torchparity understands ({SCHEMA_VERSION}); upgrade torchparity"
            )
        return version

    def _migrate(self) -> None:
        """Upgrade an older store, step by step, in one transaction.

        Schema 1 -> 2: runs get seals. A finished run whose targets agree with their records is
        sealed as it stands (the best an upgrade can do; the seal names its records as they are);
        one that disagrees is left unsealed, so reading it reports the disagreement.

        Schema 2 -> 3: seals name the run's records (kind, key, hash, in order); a schema-2 seal
        (``run-seal/1``) did not, so record rows edited before this upgrade cannot be told from the
        originals. A run whose rows agree with its old seal (run row, targets, each target with its
        record) is sealed again, records as they stand; one that disagrees keeps its old seal, so
        reading it reports the disagreement (and that its seal names no records), never a verdict."""
        with self.transaction() as conn:
            version = self._version(conn)
            if version >= SCHEMA_VERSION:
                return  # another process upgraded it meanwhile
            if version == 1:
                conn.execute("ALTER TABLE runs ADD COLUMN seal_sha TEXT")
                for r in self.query("SELECT * FROM runs WHERE status != 'running' ORDER BY id"):
                    try:
                        self._seal(conn, self._run_row(r))
                    except TorchparityError:
                        continue
            else:
                for r in self.query("SELECT * FROM runs WHERE seal_sha IS NOT NULL ORDER BY id"):
                    self._reseal_with_records(conn, self._run_row(r))
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _reseal_with_records(self, conn: sqlite3.Connection, row: RunRow) -> None:
        """Schema 2 -> 3 for one run: sealed again if its rows agree with its ``run-seal/1`` seal."""
        try:
            sealed = RunSeal.from_bytes(self.blobs.read(row.seal_sha or ""), "its seal")
        except (TorchparityError, ShapeError):
            return  # a missing or broken seal: reading the run says which
        if sealed.schema != SEAL_SCHEMA_1 or row.status not in _FINISHED:
            return
        targets = self._target_rows(row.id)
        try:
            for t in targets:
                self._check_target(row, t)
        except TorchparityError:
            return
        found = replace(self._seal_of(row, targets, self._record_seals(row.id)), records=None)
        if not differences(found, sealed):
            self._seal(conn, row)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; nested uses join the outer one (all of it commits, or none)."""
        conn = self._conn()
        if self.read_only is not None:
            raise read_only_error(self.root, self.read_only, "write to it")
        depth = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            try:
                yield conn
            finally:
                self._local.depth = depth
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise sql_error(exc, self.db_path, "starting a write") from exc
        self._local.depth = 1
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise sql_error(exc, self.db_path, "writing") from exc
            raise
        finally:
            self._local.depth = 0

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        conn = self._conn()
        conn.row_factory = sqlite3.Row
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise sql_error(exc, self.db_path, "reading") from exc

    def ensure_schema(self, name: str, ddl: str) -> None:
        """Let a part of torchparity create the tables it owns (idempotent)."""
        with self._lock:
            if name in self._schemas_done:
                return
            conn = self._conn()
            if self.read_only is None:
                try:
                    conn.executescript(ddl)
                except sqlite3.Error as exc:
                    raise sql_error(exc, self.db_path, f"creating the {name} tables") from exc
            self._schemas_done.add(name)

    def ensure_writable(self, doing: str) -> None:
        """Refuse a read-only store before any work (the message names the path and ``doing``)."""
        self._conn()
        if self.read_only is not None:
            raise read_only_error(self.root, self.read_only, doing)

    def _put_blob(self, data: bytes, doing: str) -> str:
        self.ensure_writable(doing)
        return self.blobs.put(data)

    # -- runs -----------------------------------------------------------------------
    def new_run(
        self, kind: str, argv: list[str], created: float | None = None, uid: str | None = None
    ) -> int:
        # where and by whom: a resume starts from the same folder; a dead run is told from a live one;
        # the uid names the run in texts and bundles (the id is only this store's number)
        origin = {
            "cwd": os.getcwd(),
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "uid": uid or uuid.uuid4().hex,
        }
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO runs(kind, created, status, argv, summary) VALUES (?, ?, 'running', ?, ?)",
                (
                    kind,
                    time.time() if created is None else created,
                    json.dumps(argv),
                    json.dumps(origin),
                ),
            )
            run_id = int(cur.lastrowid or 0)
            # its writer holds it from the start (before the row is seen) until it is sealed
            self.locks.acquire(run_id, own=True)
            return run_id

    def claim_run(self, run_id: int) -> None:
        """Hold run ``run_id`` for this store's writer until it ends, before any work on it (a resume): a
        run another process holds is refused (``UsageError`` naming its pid), and nothing is read or written."""
        self.ensure_writable(f"work on run {run_id}")
        self.locks.acquire(run_id, own=True)

    def release_run(self, run_id: int) -> None:
        """Let go of a run claimed (or made) and not finished: its writer gave up (a refused resume, an
        error before any stage); a later resume takes it. A no-op for a run not held."""
        self.locks.release(run_id, own=True)

    @contextmanager
    def hold_run(self, run_id: int) -> Iterator[None]:
        """Hold run ``run_id`` for a block of work (re-entrant within this store; refused when another holds it)."""
        with self.locks.hold(run_id):
            yield

    def _require_running(self, conn: sqlite3.Connection, run_id: int | None, what: str) -> None:
        """Rows are added to a run only while it runs: a sealed run would disagree with its seal."""
        if run_id is None:
            return
        row = conn.execute("SELECT status FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is not None and row[0] != "running":
            raise ValueError(
                f"cannot add {what} to run {run_id}: it is {row[0]} and sealed "
                "(reopen_run it first, or keep the rows in a run of their own)"
            )

    def reopen_run(self, run_id: int) -> None:
        """An interrupted run is resumed: it is running (and unsealed) again until it finishes.

        Its lock is taken first (``claim_run``; a run another process works on is refused untouched),
        then its evidence checked: a tampered run is not reopened (that would drop its seal). The row
        names this process as the one running it."""
        claimed = self.locks.owns(run_id)
        self.claim_run(run_id)
        try:
            row = self.run(run_id)
            summary = dict(row.summary, pid=os.getpid(), host=socket.gethostname())
            with self.transaction() as conn:
                conn.execute(
                    "UPDATE runs SET status='running', finished=NULL, result=NULL, seal_sha=NULL, "
                    "summary=? WHERE id=?",
                    (json.dumps(summary, ensure_ascii=False), run_id),
                )
        except BaseException:
            if not claimed:
                self.release_run(run_id)
            raise

    def finish_run(
        self,
        run_id: int,
        result: str,
        *,
        status: str = "complete",
        summary: dict[str, Any] | None = None,
        finished: float | None = None,
    ) -> str:
        """Close the run with its verdict and seal it (see ``seal.py``); returns the seal's SHA-256.

        The run is checked first (a sealed run against its seal, as every read checks it; its targets
        against their records): evidence that disagrees is not sealed, and closing a run again (verify
        names its output files after the reports are written) cannot launder an edit."""
        if status not in _FINISHED:
            raise ValueError(f"a finished run is complete or incomplete, not {status!r}")
        # only the run's writer seals it: a run another process works on is refused, never sealed under it
        with self.hold_run(run_id), self.transaction() as conn:
            before = self._get_run(run_id)
            if before.seal_sha is not None:
                self._check_run(before, self._target_rows(run_id))
            row = conn.execute("SELECT summary FROM runs WHERE id=?", (run_id,)).fetchone()
            merged = json.loads(row[0] or "{}") if row else {}
            merged.update(summary or {})
            conn.execute(
                "UPDATE runs SET finished=?, status=?, result=?, summary=? WHERE id=?",
                (
                    time.time() if finished is None else finished,
                    status,
                    result,
                    json.dumps(merged, ensure_ascii=False),
                    run_id,
                ),
            )
            sha = self._seal(conn, self._get_run(run_id))
        self.release_run(run_id)  # sealed: its writer is done with it
        return sha

    def _seal(self, conn: sqlite3.Connection, row: RunRow) -> str:
        targets = self._target_rows(row.id)
        for t in targets:
            self._check_target(row, t)
        seal = self._seal_of(row, targets, self._record_seals(row.id))
        sha = self._put_blob(seal.to_bytes(), f"sealing run {row.id}")
        conn.execute("UPDATE runs SET seal_sha=? WHERE id=?", (sha, row.id))
        return sha

    def add_target(
        self,
        run_id: int,
        *,
        label: str,
        ref: str,
        env: str,
        result: str,
        log: bytes,
        record: dict[str, Any],
    ) -> TargetRow:
        """Store one target's evidence log and JSON record (blobs first, then the row).

        The log holds every step's whole output; a record over ``RECORD_BUDGET`` keeps the head and tail
        of each long output and says where the rest is (``fit_record``), so that it travels in a bundle."""
        log_sha = self._put_blob(log, f"storing the log of {label}")
        record = dict(record, log_sha256=log_sha)
        record_sha = self._put_blob(fit_record(record, log_sha), f"storing the record of {label}")
        return self.add_target_blobs(
            run_id,
            label=label,
            ref=ref,
            env=env,
            result=result,
            log_sha=log_sha,
            record_sha=record_sha,
        )

    def add_target_blobs(
        self,
        run_id: int,
        *,
        label: str,
        ref: str,
        env: str,
        result: str,
        log_sha: str,
        record_sha: str,
        finished: float | None = None,
    ) -> TargetRow:
        """The row of a target whose log and record are stored already (``add_target``, an import)."""
        now = time.time() if finished is None else finished
        with self.transaction() as conn:
            self._require_running(conn, run_id, f"target {label}")
            cur = conn.execute(
                "INSERT OR REPLACE INTO targets(run_id, label, ref, env, result, log_sha, record_sha, finished)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, label, ref, env, result, log_sha, record_sha, now),
            )
            tid = int(cur.lastrowid or 0)
        return TargetRow(tid, run_id, label, ref, env, result, log_sha, record_sha, now)

    def runs(self, limit: int = 50) -> list[RunRow]:
        """The newest ``limit`` runs, each checked (``EvidenceTampered`` on the first that disagrees)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise UsageError(f"--limit {limit}: give how many runs to list, 0 or more")
        rows = [
            self._run_row(r)
            for r in self.query("SELECT * FROM runs ORDER BY id DESC LIMIT ?", (limit,))
        ]
        for row in rows:
            self._check_run(row, self._target_rows(row.id))
        return rows

    def run(self, run_id: int | str) -> RunRow:
        """The run with this id (a number) or uid (its hex name in texts and bundles, or a prefix of
        it), checked against its seal and its targets against their records."""
        text = str(run_id).lstrip("#")
        if not text.isdigit() and re.fullmatch(r"[0-9a-f]{6,32}", text):
            row = self._run_by_uid(text)
        else:
            try:
                rid = int(text)
            except ValueError:
                raise UsageError(
                    f"run must be an id or a uid, got {run_id!r}; see 'torchparity runs'"
                ) from None
            row = self._get_run(rid)
        self._check_run(row, self._target_rows(row.id))
        return row

    def targets(self, run_id: int) -> list[TargetRow]:
        """The targets of run ``run_id``, checked as ``run`` checks them."""
        rows = self.query("SELECT * FROM runs WHERE id=?", (run_id,))
        targets = self._target_rows(run_id)
        if rows:
            self._check_run(self._run_row(rows[0]), targets)
        return targets

    def _get_run(self, rid: int) -> RunRow:
        rows = self.query("SELECT * FROM runs WHERE id=?", (rid,))
        if not rows:
            raise UsageError(f"no run {rid} in store {self.root}; see 'torchparity runs'")
        return self._run_row(rows[0])

    def _run_by_uid(self, prefix: str) -> RunRow:
        rows = [
            self._run_row(r)
            for r in self.query(
                "SELECT * FROM runs WHERE summary LIKE ? ORDER BY id", (f'%"uid": "{prefix}%',)
            )
        ]
        rows = [r for r in rows if r.uid.startswith(prefix)]
        if not rows:
            raise UsageError(
                f"no run with uid {prefix} in store {self.root}; see 'torchparity runs'"
            )
        if len({r.uid for r in rows}) > 1:
            raise UsageError(f"uid {prefix} names {len(rows)} runs; give more of it")
        return rows[-1]

    def _target_rows(self, run_id: int) -> list[TargetRow]:
        rows = self.query("SELECT * FROM targets WHERE run_id=? ORDER BY id", (run_id,))
        return [TargetRow(**dict(r)) for r in rows]

    def _run_row(self, r: sqlite3.Row) -> RunRow:
        try:
            argv, summary = json.loads(r["argv"]), json.loads(r["summary"] or "{}")
        except ValueError:
            raise EvidenceTampered(
                f"run {r['id']}: its argv or summary in the store's index is not JSON"
            ) from None
        if not isinstance(argv, list) or not isinstance(summary, dict):
            raise EvidenceTampered(
                f"run {r['id']}: its argv or summary in the store's index has the wrong type"
            )
        return RunRow(
            id=r["id"],
            kind=r["kind"],
            created=r["created"],
            finished=r["finished"],
            status=r["status"],
            result=r["result"],
            argv=argv,
            summary=summary,
            seal_sha=r["seal_sha"] if "seal_sha" in r.keys() else None,
            held=self.locks.held(r["id"]) if r["status"] == "running" else None,
        )

    # -- the checks ---------------------------------------------------------------------
    def _seal_of(
        self, row: RunRow, targets: list[TargetRow], records: tuple[RecordSeal, ...]
    ) -> RunSeal:
        """The seal the rows describe now."""
        return RunSeal(
            run=row.id,
            kind=row.kind,
            created=row.created,
            finished=row.finished,
            status=row.status,
            result=row.result,
            argv=tuple(row.argv),
            summary_sha256=summary_sha256(row.summary),
            targets=tuple(
                TargetSeal(
                    t.label, t.ref, t.env, t.result, t.log_sha or "", t.record_sha or "", t.finished
                )
                for t in targets
            ),
            records=records,
        )

    def _record_seals(self, run_id: int) -> tuple[RecordSeal, ...]:
        """The run's ``records`` rows, oldest first, unchecked."""
        rows = self.query(
            "SELECT kind, key, sha FROM records WHERE run_id=? ORDER BY id", (run_id,)
        )
        return tuple(RecordSeal(r["kind"], r["key"], r["sha"]) for r in rows)

    def _check_target(self, run: RunRow, t: TargetRow) -> None:
        where = f"run {run.id} target {t.label}"
        if not t.log_sha or not t.record_sha:
            raise EvidenceTampered(
                f"{where}: its row names no {'log' if not t.log_sha else 'record'}; "
                "every stored target has both"
            )
        with _about(where):
            data = self.blobs.read(t.record_sha)
        try:
            record = json.loads(data)
        except ValueError:
            raise EvidenceTampered(
                f"{where}: its record {t.record_sha[:12]}… is not JSON "
                "(the row names another kind of blob)"
            ) from None
        problems = record_disagreements(
            t.label, t.ref, t.env, t.result, t.log_sha, record, run.origin_ids
        )
        if problems:
            raise EvidenceTampered(f"{where}: " + "; ".join(problems) + f"; {_REDO}")
        with _about(where):
            self.blobs.verify(t.log_sha)

    def _check_run(self, row: RunRow, targets: list[TargetRow]) -> None:
        for t in targets:
            self._check_target(row, t)
        where = f"run {row.id}"
        if row.status == "running":
            extra = [
                name
                for name, v in (
                    ("a result", row.result),
                    ("a seal", row.seal_sha),
                    ("an end time", row.finished),
                )
                if v is not None
            ]
            if extra:
                raise EvidenceTampered(
                    f"{where} is marked running but has {' and '.join(extra)}; its row was edited"
                )
            return
        if row.status not in _FINISHED:
            raise EvidenceTampered(
                f"{where}: status {row.status!r} is none torchparity writes; its row was edited"
            )
        if row.seal_sha is None:
            raise EvidenceTampered(
                f"{where} is {row.status} (result {row.result}) but has no seal; its row was edited"
            )
        with _about(where):
            data = self.blobs.read(row.seal_sha)
        try:
            sealed = RunSeal.from_bytes(data, "its seal")
        except ShapeError as exc:
            raise EvidenceTampered(
                f"{where}: {exc}; the row names a blob that is not a run seal"
            ) from None
        found = differences(self._seal_of(row, targets, self._record_seals(row.id)), sealed)
        if found:
            raise EvidenceTampered(f"{where}: " + "; ".join(found) + f"; {_REDO}")

    # -- records (resolve, coverage, docs check, ... as JSON documents) ---------------------
    def put_record(
        self, kind: str, key: str, doc: dict[str, Any], run_id: int | None = None
    ) -> str:
        sha = self._put_blob(
            json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True).encode("utf-8"),
            f"storing a {kind} record",
        )
        self.add_record_blob(kind, key, sha, run_id)
        return sha

    def add_record_blob(
        self, kind: str, key: str, sha: str, run_id: int | None = None, created: float | None = None
    ) -> None:
        """The row of a record whose JSON document is stored already (``put_record``, an import)."""
        with self.transaction() as conn:
            self._require_running(conn, run_id, f"a {kind} record")
            conn.execute(
                "INSERT INTO records(run_id, kind, key, created, sha) VALUES (?, ?, ?, ?, ?)",
                (run_id, kind, key, time.time() if created is None else created, sha),
            )

    def latest_record(
        self, kind: str, key: str, run_id: int | None = None
    ) -> dict[str, Any] | None:
        if run_id is None:
            rows = self.query(
                "SELECT sha FROM records WHERE kind=? AND key=? ORDER BY id DESC LIMIT 1",
                (kind, key),
            )
        else:
            rows = self.query(
                "SELECT sha FROM records WHERE kind=? AND key=? AND run_id=? ORDER BY id DESC LIMIT 1",
                (kind, key, run_id),
            )
        if not rows:
            return None
        return self.read_json(rows[0]["sha"])

    def records(self, run_id: int) -> list[tuple[str, str, dict[str, Any]]]:
        """``(kind, key, document)`` of the run's records, oldest first, checked as ``run`` checks them."""
        return [(r.kind, r.key, self.read_json(r.sha256)) for r in self.record_rows(run_id)]

    def record_rows(self, run_id: int) -> tuple[RecordSeal, ...]:
        """The records attached to run ``run_id`` (kind, key, sha256), oldest first, checked as ``run``
        checks them."""
        records = self._record_seals(run_id)
        rows = self.query("SELECT * FROM runs WHERE id=?", (run_id,))
        if rows:
            self._check_run(self._run_row(rows[0]), self._target_rows(run_id))
        return records

    def read_json(self, sha: str) -> dict[str, Any]:
        data = self.blobs.read(sha)
        try:
            doc = json.loads(data)
        except ValueError:
            raise EvidenceTampered(
                f"stored record {sha[:12]}… is not JSON (the index names another kind of blob)"
            ) from None
        if not isinstance(doc, dict):
            raise EvidenceTampered(f"stored record {sha[:12]}… is not a JSON object")
        return doc

    def referenced(self, sha: str) -> bool:
        """Whether any row names blob ``sha`` (an import that did not commit keeps only those)."""
        rows = self.query(
            "SELECT 1 FROM targets WHERE log_sha=?1 OR record_sha=?1 UNION ALL "
            "SELECT 1 FROM records WHERE sha=?1 UNION ALL SELECT 1 FROM runs WHERE seal_sha=?1 LIMIT 1",
            (sha,),
        )
        return bool(rows)


#: what a tampering message ends with: what to do about it
_REDO = "do not use this run: re-run it, or import it again from a signed bundle"


@contextmanager
def _about(where: str) -> Iterator[None]:
    """A blob error gets the run / target it was read for in front of its message."""
    try:
        yield
    except EvidenceTampered as exc:
        raise EvidenceTampered(f"{where}: {str(exc).removeprefix('tampered evidence: ')}") from exc
    except StoreCorrupt as exc:
        raise StoreCorrupt(f"{where}: {exc}") from exc


#: a target record is kept under this many bytes (a JSON document in a bundle may be 16 MiB)
RECORD_BUDGET = 4 << 20
#: bytes of each step's output a record keeps (its head and tail), tried in turn until it fits the budget
_OUTPUT_KEPT = (1 << 20, 64 << 10, 4 << 10, 0)


def fit_record(record: dict[str, Any], log_sha: str) -> bytes:
    """The JSON bytes of a target record, its steps' outputs cut to their head and tail until it fits
    ``RECORD_BUDGET`` (a record that fits is stored as it is). The whole output is in the evidence log;
    each cut says so, naming the log."""
    data = json.dumps(record, indent=2, ensure_ascii=False).encode("utf-8")
    for kept in _OUTPUT_KEPT:
        if len(data) <= RECORD_BUDGET:
            break
        record = {k: _cut_steps(v, kept, log_sha) for k, v in record.items()}
        data = json.dumps(record, indent=2, ensure_ascii=False).encode("utf-8")
    return data


def _cut_steps(value: Any, kept: int, log_sha: str) -> Any:
    """A step (``{"output": ...}``) or a list of steps with each output cut to ``kept`` bytes."""
    if isinstance(value, list):
        return [_cut_steps(v, kept, log_sha) for v in value]
    if isinstance(value, dict) and isinstance(value.get("output"), str):
        return dict(value, output=_cut(value["output"], kept, log_sha))
    return value


def _cut(text: str, kept: int, log_sha: str) -> str:
    raw = text.encode("utf-8")
    if len(raw) <= kept:
        return text
    head = raw[: kept // 2].decode("utf-8", "ignore")
    tail = raw[len(raw) - kept // 2 :].decode("utf-8", "ignore") if kept else ""
    left = len(raw) - len(head.encode("utf-8")) - len(tail.encode("utf-8"))
    return (
        f"{head}\n[torchparity: {left} bytes of this output are left out of the record here; the whole "
        f"output is in the evidence log {log_sha}]\n{tail}"
    )
