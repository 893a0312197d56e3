"""Resume an interrupted ``torchparity run``: its own command line, into the same run id."""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..store import Store


@dataclass(frozen=True)
class Resumption:
    """What re-running run ``run_id`` takes: its arguments (into ``store``) and the folder they were given in."""

    run_id: int
    argv: list[str]
    cwd: Path | None


def _without_store(argv: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == "--store":
            skip = True
        elif not a.startswith("--store="):
            out.append(a)
    return out


def plan_resume(store: Store, run_id: int | str, verb: str = "run") -> Resumption:
    """The resumption of run ``run_id`` by ``verb`` (run, verify, batch), or a ``UsageError`` saying why
    it cannot be resumed."""
    row = store.run(run_id)
    if row.kind != verb or not row.argv or row.argv[0] != verb:
        made = f"'torchparity {row.argv[0]}'" if row.argv else "another verb"
        raise UsageError(f"run {run_id} was not made by 'torchparity {verb}' (but by {made}); it cannot be resumed here"
                         + ("; resume the batch it belongs to: torchparity batch --resume BATCH (see "
                            "'torchparity runs')" if row.argv and row.argv[0] == "batch" and verb != "batch" else ""))
    if row.status == "complete":
        raise UsageError(f"run {run_id} is complete; nothing to resume (see 'torchparity show {run_id}')")
    if row.status == "running" and not row.orphaned:
        raise UsageError(f"run {run_id} is still running (pid {row.summary.get('pid')}); wait for it or stop it")
    # the stored command line, into this store (the one the run lives in)
    argv = [*_without_store(row.argv), "--store", str(store.root)]
    cwd = row.summary.get("cwd")
    return Resumption(row.id, argv, Path(cwd) if cwd and Path(cwd).is_dir() else None)


def _lock_path(store_root: Path, run_id: int) -> Path:
    return Path(store_root) / "locks" / f"run-{run_id}.lock"


@contextmanager
def run_lock(store_root: Path, run_id: int) -> Iterator[None]:
    """Hold run ``run_id`` for this process (an exclusive ``flock``, freed when the process dies).

    A second process that asks for it while held (two ``run --resume N`` at once) gets a
    ``UsageError`` naming the holder's pid, before it does any work.
    """
    path = _lock_path(store_root, run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            raise UsageError(
                f"run {run_id} is being worked on by another torchparity process (pid {holder}, lock {path}); "
                "wait for it to finish or stop it, then resume"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
