"""Write several pages as one change: every page, or none of them.

``write_pages`` goes in three steps:

1. **stage**: for each page, follow symlinks to the file they name, check that its bytes
   are still the text the change was planned against, and write the new bytes to a
   temporary file next to that file (same folder, same mode, owner kept where allowed,
   fsynced). Any failure removes every temporary file: no page changed.
2. **check again**, right before writing: each file's bytes and ``stat`` (inode, size,
   mtime) are as they were when staged, or the whole change is refused.
3. **commit**: each temporary file is renamed over its file; the old file is kept as a
   hard link until all are done. A file with more than one hard link is rewritten in
   place instead (a rename would split its names apart), after its temporary file, which
   reserved the space, is dropped. If any page fails here, the pages already written are
   put back (the kept links renamed back, in-place pages rewritten with their old bytes).

A symlinked page stays a symlink (its target is written); a hard-linked page keeps all
its names. A page no one may write (no ``w`` bit in its mode, ``chmod 444``) is refused, for
root too: ``os.access`` says yes to root whatever the mode. What is left open: a writer that changes a page between step 2 and its
rename (microseconds) is not seen; nothing short of a lock every editor honours could.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import EnvironmentBroken, UsageError
from ..fsutil import atomic_write

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class PageEdit:
    """One page's change: its path (as the docs tree names it), the text it was planned against
    and the text to write (both without a byte-order mark; the page's own is kept)."""

    path: str
    original: str
    new: str


@dataclass
class _Staged:
    edit: PageEdit
    real: str
    old: bytes
    new: bytes
    stat: os.stat_result
    tmp: str
    backup: str = ""
    written: bool = False

    @property
    def in_place(self) -> bool:
        return self.stat.st_nlink > 1


def _refuse(edit: PageEdit, why: str, done: str = "no page was changed") -> UsageError:
    return UsageError(f"cannot write {edit.path}: {why}; {done}")


def _os_error(edit: PageEdit, exc: OSError, done: str = "no page was changed") -> Exception:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return EnvironmentBroken(
            f"cannot write {edit.path}: no space left on the device; {done}; "
            "free some space and run again"
        )
    return _refuse(
        edit, f"{exc.strerror or exc}", f"{done}; check the folder's permissions and free space"
    )


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns) == (
        b.st_dev,
        b.st_ino,
        b.st_size,
        b.st_mtime_ns,
    )


def _expected(edit: PageEdit, current: bytes) -> tuple[bytes, bytes] | None:
    """(old bytes, new bytes) when ``current`` is the planned text (with or without a BOM), else None."""
    planned = edit.original.encode("utf-8")
    if current == planned:
        return current, edit.new.encode("utf-8")
    if current == BOM + planned:
        return current, BOM + edit.new.encode("utf-8")
    return None


def _stage(edit: PageEdit, seen: dict[tuple[int, int], str]) -> _Staged:
    path = Path(edit.path)
    real = os.path.realpath(path)
    if path.is_symlink() and not os.path.exists(real):
        raise _refuse(edit, f"it is a symlink to {real}, which does not exist")
    try:
        st = os.stat(real)
        current = Path(real).read_bytes()
    except OSError as exc:
        raise _os_error(edit, exc) from exc
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(edit, "it is not a regular file")
    key = (st.st_dev, st.st_ino)
    if key in seen:
        raise _refuse(
            edit,
            f"it is the same file as {seen[key]} (a link); add the entry to one of "
            "them at a time (--version), or make them separate files",
        )
    seen[key] = edit.path
    pair = _expected(edit, current)
    if pair is None:
        raise UsageError(
            f"{edit.path} changed since it was read; no page was changed; run the command again"
        )
    if not os.access(real, os.W_OK):
        raise _refuse(
            edit,
            "the page is read-only"
            if os.access(os.path.dirname(real), os.W_OK)
            else "its folder is read-only",
        )
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        # root passes os.access whatever the mode; a page nobody may write was made read-only on purpose
        raise _refuse(
            edit,
            f"the page is read-only (mode {stat.S_IMODE(st.st_mode):o}); make it writable "
            "(chmod u+w) to add the entry",
        )
    folder, name = os.path.split(real)
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    except OSError as exc:
        raise _os_error(edit, exc) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(pair[1])
            fh.flush()
            os.fchmod(fh.fileno(), stat.S_IMODE(st.st_mode))
            if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
                with contextlib.suppress(OSError):  # allowed for root only: keep the page's owner
                    os.fchown(fh.fileno(), st.st_uid, st.st_gid)
            os.fsync(fh.fileno())
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _os_error(edit, exc) from exc
    return _Staged(edit, real, pair[0], pair[1], st, tmp)


def _unchanged(s: _Staged) -> bool:
    try:
        return _same(os.stat(s.real), s.stat) and Path(s.real).read_bytes() == s.old
    except OSError:
        return False


def _rewrite(path: str, data: bytes) -> None:
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()
        fh.flush()
        os.fsync(fh.fileno())


def _commit(s: _Staged) -> None:
    if s.in_place:
        os.unlink(s.tmp)  # it reserved the space the new bytes need; they go into the file itself
        s.tmp = ""
        s.written = True  # from the first byte on, a failure has to put the old bytes back
        _rewrite(s.real, s.new)
        return
    folder, name = os.path.split(s.real)
    backup = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.orig")
    try:
        os.link(s.real, backup)
        s.backup = backup
    except OSError:
        s.backup = ""  # no hard links here: the old bytes (in memory) are the way back
    os.replace(s.tmp, s.real)
    s.tmp = ""
    s.written = True


def _roll_back(s: _Staged) -> None:
    with contextlib.suppress(OSError):
        if s.in_place or not s.backup:
            if s.in_place:
                _rewrite(s.real, s.old)
            else:
                atomic_write(Path(s.real), s.old, mode=stat.S_IMODE(s.stat.st_mode))
        else:
            os.replace(s.backup, s.real)
            s.backup = ""


def write_pages(edits: Sequence[PageEdit]) -> None:
    """Write every edit, or none (see the module's docstring for how)."""
    staged: list[_Staged] = []
    try:
        seen: dict[tuple[int, int], str] = {}
        for edit in edits:
            staged.append(_stage(edit, seen))
        for s in staged:
            if not _unchanged(s):
                raise UsageError(
                    f"{s.edit.path} changed since it was read; no page was changed; "
                    "run the command again"
                )
        for s in staged:
            try:
                _commit(s)
            except OSError as exc:
                for done in reversed([x for x in staged if x.written]):
                    _roll_back(done)
                written = [x.edit.path for x in staged if x.written and x is not s]
                back = (
                    f"the pages written before it were put back ({', '.join(written)})"
                    if written
                    else "no page was changed"
                )
                raise _os_error(s.edit, exc, back) from exc
    finally:
        for s in staged:
            for leftover in (s.tmp, s.backup):
                if leftover:
                    with contextlib.suppress(OSError):
                        os.unlink(leftover)
