"""What a step prints, kept within a cap: its head and its tail on disk, and a line saying what was cut.

A test that prints in a loop once left a 2.36 GB log, stored twice (the log and the record), and a
controller of 9.3 GB that read it whole. Now a step's stdout and stderr go to a pipe (a fresh
interpreter's), or to a named pipe put where the warm worker's child opens its output file; a thread
here copies them to the output file: the first half of the cap straight to disk, then only the last
half in memory (a ring of chunks), written after the job with a line between them::

    [torchparity: 251658240 bytes of output left out here (kept the first 8388608 and the last 8388608 of 268435456 bytes; max_output is 16777216 bytes per step: --max-output, [run] max_output)]

Memory stays within half the cap (plus one read) and the file within the cap, whatever the job
prints; the writer is never blocked for long, also when the disk is full (what cannot be written is
counted and dropped, and ``check`` then raises the broken environment, naming the file).
``max_output = 0`` keeps everything.
"""

from __future__ import annotations

import errno
import os
import select
import tempfile
import threading
import time
from collections import deque
from pathlib import Path

from ..errors import EnvironmentBroken, UsageError
from ..fsutil import DISK_FULL, disk_full

#: bytes of a step's output kept by default (its first and last halves)
MAX_OUTPUT = 16 * 1024 * 1024
#: where the cap is set, as the line saying what was cut names it
KNOB = "--max-output, [run] max_output"
#: bytes read from the pipe at a time
CHUNK = 65536
#: seconds the capture keeps reading after its job ended, for what is still in the pipe
DRAIN_SECONDS = 2.0


def check_max_output(value: int | None, flag: str = "--max-output") -> int | None:
    """``value`` if it is a usable cap (bytes, 0 for no cap); bad input else."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(
            f"{flag} {value!r}: give the bytes of output kept per step (its head and tail), "
            f"0 to keep everything, e.g. {flag} {MAX_OUTPUT}"
        )
    return value


def cap_of(value: int | None) -> int:
    """The cap in bytes (0: none) for a job's ``max_output`` (None: the default)."""
    return MAX_OUTPUT if value is None else value


def cut_line(cut: int, head: int, tail: int, total: int, cap: int) -> bytes:
    return (
        f"[torchparity: {cut} bytes of output left out here (kept the first {head} and the last {tail} "
        f"of {total} bytes; max_output is {cap} bytes per step: {KNOB})]\n"
    ).encode()


def no_space(path: Path | str, exc: OSError) -> EnvironmentBroken:
    """The broken environment for a write to ``path`` that ran out of space, naming TMPDIR when it is there."""
    tmp = os.path.realpath(tempfile.gettempdir())
    where = os.path.realpath(str(path))
    if where == tmp or where.startswith(tmp + os.sep):
        return EnvironmentBroken(
            f"no space left writing {path} ({os.strerror(exc.errno or errno.ENOSPC)}); it is in TMPDIR {tmp}: "
            "free space there or set TMPDIR to a folder with room, and rerun"
        )
    return disk_full(path, exc)


def write_failed(path: Path | str, exc: OSError) -> EnvironmentBroken:
    if exc.errno in DISK_FULL:
        return no_space(path, exc)
    return EnvironmentBroken(
        f"cannot write {path}: {exc.strerror or exc}; check that folder and rerun"
    )


