"""A git worktree of the backend repo at one commit, removed on every exit path."""

from __future__ import annotations

import re
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import EnvironmentBroken
from ..exec.interrupt import temp_dir
from ..gitrepo import GitResult, git
from ..records.notes import Note


@dataclass
class Worktree:
    path: Path
    #: exit code of ``git worktree remove`` (None until removed)
    remove_exit_code: int | None = None


class CheckoutFailed(EnvironmentBroken):
    """git could not check a commit out; the message keeps git's own lines (the cause is in the
    first ``error:`` line, e.g. ``unable to read sha1 file of ...``, not in the last ``fatal:`` one)."""

    def __init__(self, ref: str, commit: str, res: GitResult) -> None:
        lines = [
            ln.strip() for ln in res.stderr.decode("utf-8", "replace").splitlines() if ln.strip()
        ]
        self.git_lines = tuple(lines)
        said = "; ".join(lines) or f"exit code {res.returncode}"
        super().__init__(f"git worktree add of {ref} ({commit[:12]}) failed: {said}")
        self.note = Note.of("checkout_failed", ref=ref, detail=said)


#: one lock per repository: ``git worktree add`` reads every registered worktree while another
#: ``add`` (or ``prune``) in the same repository may be half-way through writing its own
_REPO_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()


def repo_lock(repo: Path) -> threading.Lock:
    with _LOCKS_LOCK:
        return _REPO_LOCKS.setdefault(str(Path(repo).absolute()), threading.Lock())


def add_worktree(repo: Path, path: Path, commit: str, ref: str) -> None:
    """``git worktree add --detach`` of ``commit`` at ``path`` (one add of a repository at a time);
    ``CheckoutFailed`` with git's lines."""
    with repo_lock(repo):
        try:
            res = git(
                repo, "worktree", "add", "--detach", "--quiet", str(path), commit, check=False
            )
        except BaseException:
            # interrupted half-way: git may have registered the worktree already
            shutil.rmtree(path, ignore_errors=True)
            git(repo, "worktree", "prune", check=False)
            raise
        if res.returncode != 0:
            shutil.rmtree(path, ignore_errors=True)
            git(repo, "worktree", "prune", check=False)
            raise CheckoutFailed(ref, commit, res)


def _safe(ref: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", ref)[:60] or "ref"


@contextmanager
def worktree(repo: Path, commit: str, ref: str) -> Iterator[Worktree]:
    """Check out ``commit`` (detached) in a temporary folder; remove it afterwards."""
    parent = temp_dir("wt")  # named for this process: pruned at the next start if it dies
    path = parent / _safe(ref)
    wt = Worktree(path)
    added = False
    lock = repo_lock(repo)
    try:
        add_worktree(repo, path, commit, ref)
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
