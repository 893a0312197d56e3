"""One checkout per ref for the targets of a collect, made ahead, shared by the ref's environments.

The collector knows all its targets before the first job runs, so it asks for
every checkout at once (``prepare``): they are made in background threads while
the warm workers import torch. A target then waits only for its own ref's
checkout. Targets of one ref in several environments share it; it is removed
when the last of them is done, and every one of them learns how the removal
went (``when_removed``), so that each target's evidence states its cleanup.

Three kinds: ``sparse`` (``sparse.write_checkout``: the test files, what they
import and what they need to run, written from git's objects; a missing or
huge blob elsewhere does not matter), ``roots`` (the same with the test roots
written whole, as before issue 34: for a test that reads a file of its root
that nothing in its source names) and ``worktree`` (``git worktree add`` of the
whole tree, as contributors check a branch out by hand). The sparse kinds share
one ``BlobCache``: a blob read for one ref is not read from git again for
another. ``TORCHPARITY_CHECKOUT`` (sparse, roots or worktree) replaces the
default kind (``sparse``) where the caller left it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..exec.interrupt import temp_dir
from ..exec.pool import TargetLike
from ..gitrepo import git
from .sparse import BlobCache, write_checkout
from .worktree import _safe, repo_lock

KINDS = ("sparse", "roots", "worktree")
#: the variable that picks another kind where the caller left the default (``sparse``)
KIND_VARIABLE = "TORCHPARITY_CHECKOUT"
#: checkouts made at once
MAKERS = 2


@dataclass
class Checkout:
    """A target's view of its checkout while it runs."""

    path: Path
    key: str
    #: how the files were made, and who shares them (the evidence log's ``CHECKOUT=``)
    description: str = ""
    #: the overlay is already written (by the checkout, once for every target sharing it)
    overlaid: bool = True
    #: exit code of the removal, set when this target was the last to use it (else None: later)
    remove_exit_code: int | None = None


@dataclass
class _Holder:
    key: str
    ref: str
    commit: str
    overlay: tuple[tuple[str, bytes], ...]
    files: tuple[str, ...]
    users: list[str] = field(default_factory=list)
    remaining: int = 0
    made: Future[str] | None = None
    path: Path | None = None
    removed: int | None = None
    waiting: list[Callable[[int], None]] = field(default_factory=list)


