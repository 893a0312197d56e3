"""One checkout per commit, shared by every target (task, environment) that runs at it.

``verify`` checks a ref out once per target; a batch of many APIs would check the
same ref out for every task. ``SharedCheckouts`` makes one worktree per commit
the first time a target needs it and keeps it until ``close``. A target's
overlay (a scaffolded test not committed at the ref) is written by the
collector into the shared tree; while that target runs, the overlay's paths
are held by a lock (two targets overlaying the same file take turns) and when
it ends they are put back as committed (or removed). A commit that cannot be
checked out fails once, and every target at it says git's own words
(``CheckoutFailed``) instead of trying again.

The folder is named for its owner (``torchparity-batch-<uid>``) so that a
resumed batch removes what a killed one left behind (``remove_leftovers``).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from ..gitrepo import blob_bytes, git
from .collector import Target
from .worktree import CheckoutFailed, Worktree, _safe, add_worktree, repo_lock


def checkouts_folder(owner: str) -> Path:
    """Where the checkouts of ``owner`` (a batch's uid) live."""
    return Path(tempfile.gettempdir()) / f"torchparity-batch-{_safe(owner)}"


def remove_leftovers(repo: Path | None, owner: str) -> bool:
    """Remove the checkouts a killed owner left (folder and git's worktree entries); True if any."""
    folder = checkouts_folder(owner)
    found = folder.exists()
    if found:
        shutil.rmtree(folder, ignore_errors=True)
    if repo is not None:
        git(repo, "worktree", "prune", check=False)
    return found


class SharedCheckouts:
    """Worktrees per commit for one owner; call it as the collector's ``checkouts``."""

    def __init__(self, owner: str) -> None:
        self.folder = checkouts_folder(owner)
        self._trees: dict[tuple[str, str], Path | CheckoutFailed] = {}
        self._repos: set[Path] = set()
        self._lock = threading.Lock()  # one git worktree add/remove at a time
        self._path_locks: dict[tuple[str, str], threading.Lock] = {}
        #: checkouts made (``git worktree add`` runs), for the benchmark and the summary
        self.made = 0

    def tree(self, repo: Path, commit: str, ref: str) -> Path:
        """The shared checkout of ``commit`` (made on first use); ``CheckoutFailed`` with git's lines."""
        key = (str(repo), commit)
        with self._lock:
            got = self._trees.get(key)
            if got is None:
                self.folder.mkdir(parents=True, exist_ok=True)
                path = self.folder / f"{_safe(ref)}-{commit[:12]}"
                try:
                    add_worktree(repo, path, commit, ref)
                    got = path
                    self.made += 1
                except CheckoutFailed as exc:
                    got = exc
                self._trees[key] = got
                self._repos.add(repo)
        if isinstance(got, CheckoutFailed):
            raise got
        return got

    @contextmanager
    def __call__(self, repo: Path, target: Target) -> Iterator[Worktree]:
        path = self.tree(repo, target.commit, target.ref)
        with ExitStack() as stack:
            for rel in sorted({rel for rel, _ in target.overlay}):
                with self._lock:
                    lock = self._path_locks.setdefault((str(path), rel), threading.Lock())
                stack.enter_context(lock)
                stack.callback(self._restore, repo, target.commit, path, rel)
            yield Worktree(path)

    @staticmethod
    def _restore(repo: Path, commit: str, path: Path, rel: str) -> None:
        committed = blob_bytes(repo, commit, rel)
        dest = path / rel
        if committed is None:
            dest.unlink(missing_ok=True)
        else:
            dest.write_bytes(committed)

    def close(self) -> None:
        with self._lock:
            trees = [(Path(repo), p) for (repo, _), p in self._trees.items() if isinstance(p, Path)]
            self._trees = {}
        for repo, path in trees:
            with repo_lock(repo):
                res = git(repo, "worktree", "remove", "--force", str(path), check=False)
                if res.returncode != 0:
                    shutil.rmtree(path, ignore_errors=True)
        for repo in self._repos:
            with repo_lock(repo):
                git(repo, "worktree", "prune", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


__all__ = ["SharedCheckouts", "checkouts_folder", "remove_leftovers"]