class OutputCapture:
    """Copies what is written to a pipe into ``path``, within ``max_output`` bytes (see the module)."""

    def __init__(
        self, path: Path, max_output: int | None, read_fd: int, fifo: Path | None = None
    ) -> None:
        self.path = path
        self.cap = cap_of(max_output)
        self.head_room = self.cap // 2 if self.cap else -1
        self.tail_room = self.cap - self.cap // 2 if self.cap else 0
        #: bytes the job wrote, bytes left out of the file
        self.total = 0
        self.cut = 0
        #: the first write error (a full disk): what follows is counted and dropped
        self.error: OSError | None = None
        self.fifo = fifo
        self._read_fd = read_fd
        self._written = 0
        self._last = b"\n"
        self._tail: deque[bytes] = deque()
        self._tail_len = 0
        self._stop = threading.Event()
        self._stop_at = 0.0
        self._done = False
        try:
            self._out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except OSError as exc:
            os.close(read_fd)
            if fifo is not None:
                _unlink(fifo)
            raise write_failed(path, exc) from exc
        self._thread = threading.Thread(target=self._pump, name=f"output {path.name}", daemon=True)
        self._thread.start()

    # -- making one -----------------------------------------------------------------------------
    @classmethod
    def pipe(cls, path: Path, max_output: int | None) -> tuple[OutputCapture, int]:
        """A capture reading an anonymous pipe, and the pipe's write end for the job's stdout and stderr
        (the caller closes it once the job has it)."""
        read_fd, write_fd = os.pipe()
        try:
            return cls(path, max_output, read_fd), write_fd
        except BaseException:
            os.close(write_fd)
            raise

    @classmethod
    def fifo_for(cls, path: Path, max_output: int | None) -> OutputCapture | None:
        """A capture reading a named pipe beside ``path`` (``<path>.fifo``: give it to the job as its output
        file); None where this folder holds no named pipe (the job then writes ``path`` itself)."""
        fifo = path.with_name(path.name + ".fifo")
        _unlink(fifo)
        try:
            os.mkfifo(fifo, 0o600)
        except OSError as exc:
            if exc.errno in DISK_FULL:
                raise write_failed(fifo, exc) from exc
            return None
        try:
            # not blocking: no writer yet; select() waits for the first one, read() then sees its end
            read_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            _unlink(fifo)
            return None
        return cls(path, max_output, read_fd, fifo)

    # -- copying ----------------------------------------------------------------------------------
    def _pump(self) -> None:
        try:
            while True:
                if self._stop.is_set():
                    if time.monotonic() > self._stop_at:
                        return  # a writer that escaped the job's end: what it writes now is not kept
                    wait = 0.0
                else:
                    wait = 0.25
                ready, _, _ = select.select([self._read_fd], [], [], wait)
                if not ready:
                    if self._stop.is_set():
                        return
                    continue
                try:
                    chunk = os.read(self._read_fd, CHUNK)
                except BlockingIOError:
                    continue
                if not chunk:
                    return  # every writer closed it
                self._take(chunk)
        except (
            OSError
        ) as exc:  # pragma: no cover - a read error ends the copy; the job's answer stands
            if self.error is None:
                self.error = exc
        finally:
            os.close(self._read_fd)

    def _take(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self.head_room < 0:  # no cap
            self._write(chunk)
            return
        if self._written < self.head_room:
            room = self.head_room - self._written
            self._write(chunk[:room])
            chunk = chunk[room:]
            if not chunk:
                return
        self._tail.append(chunk)
        self._tail_len += len(chunk)
        while self._tail and self._tail_len - len(self._tail[0]) >= self.tail_room:
            self._tail_len -= len(self._tail.popleft())

    def _write(self, data: bytes) -> None:
        self._written += len(data)  # counted as kept even when dropped: the cut stays the job's own
        if self.error is not None or not data:
            return
        view = memoryview(data)
        try:
            while view:
                n = os.write(self._out, view)
                view = view[n:]
        except OSError as exc:
            self.error = exc
            return
        self._last = data[-1:]

    # -- ending -----------------------------------------------------------------------------------
    def finish(self, drain: float = DRAIN_SECONDS) -> None:
        """The job has ended: read what is left in the pipe (at most ``drain`` seconds), write the tail
        after the line saying what was cut, and close the file (once: later calls do nothing)."""
        if self._done:
            return
        self._done = True
        self._stop_at = time.monotonic() + drain
        self._stop.set()
        self._thread.join()
        try:
            tail = b"".join(self._tail)
            self._tail.clear()
            if len(tail) > self.tail_room:
                tail = tail[len(tail) - self.tail_room :]
            head = self._written
            self.cut = self.total - head - len(tail)
            if self.cut > 0:
                sep = b"" if self._last == b"\n" else b"\n"
                self._write(sep + cut_line(self.cut, head, len(tail), self.total, self.cap))
            self._write(tail)
        finally:
            os.close(self._out)
            if self.fifo is not None:
                _unlink(self.fifo)

    def check(self) -> None:
        """Raise the broken environment when the output could not be written (a full disk)."""
        if self.error is not None:
            raise write_failed(self.path, self.error)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def read_text(path: Path, max_output: int | None = None) -> str:
    """The kept output of a step as text; a file bigger than the cap (one the capture did not write) is
    read as its head and tail, with the line saying what was cut, never whole."""
    cap = cap_of(max_output)
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if not cap or size <= cap + 1024:  # what the capture wrote: the cap and its line
                return fh.read().decode("utf-8", "replace")
            head = fh.read(cap // 2)
            tail_len = cap - cap // 2
            fh.seek(size - tail_len)
            tail = fh.read(tail_len)
    except FileNotFoundError:
        return ""
    sep = b"" if head.endswith(b"\n") else b"\n"
    line = cut_line(size - len(head) - len(tail), len(head), len(tail), size, cap)
    return (head + sep + line + tail).decode("utf-8", "replace")
