"""A checkout of only what a run needs, written straight from git's objects.

``git worktree add`` writes every file of the ref (3,000 files, 50 MB for the
Ascend repo) and fails when a single blob anywhere in the tree is missing or
unreadable. A run reads far less: its test files, the test roots (helpers,
data files the tests open), and whatever modules of the repo the test files
import. ``write_checkout`` lists those paths with ``git ls-tree`` and writes
their bytes from one ``git cat-file --batch`` stream: a blob that is missing
or larger than ``MAX_BLOB`` is left out (and named), unless the run itself
needs it, in which case the checkout fails with that reason.

The modules a test file imports are found from its source (``ast``): an
``import a.b`` or ``from a import b`` that names a file of the tree in the test
file's folder (where ``python FILE`` looks first), or a relative import, is
written too, and so are the files those import, and so on.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..errors import EnvironmentBroken
from ..gitblobs import BlobReader, stream_blobs
from ..gitrepo import git

#: threads writing files at once
WRITERS = 4
#: a blob larger than this is not written unless the run names it (a model, a dataset, an archive)
MAX_BLOB = 64 * 1024 * 1024


class CheckoutError(EnvironmentBroken):
    """A file the run needs could not be written (missing from the repo's objects, say)."""


@dataclass(frozen=True)
class Entry:
    mode: str
    blob: str
    size: int
    path: str


@dataclass
class CheckoutReport:
    """What was written, and what was left out and why."""

    files: int = 0
    bytes: int = 0
    #: paths (repo-relative) of the roots asked for
    roots: tuple[str, ...] = ()
    #: files written because a test file imports them (outside the roots)
    imported: list[str] = field(default_factory=list)
    #: path -> why it was not written (missing object, too large)
    left_out: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        text = (
            f"{self.files} files ({self.bytes / 1e6:.1f} MB) of {', '.join(self.roots) or 'the test files'} "
            "written from git objects (git ls-tree, git cat-file), no git worktree"
        )
        if self.imported:
            text += f"; imported by the tests: {', '.join(self.imported)}"
        if self.left_out:
            shown = [f"{p} ({why})" for p, why in list(self.left_out.items())[:5]]
            more = len(self.left_out) - len(shown)
            text += "; left out: " + ", ".join(shown) + (f" and {more} more" if more > 0 else "")
        return text


def list_entries(repo: Path, commit: str, paths: Sequence[str] = ()) -> dict[str, Entry]:
    """path -> entry of every file under ``paths`` at ``commit`` (the whole tree when empty)."""
    spec = ["--", *paths] if paths else []
    res = git(repo, "ls-tree", "-r", "-l", "-z", "--full-tree", commit, *spec)
    out: dict[str, Entry] = {}
    for item in res.stdout.split(b"\0"):
        if not item:
            continue
        meta, _, raw = item.partition(b"\t")
        mode, kind, blob, size = meta.decode("ascii").split()
        if kind != "blob":  # a submodule's commit: nothing to write
            continue
        path = raw.decode("utf-8", "surrogateescape")
        out[path] = Entry(mode, blob, int(size) if size.isdigit() else 0, path)
    return out


# -- which files a test imports ---------------------------------------------------------------


def _imported_names(source: bytes) -> Iterator[tuple[int, str]]:
    """(level, dotted name) of each import in ``source`` (``from a import b`` gives a.b and a)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield 0, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            for alias in node.names:
                if alias.name != "*":
                    yield node.level, f"{base}.{alias.name}" if base else alias.name
            if base:
                yield node.level, base


def _candidates(importer: str, level: int, name: str) -> Iterator[str]:
    """Files of the tree that ``import name`` (at ``level``) in ``importer`` may mean."""
    folder = PurePosixPath(importer).parent
    if level:
        for _ in range(level - 1):
            folder = folder.parent
        bases = [folder]
    else:  # as ``python FILE`` finds it: in the file's folder (the repo's root is not on sys.path)
        bases = [folder]
    parts = [p for p in name.split(".") if p]
    for base in bases:
        for n in range(1, len(parts)):  # a package's __init__ runs before its modules
            yield base.joinpath(*parts[:n], "__init__.py").as_posix()
        if parts:
            stem = base.joinpath(*parts).as_posix()
            yield stem + ".py"
            yield stem + "/__init__.py"


def imported_files(tree: dict[str, Entry], start: Iterable[str], read: BlobReader) -> list[str]:
    """The files of ``tree`` that the Python files ``start`` import, directly or through each other."""
    seen = set(start)
    todo = [p for p in seen if p.endswith(".py") and p in tree]
    found: list[str] = []
    while todo:
        path = todo.pop()
        data = read.read(tree[path].blob)
        if data is None:
            continue
        for level, name in _imported_names(data):
            for cand in _candidates(path, level, name):
                if cand in tree and cand not in seen:
                    seen.add(cand)
                    found.append(cand)
                    todo.append(cand)
    return sorted(found)


# -- writing ---------------------------------------------------------------------------------


def _inside(dest: Path, path: Path) -> bool:
    try:
        return os.path.realpath(path.parent).startswith(os.path.realpath(dest))
    except OSError:
        return False


def _write(target: Path, data: bytes, mode: str) -> None:
    if mode == "120000":
        os.symlink(os.fsdecode(data), target)
        return
    with open(target, "wb") as fh:
        fh.write(data)
    if mode == "100755":
        target.chmod(0o755)


def write_checkout(
    repo: Path,
    commit: str,
    dest: Path,
    roots: Sequence[str],
    required: Sequence[str],
    overlay: Sequence[tuple[str, bytes]] = (),
    max_blob: int = MAX_BLOB,
) -> CheckoutReport:
    """Write ``roots`` (folders or files), ``required`` files and what they import at ``commit`` into
    ``dest``, then ``overlay`` (files not committed at the ref) on top. ``CheckoutError`` when a
    required file cannot be written."""
    tree = list_entries(repo, commit)
    report = CheckoutReport(roots=tuple(roots))
    wanted: dict[str, Entry] = {}
    for root in roots:
        root = root.strip("/")
        if root in ("", "."):
            wanted.update(tree)
            continue
        prefix = root + "/"
        wanted.update({p: e for p, e in tree.items() if p == root or p.startswith(prefix)})
    needed = [p for p in required if p not in dict(overlay)]
    for path in needed:
        if path not in tree:
            raise CheckoutError(f"{path} is not in the tree of {commit[:12]}")
        wanted[path] = tree[path]
    reader = BlobReader(repo)
    try:
        extra = imported_files(tree, [*needed, *(p for p, _ in overlay)], reader)
    finally:
        reader.close()
    for path in extra:
        if path not in wanted:
            report.imported.append(path)
        wanted[path] = tree[path]
    for path, entry in list(wanted.items()):
        if entry.size > max_blob and path not in needed:
            report.left_out[path] = (
                f"{entry.size / 1e6:.0f} MB, over the {max_blob / 1e6:.0f} MB limit"
            )
            del wanted[path]
    dest.mkdir(parents=True, exist_ok=True)
    order = sorted(wanted)
    folders = sorted({(dest / p).parent for p in order})
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    # file creation is the cost (a fraction of a millisecond each): a few threads write side by side
    with ThreadPoolExecutor(max_workers=WRITERS, thread_name_prefix="checkout") as pool:
        writes = []
        for (blob, data), path in zip(
            stream_blobs(repo, [wanted[p].blob for p in order]), order, strict=True
        ):
            if data is None:
                if path in needed:
                    raise CheckoutError(
                        f"{path} at {commit[:12]}: git has no object {blob} (a missing blob)"
                    )
                report.left_out[path] = f"git has no object {blob[:12]}"
                continue
            target = dest / path
            if not _inside(dest, target):
                report.left_out[path] = "its folder leads outside the checkout"
                continue
            writes.append(pool.submit(_write, target, data, wanted[path].mode))
            report.files += 1
            report.bytes += len(data)
        for w in writes:
            w.result()
    for path, data in overlay:
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return report


__all__ = [
    "CheckoutError",
    "CheckoutReport",
    "MAX_BLOB",
    "imported_files",
    "list_entries",
    "write_checkout",
]
