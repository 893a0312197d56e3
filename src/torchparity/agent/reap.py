"""Find and kill every process a job started, also those that left its process group (``setsid()``).

Two mechanisms, both Linux's:

* ``descendants``: the process tree read from ``/proc/<pid>/stat`` (each process's parent), so a
  grandchild in a session of its own is still found while its parent lives; ``kill_tree`` stops the
  whole tree first (SIGSTOP: a stopped process cannot fork again), then kills it (SIGKILL);
* ``become_subreaper``: ``PR_SET_CHILD_SUBREAPER`` on the warm worker, so an orphan whose parent
  already exited (a double fork) is re-parented to the worker instead of init, and the worker kills
  and reaps it after the job.

``supervise`` (this file run as a script: ``python reap.py -- COMMAND ...``) runs a command that
cannot be instrumented (``--fresh``'s literal ``python FILE -v``) as the child of a subreaper, so
that a double-forked grandchild whose parent already exited is still below it: found at a timeout or
a signal, and killed when the command ends.

Elsewhere (no ``/proc``) only the process groups are killed, and the callers say so in the log.
Standard library only (Python >= 3.8).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from types import FrameType

PR_SET_CHILD_SUBREAPER = 36

#: how the descendants of a job are tracked, as the evidence log states it
TRACKING_PROC = "descendants found through /proc and killed with the job's process group"
TRACKING_SUBREAPER = (
    "the warm worker is a child subreaper (PR_SET_CHILD_SUBREAPER) and finds descendants "
    "through /proc: a test's grandchildren are killed even when they left its process "
    "group (setsid) or their parent exited"
)
TRACKING_GROUP = (
    "process group only (no /proc here): a grandchild that called setsid() is not tracked"
)


def have_proc() -> bool:
    return os.path.isdir("/proc/self/task")


def _parents() -> dict[int, int]:
    """{pid: parent pid} of every process now (an empty map without /proc)."""
    out: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # pid (comm) state ppid ...; comm may hold spaces and parentheses
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 2 and fields[0] != b"Z":
            out[int(name)] = int(fields[1])
    return out


def descendants(pid: int) -> list[int]:
    """The live processes below ``pid`` (children, grandchildren, ...), parents first."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(0), ()):
            if child not in out:
                out.append(child)
                todo.append(child)
    return out


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def signal_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    if pgid <= 1 or pgid == os.getpgrp():
        return
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(pid: int, include_self: bool = True) -> list[int]:
    """SIGKILL ``pid`` (when ``include_self``), its process group and every descendant, wherever
    their process groups and sessions are. Returns the descendants that were found."""
    me = os.getpid()
    stopped: list[int] = []
    for _ in range(8):  # stop what is found, look again: a stopped process forks no more
        found = [p for p in descendants(pid) if p != me and p not in stopped]
        if not found:
            break
        for p in found:
            _signal(p, signal.SIGSTOP)
        stopped.extend(found)
    groups: set[int] = set()
    for p in stopped:
        try:
            groups.add(os.getpgid(p))
        except OSError:
            pass
    if include_self:
        try:
            groups.add(os.getpgid(pid))
        except OSError:
            pass
        signal_group(pid, signal.SIGKILL)
        if pid != me:
            _signal(pid, signal.SIGKILL)
    for p in stopped:
        _signal(p, signal.SIGKILL)
    for g in groups:
        signal_group(g, signal.SIGKILL)
    return stopped


def prctl(option: int, value: int) -> bool:
    """``prctl(option, value)`` (Linux); False where it cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); False where it cannot."""
    return prctl(PR_SET_CHILD_SUBREAPER, 1)


def kill_and_reap_orphans(wait: float = 5.0) -> None:
    """In a subreaper between jobs: every process still below it is a job's leftover; kill, then reap
    (waiting at most ``wait`` seconds for the killed ones to die)."""
    left = set(kill_tree(os.getpid(), include_self=False))
    deadline = time.monotonic() + wait
    while True:
        try:
            got, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if got:
            left.discard(got)
            continue
        if not left or time.monotonic() > deadline:
            return
        left = {p for p in left if os.path.exists("/proc/%d" % p)}
        time.sleep(0.005)


def supervise(argv: list[str]) -> int:
    """Run ``argv`` as this process's child, this process being its child subreaper; when it ends,
    kill what it left running (in any process group or session) and end as it did (its exit status,
    or the signal that killed it). SIGTERM, SIGINT or SIGHUP here kill the whole tree first."""
    become_subreaper()

    def stop(signum: int, frame: FrameType | None) -> None:
        kill_tree(os.getpid(), include_self=False)
        os._exit(128 + signum)

    for stopping in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(stopping, stop)
    try:
        pid = os.fork()
    except OSError as exc:
        sys.stderr.write("torchparity: cannot start %s: %s\n" % (argv[0], exc))
        return 127
    if pid == 0:
        try:
            # as subprocess.Popen leaves them for the command it starts (restore_signals)
            for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGPIPE", "SIGXFSZ", "SIGXFZ"):
                if hasattr(signal, name):
                    signal.signal(getattr(signal, name), signal.SIG_DFL)
            os.execvp(argv[0], argv)
        except BaseException as exc:
            try:
                sys.stderr.write("torchparity: cannot run %s: %s\n" % (argv[0], exc))
                sys.stderr.flush()
            finally:
                os._exit(127)
    _, status = os.waitpid(pid, 0)
    kill_and_reap_orphans()
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:  # end by the same signal, without a core file of this process
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ImportError, ValueError, OSError):
            pass
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        return 128 + sig
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "--":
        sys.stderr.write("usage: python reap.py -- COMMAND [ARG ...]\n")
        sys.exit(2)
    sys.exit(supervise(sys.argv[2:]))
