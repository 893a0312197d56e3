"""Stop at once on SIGINT or SIGTERM, and leave nothing behind: the one mechanism every verb uses.

``stop_on_signals()`` wraps a whole command (``cli.main``). Inside it:

* the first SIGINT or SIGTERM kills, from the signal handler itself, every
  process tree this process started (each live runner's ``kill_now``: the
  worker or interpreter, the job it runs, and the job's descendants through
  ``/proc``), marks the process as stopping (no runner starts after that, no
  new target begins) and raises ``KeyboardInterrupt`` in the main thread, whose
  unwinding removes the worktrees and temporary folders (their context
  managers); later signals are ignored so that the cleanup finishes, and a
  watchdog ends the process with exit 130 if the cleanup takes longer than
  ``CLEANUP_SECONDS``;
* temporary folders are made by ``temp_dir`` with the owner's pid in the name
  (``torchparity-<kind>-p<pid>-...``), so that the next start of any verb
  (``prune_dead``) removes the folders, worktrees and processes of runs whose
  process is gone (killed with SIGKILL, a lost machine).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from ..errors import EnvironmentBroken

#: seconds the cleanup after a signal may take before the process exits anyway (130)
CLEANUP_SECONDS = 10.0

_NAME = re.compile(r"^torchparity-[a-z]+-p(?P<pid>\d+)-")


class Killable(Protocol):
    def kill_now(self) -> None: ...


_live: set[Killable] = set()
_live_lock = threading.RLock()  # re-entrant: the signal handler runs in the main thread
_stopping = threading.Event()
_signal_name: list[str] = []


class Interrupted(EnvironmentBroken):
    """Work refused because the process is stopping on a signal."""


def stopping() -> bool:
    """Whether a SIGINT/SIGTERM arrived: nothing new may start."""
    return _stopping.is_set()


def check() -> None:
    """Refuse to start anything once stopping."""
    if _stopping.is_set():
        raise Interrupted(
            f"interrupted ({_signal_name[0] if _signal_name else 'signal'}): nothing new is started"
        )


def register(runner: Killable) -> None:
    with _live_lock:
        _live.add(runner)


def unregister(runner: Killable) -> None:
    with _live_lock:
        _live.discard(runner)


def kill_all() -> None:
    """Kill every live runner's processes now (no waiting)."""
    with _live_lock:
        runners = list(_live)
    for r in runners:
        try:
            r.kill_now()
        except Exception:  # pragma: no cover - keep killing the others
            pass


_watchdog: list[threading.Timer] = []


def _handler(signum: int, frame: object) -> None:
    if _stopping.is_set():
        return  # the cleanup of the first signal is running: let it finish
    _signal_name.append(signal.Signals(signum).name)
    _stopping.set()
    kill_all()
    timer = threading.Timer(CLEANUP_SECONDS, os._exit, args=(130,))
    timer.daemon = True
    timer.start()
    _watchdog.append(timer)
    raise KeyboardInterrupt


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Handle SIGINT and SIGTERM as described above for the duration of a command."""
    prune_dead()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # SIGINT too, even when inherited as ignored (a background job of a script): a signal stops the run
    previous = {s: signal.signal(s, _handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        reset()


def reset() -> None:
    """The cleanup is done (or a caller carries on): forget the signal, stop the watchdog."""
    while _watchdog:
        _watchdog.pop().cancel()
    _stopping.clear()
    _signal_name.clear()


# -- temporary folders and the leftovers of dead runs ------------------------------------------


def temp_dir(kind: str) -> Path:
    """A new private temporary folder ``torchparity-<kind>-p<pid>-XXXX`` (pruned if this process dies)."""
    check()
    return Path(tempfile.mkdtemp(prefix=f"torchparity-{kind}-p{os.getpid()}-"))


@contextmanager
def temporary_dir(kind: str) -> Iterator[Path]:
    """``temp_dir`` removed on every way out."""
    path = temp_dir(kind)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _processes_under(folder: Path) -> list[int]:
    """Processes whose working folder is inside ``folder`` (a dead run's test still running there)."""
    out: list[int] = []
    prefix = str(folder) + os.sep
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{name}/cwd")
        except OSError:
            continue
        if cwd == str(folder) or cwd.startswith(prefix):
            out.append(int(name))
    return out


def _worktree_gitdirs(folder: Path) -> list[Path]:
    """The main repos' git folders of the worktrees inside ``folder`` (``<wt>/.git`` names them)."""
    out: list[Path] = []
    for dot_git in folder.glob("*/.git"):
        try:
            text = dot_git.read_text(errors="replace").strip()
        except OSError:
            continue
        if text.startswith("gitdir:"):
            gitdir = Path(text.split(":", 1)[1].strip())
            if gitdir.parent.name == "worktrees":
                out.append(gitdir.parent.parent)
    return out


def prune_dead() -> list[Path]:
    """Remove the temporary folders (and the git worktrees in them) of torchparity processes that are
    gone, killing what still runs inside them. Returns the folders removed."""
    from ..agent import reap

    removed: list[Path] = []
    tmp = Path(tempfile.gettempdir())
    try:
        entries = list(tmp.iterdir())
    except OSError:
        return removed
    for entry in entries:
        m = _NAME.match(entry.name)
        if not m or int(m["pid"]) == os.getpid() or _alive(int(m["pid"])):
            continue
        try:
            if entry.is_symlink() or not entry.is_dir() or entry.stat().st_uid != os.getuid():
                continue
        except OSError:
            continue
        for pid in _processes_under(entry):
            reap.kill_tree(pid)
        gitdirs = _worktree_gitdirs(entry)
        shutil.rmtree(entry, ignore_errors=True)
        for gitdir in gitdirs:  # the worktree's folder is gone: git forgets it
            subprocess.run(
                ["git", "--git-dir", str(gitdir), "worktree", "prune"],
                capture_output=True,
                check=False,
            )
        removed.append(entry)
    return removed
