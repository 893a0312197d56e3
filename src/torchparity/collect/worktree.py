"""A git worktree of the backend repo at one commit, removed on every exit path."""

from __future__ import annotations

import re
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..exec.interrupt import temp_dir
from ..gitrepo import git


@dataclass
class Worktree:
    path: Path
    #: exit code of ``git worktree remove`` (None until removed)
    remove_exit_code: int | None = None


#: one lock per repository: ``git worktree add`` reads every registered worktree while another
#: ``add`` (or ``prune``) in the same repository may be half-way through writing its own
_REPO_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()


def _repo_lock(repo: Path) -> threading.Lock:
    with _LOCKS_LOCK:
        return _REPO_LOCKS.setdefault(str(Path(repo).absolute()), threading.Lock())


def _safe(ref: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", ref)[:60] or "ref"


@contextmanager
def worktree(repo: Path, commit: str, ref: str) -> Iterator[Worktree]:
    """Check out ``commit`` (detached) in a temporary folder; remove it afterwards."""
    parent = temp_dir("wt")  # named for this process: pruned at the next start if it dies
    path = parent / _safe(ref)
    wt = Worktree(path)
    added = False
    lock = _repo_lock(repo)
    try:
        with lock:
            try:
                git(repo, "worktree", "add", "--detach", "--quiet", str(path), commit)
            except BaseException:
                # failed or interrupted half-way: git may have registered the worktree already
                shutil.rmtree(path, ignore_errors=True)
                git(repo, "worktree", "prune", check=False)
                raise
        added = True
        yield wt
    finally:
        if added:
            with lock:
                res = git(repo, "worktree", "remove", "--force", str(path), check=False)
                wt.remove_exit_code = res.returncode
                if res.returncode != 0:
                    shutil.rmtree(path, ignore_errors=True)
                    git(repo, "worktree", "prune", check=False)
        shutil.rmtree(parent, ignore_errors=True)
