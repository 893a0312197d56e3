"""Write a file atomically: readers see the old content or the new one, never a half-written file.

Stands on the ground: imports only the standard library.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


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
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
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
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
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