def _key(commit: str, overlay: Sequence[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256(commit.encode())
    for path, data in sorted(overlay):
        digest.update(b"\0" + path.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()[:16]


class RefCheckouts:
    """The checkouts of one collect; call it as the collector's ``checkouts``; ``close`` once."""

    def __init__(self, repo: Path, roots: Sequence[str] = (), kind: str = "sparse") -> None:
        if kind not in KINDS:
            raise ValueError(f"checkout kind {kind!r}: one of {', '.join(KINDS)}")
        chosen = os.environ.get(KIND_VARIABLE, "").strip()
        if chosen and kind == "sparse":
            if chosen not in KINDS:
                raise UsageError(f"{KIND_VARIABLE}={chosen!r}: one of {', '.join(KINDS)}")
            kind = chosen
        self.repo = repo
        self.roots = tuple(roots)
        self.kind = kind
        self._holders: dict[str, _Holder] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=MAKERS, thread_name_prefix="checkout")
        self._folder: Path | None = None
        #: blob bytes by id, shared by this collect's sparse checkouts
        self.blobs = BlobCache()
        #: checkouts made so far (for the benchmarks and the tests)
        self.made = 0

    # -- planning ------------------------------------------------------------------------------
    def prepare(
        self, targets: Sequence[TargetLike], files: Callable[[TargetLike], Sequence[str]]
    ) -> None:
        """Count the users of each checkout and start making them all (in the background)."""
        with self._lock:
            for t in targets:
                key = _key(t.commit, t.overlay)
                holder = self._holders.get(key)
                if holder is None:
                    holder = self._holders[key] = _Holder(
                        key, t.ref, t.commit, tuple(t.overlay), tuple(files(t))
                    )
                else:  # every user's files are written
                    holder.files = tuple(dict.fromkeys((*holder.files, *files(t))))
                holder.users.append(t.label)
                holder.remaining += 1
            todo = [h for h in self._holders.values() if h.made is None]
            if todo and self._folder is None:
                self._folder = temp_dir(
                    "wt"
                )  # named for this process: pruned at the next start if it dies
            for holder in todo:
                holder.made = self._pool.submit(self._make, holder)

    def _make(self, holder: _Holder) -> str:
        assert self._folder is not None
        path = self._folder / f"{_safe(holder.ref)}-{holder.key[:8]}"
        holder.path = path
        if self.kind == "worktree":
            from .worktree import add_worktree

            add_worktree(
                self.repo, path, holder.commit, holder.ref
            )  # (it holds the repository's lock)
            for rel, data in holder.overlay:
                dest = path / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
            how = "a git worktree of the whole tree (git worktree add --detach)"
        else:
            report = write_checkout(
                self.repo,
                holder.commit,
                path,
                self.roots,
                holder.files,
                holder.overlay,
                whole_roots=self.kind == "roots",
                cache=self.blobs,
            )
            how = report.describe()
        self.made += 1
        return how

    # -- using -----------------------------------------------------------------------------------
    @contextmanager
    def __call__(self, repo: Path, target: TargetLike) -> Iterator[Checkout]:
        key = _key(target.commit, target.overlay)
        with self._lock:
            holder = self._holders.get(key)
        if holder is None:  # a target nobody planned: made now, for it alone
            self.prepare([target], lambda t: ())
            holder = self._holders[key]
        assert holder.made is not None
        checkout = None
        try:
            how = holder.made.result()  # the checkout's own error (CheckoutError, git's words) here
            assert holder.path is not None
            others = [u for u in holder.users if u != target.label]
            shared = (
                f"; shared with {', '.join(others)}, removed after the last of them"
                if others
                else ""
            )
            checkout = Checkout(holder.path, key, f"{how}{shared}")
            yield checkout
        finally:
            code = self._release(holder)
            if checkout is not None:
                checkout.remove_exit_code = code

    def when_removed(self, key: str, then: Callable[[int], None]) -> None:
        """Call ``then(exit code)`` once the checkout ``key`` is removed (now, if it is gone)."""
        with self._lock:
            holder = self._holders[key]
            if holder.removed is None:
                holder.waiting.append(then)
                return
            code = holder.removed
        then(code)

    def _release(self, holder: _Holder) -> int | None:
        with self._lock:
            holder.remaining -= 1
            if holder.remaining > 0:
                return None
        return self._remove(holder)

    def _remove(self, holder: _Holder) -> int:
        code = 0
        if (
            holder.made is not None
            and holder.made.done()
            and holder.made.exception() is None
            and holder.path
        ):
            code = self._remove_path(holder.path)
        elif holder.path is not None:  # failed half-way: whatever it wrote goes
            shutil.rmtree(holder.path, ignore_errors=True)
            if self.kind == "worktree":
                git(self.repo, "worktree", "prune", check=False)
        with self._lock:
            holder.removed = code
            waiting, holder.waiting = holder.waiting, []
        for then in waiting:
            then(code)
        return code

    def _remove_path(self, path: Path) -> int:
        if self.kind == "worktree":
            with repo_lock(self.repo):
                res = git(self.repo, "worktree", "remove", "--force", str(path), check=False)
                if res.returncode != 0:
                    shutil.rmtree(path, ignore_errors=True)
                    git(self.repo, "worktree", "prune", check=False)
            return res.returncode
        shutil.rmtree(path, ignore_errors=True)
        return 0 if not path.exists() else 1

    def close(self) -> None:
        """Remove every checkout still there (an interrupted run's too); those waiting are told."""
        for holder in list(self._holders.values()):
            if holder.made is not None:
                holder.made.cancel()
        self._pool.shutdown(wait=True)
        for holder in list(self._holders.values()):
            if holder.removed is None:
                self._remove(holder)
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
        self.blobs = BlobCache()  # the bytes kept go with the checkouts


__all__ = ["KINDS", "KIND_VARIABLE", "Checkout", "RefCheckouts"]
