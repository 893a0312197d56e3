"""Files in and out: atomic writes (readers see the old content or the new one, never a half-written
file; a full disk is a broken environment naming the path), output files that are regular files only
(``write_regular``: never a FIFO, a device or a folder replaced), and text files read as bad input when
they are binary or not UTF-8.

Stands on the ground: imports only the standard library and ``errors``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from .errors import EnvironmentBroken, UsageError

#: errors that mean "the device holding the path is full" (or the user's quota is)
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def disk_full(path: Path | str, exc: OSError) -> EnvironmentBroken:
    """The broken-environment error for a write to ``path`` that ran out of space."""
    return EnvironmentBroken(
        f"no space left writing {path} ({os.strerror(exc.errno or errno.ENOSPC)}); "
        "free space there (or point the output elsewhere) and rerun"
    )


def file_kind(mode: int) -> str:
    """What a file of ``mode`` (``st_mode``) is, in words: "a FIFO", "a character device", "a folder"..."""
    for test, words in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symlink"),
    ):
        if test(mode):
            return words
    return "not a regular file"


def write_regular(path: Path | str, data: bytes | str, flag: str) -> Path:
    """Write ``data`` whole to the output file ``path`` given to ``flag``; returns the file written.

    Only a regular file is written: a new one, an existing one (replaced atomically, with the mode a
    plain ``open`` gives), or the regular file a symlink names (written through; the link stays a
    link). A FIFO, a device node, a socket, a folder, a symlink to any of them or to nothing is refused
    with a ``UsageError`` naming ``path`` (exit 2) and left as it is: a plain rename over it would
    replace a named pipe a reader waits on, or a link someone made on purpose, with a regular file.
    """
    given = Path(path)
    target = given
    try:
        if given.is_symlink():
            st = os.stat(given)  # a loop of links is an OSError here
            target = Path(os.path.realpath(given))
            if not stat.S_ISREG(st.st_mode):
                raise UsageError(
                    f"{flag} {given} is a symlink to {target}, which is {file_kind(st.st_mode)}, "
                    "not a regular file; pass a file path"
                )
        else:
            st = os.stat(given)
            if not stat.S_ISREG(st.st_mode):
                raise UsageError(
                    f"{flag} {given} is {file_kind(st.st_mode)}, not a regular file; pass a file path"
                )
    except FileNotFoundError:
        if given.is_symlink():
            raise UsageError(
                f"{flag} {given} is a symlink that names nothing ({os.readlink(given)}); "
                "pass a file path"
            ) from None
    except OSError as exc:
        raise UsageError(
            f"{flag} {given} cannot be looked at ({exc.strerror}); pass another path"
        ) from None
    if not target.parent.is_dir():
        raise UsageError(
            f"folder for {flag} does not exist: {target.parent}; create it or pass another path"
        )
    atomic_write(target, data)  # the mode a plain open gives (0o666 less the umask), as before
    return target


def read_text_file(path: Path | str, flag: str) -> str:
    """The text of the UTF-8 file ``path`` given to ``flag``; a missing, binary or undecodable file is
    a ``UsageError`` naming it (exit 2), never a traceback."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{flag} {p}: no such file; pass an existing text file") from None
    except IsADirectoryError:
        raise UsageError(f"{flag} {p} is a folder; pass a text file") from None
    except OSError as exc:
        raise UsageError(
            f"{flag} {p} cannot be read ({exc.strerror}); pass a readable text file"
        ) from None
    nul = data.find(b"\x00")
    if nul >= 0:
        raise UsageError(
            f"{flag} {p} is a binary file (a NUL byte at offset {nul}), not text; "
            "pass a UTF-8 text file"
        ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{flag} {p} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8 and retry"
        ) from None


def current_umask() -> int:
    """The process umask, read without changing it where the system tells it (Linux ``/proc``)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: the only portable way is to set it and put it back
    os.umask(mask)
    return mask


def atomic_write(path: Path, data: bytes | str, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` (a str is written as UTF-8, line ends as given).

    The bytes go to a temporary file in the same folder, which is flushed,
    fsynced and renamed over ``path`` (``os.replace``); on any failure the
    temporary file is removed and ``path`` is left as it was. The new file's
    mode is ``mode`` when given (e.g. an existing file's, to keep it), else
    what a plain ``open(path, "w")`` would create: ``0o666`` less the umask.
    The folder must exist.
    """
    target = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    final_mode = (0o666 & ~current_umask()) if mode is None else mode
    try:
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        if exc.errno in DISK_FULL:
            raise disk_full(target, exc) from exc
        raise
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), final_mode)
            else:  # pragma: no cover - Windows
                os.chmod(tmp_name, final_mode)
            os.fsync(fh.fileno())
        os.replace(tmp_name, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError) and exc.errno in DISK_FULL:
            raise disk_full(target, exc) from exc
        raise
    _fsync_folder(target.parent)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable where the system allows opening a folder (best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
