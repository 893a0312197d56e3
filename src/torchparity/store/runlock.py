"""One writer per run: an exclusive ``flock`` on ``locks/run-<id>.lock`` in the store.

Every verb that writes a run holds its lock from before any work until the run ends:
``Store.new_run`` takes it for the run it makes, ``Store.claim_run`` (a resume, before it
reads anything) and ``Store.reopen_run`` for the run they continue, ``Store.finish_run``
drops it once the run is sealed. A second process that asks for a run held elsewhere (two
``verify --resume R`` at once) is refused with one line naming the holder's pid (exit 2)
before it touches the run.

The lock belongs to one ``Store`` (one open file per run it holds), so two stores opened in
one process exclude each other as two processes do; within a store it is re-entrant (its
threads and stages share it). The kernel drops it with the process: a run whose writer was
killed has a free lock, whatever pid its row names, and the next resume takes it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import UsageError
from .blobs import write_error

_BUSY = (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK)


@dataclass
class _Held:
    file: IO[bytes]
    #: held for the run's writer until the run ends (``new_run``, ``claim_run``, ``reopen_run``)
    owned: bool = False
    #: held for a block of work (``Store.hold_run``), nested
    count: int = 0


class RunLocks:
    """The runs one store holds, each by an exclusive ``flock`` on its lock file."""

    def __init__(self, root: Path) -> None:
        self.folder = root / "locks"
        self._held: dict[int, _Held] = {}
        self._mutex = threading.Lock()

    def path(self, run_id: int) -> Path:
        return self.folder / f"run-{run_id}.lock"

    def holds(self, run_id: int) -> bool:
        return run_id in self._held

    def owns(self, run_id: int) -> bool:
        """Whether this store holds the run for its writer (until the run ends)."""
        held = self._held.get(run_id)
        return held is not None and held.owned

    def acquire(self, run_id: int, *, own: bool) -> None:
        """Hold run ``run_id`` (``own``: until ``release(own=True)``; else once more, nested); a run another
        store or process holds is a ``UsageError`` naming its pid."""
        with self._mutex:
            held = self._held.get(run_id)
            if held is None:
                held = self._held[run_id] = _Held(self._take(run_id))
            if own:
                held.owned = True
            else:
                held.count += 1

    def release(self, run_id: int, *, own: bool) -> None:
        """Let go of one hold (``own``: the writer's); the lock is dropped with the last one."""
        with self._mutex:
            held = self._held.get(run_id)
            if held is None:
                return
            if own:
                held.owned = False
            else:
                held.count = max(0, held.count - 1)
            if held.owned or held.count:
                return
            del self._held[run_id]
            try:
                os.ftruncate(held.file.fileno(), 0)
                fcntl.flock(held.file.fileno(), fcntl.LOCK_UN)
            except OSError:
                pass  # closing the file drops the lock all the same
            held.file.close()

    def release_all(self) -> None:
        """Let go of every run this store holds (it is being discarded)."""
        for run_id in list(self._held):
            with self._mutex:
                held = self._held.pop(run_id, None)
            if held is not None:
                held.file.close()

    @contextmanager
    def hold(self, run_id: int) -> Iterator[None]:
        self.acquire(run_id, own=False)
        try:
            yield
        finally:
            self.release(run_id, own=False)

    def held(self, run_id: int) -> bool | None:
        """Whether a writer holds run ``run_id``: True (this store, or another store or process), False (its
        lock is free: its writer ended or died), None (no lock file: written by a torchparity before locks)."""
        if self.holds(run_id):
            return True
        path = self.path(run_id)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            if not os.pread(fd, 32, 0).strip():
                return False  # a writer names itself as it takes the lock and blanks the file as it lets go
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in _BUSY:
                    return True
                return None
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False  # its pid is there but its lock is not: the writer was killed
        finally:
            os.close(fd)

    def _take(self, run_id: int) -> IO[bytes]:
        path = self.path(run_id)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
            fh = os.fdopen(fd, "r+b", buffering=0)  # held open while the run is held
        except OSError as exc:
            raise write_error(exc, path, f"locking run {run_id}") from exc
        try:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in _BUSY:
                    raise write_error(exc, path, f"locking run {run_id}") from exc
                holder = (
                    os.pread(fh.fileno(), 32, 0).decode("ascii", "replace").strip() or "unknown"
                )
                raise UsageError(
                    f"run {run_id} is being worked on by another torchparity process (pid {holder}, lock {path}); "
                    "wait for it to finish or stop it, then resume"
                ) from None
            os.ftruncate(fh.fileno(), 0)
            os.pwrite(fh.fileno(), str(os.getpid()).encode("ascii"), 0)
        except BaseException:
            fh.close()
            raise
        return fh


__all__ = ["RunLocks"]
