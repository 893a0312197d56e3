"""A checkout of only what a run needs, written straight from git's objects.

``git worktree add`` writes every file of the ref (3,000 files, 50 MB for the
Ascend repo) and fails when a single blob anywhere in the tree is missing or
unreadable; writing a whole test root (``test/`` of Ascend/pytorch: 897 files,
22.7 MiB) at every ref made a run on 4 refs cost 1.5-1.8x one ref. A run reads
far less. ``write_checkout`` lists the tree with ``git ls-tree`` and writes:

* the test files (``required``) and the overlay (files not committed at the ref);
* the modules they import (``ast``): an ``import a.b`` or ``from a import b``
  that names a file of the tree in the importer's folder (where ``python FILE``
  looks first) or in a folder above it up to its test root (where a test that
  puts its root on ``sys.path`` finds its helpers; the test root is the root
  among ``roots`` that holds the file, else its top folder), or a relative
  import; and the files those import, and so on;
* what the files need to run as the backend's CI runs them: ``conftest.py``,
  ``__init__.py`` and pytest's config files in each folder from the test root
  down to each test file, and what those import;
* data files a written Python file names by a relative path (a string constant
  such as ``"base_data/x.pth"`` or ``"deprecated_apis.json"`` naming a file, or
  a folder of at most ``MAX_DATA_FILES`` files, relative to the file's folder,
  a folder above it up to the test root, or the checkout's root, the run's
  working directory), each up to ``MAX_DATA``; and the ``expect/`` files of
  the classes of a file that calls ``assertExpected``;
* a root that holds none of the run's files (a data folder named on purpose),
  whole.

``whole_roots=True`` writes every root whole, as before (the ``roots`` kind of
``RefCheckouts``). A blob that is missing or larger than ``MAX_BLOB`` is left
out (and named), unless the run itself needs it (a test file), in which case
the checkout fails with that reason.

Bytes come from one ``git cat-file --batch`` stream, through a ``BlobCache``
that the checkouts of one run share: a blob read for one ref (its bytes kept by
id) is written from memory for another ref, not read from git again.
"""

from __future__ import annotations

import ast
import os
import posixpath
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .. import pyast
from ..errors import EnvironmentBroken
from ..gitblobs import BlobReader, stream_blobs
from ..gitrepo import git

#: threads writing files at once
WRITERS = 4
#: a blob larger than this is not written unless the run names it (a model, a dataset, an archive)
MAX_BLOB = 64 * 1024 * 1024
#: a data file a test names is written up to this size (a larger one is left out, and named)
MAX_DATA = 8 * 1024 * 1024
#: a folder a test names is written if it holds at most this many files (and MAX_DATA bytes)
MAX_DATA_FILES = 64
#: files of the folders on a test file's path that the backend's CI reads when it runs the file
SUPPORT_FILES = (
    "__init__.py",
    "conftest.py",
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
)
#: bytes a ``BlobCache`` keeps at most, and the largest blob it keeps
CACHE_BYTES = 256 * 1024 * 1024
CACHE_BLOB = 16 * 1024 * 1024

_PATHLIKE = re.compile(r"(?:\./)?[\w.+-]+(?:/[\w.+-]+)*/?")


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
    #: the roots written whole (``whole_roots``, or a root that holds none of the run's files)
    whole: tuple[str, ...] = ()
    #: files written because a test file imports them (not in a root written whole)
    imported: list[str] = field(default_factory=list)
    #: files written because a test file names them (data) or CI reads them (conftest.py, ...)
    support: list[str] = field(default_factory=list)
    #: files whose bytes came from another checkout's read of the same blob (not read from git again)
    reused: int = 0
    #: path -> why it was not written (missing object, too large)
    left_out: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        if self.whole:
            what = f"{', '.join(self.whole)} whole"
            if self.roots != self.whole:
                what += " and the test files with what they import and need"
        else:
            under = f" under {', '.join(self.roots)}" if self.roots else ""
            what = f"the test files and what they import and need{under}"
        text = (
            f"{self.files} files ({self.bytes / 1e6:.1f} MB): {what}, "
            "written from git objects (git ls-tree, git cat-file), no git worktree"
        )
        if self.reused:
            text += f"; {self.reused} of them from another checkout's read of the same blob"
        if self.imported:
            text += f"; imported by the tests: {_some(self.imported)}"
        if self.support:
            text += f"; read by the tests or their runner: {_some(self.support)}"
        if self.left_out:
            shown = [f"{p} ({why})" for p, why in list(self.left_out.items())[:5]]
            more = len(self.left_out) - len(shown)
            text += "; left out: " + ", ".join(shown) + (f" and {more} more" if more > 0 else "")
        return text


def _some(paths: Sequence[str], most: int = 10) -> str:
    more = len(paths) - most
    return ", ".join(paths[:most]) + (f" and {more} more" if more > 0 else "")


class BlobCache:
    """Blob bytes by id, shared by the checkouts of one run (thread-safe): a blob read from git for
    one ref is given from memory to every later checkout that writes it, and a checkout that needs a
    blob another is reading right now waits for that read instead of starting its own. Keeps at
    most ``limit`` bytes, no blob over ``largest`` (those are read again)."""

    def __init__(self, limit: int = CACHE_BYTES, largest: int = CACHE_BLOB) -> None:
        self.limit = limit
        self.largest = largest
        self._data: dict[str, bytes] = {}
        self._missing: set[str] = set()
        self._reading: dict[str, threading.Event] = {}
        self._held = 0
        self._lock = threading.Lock()
        #: blobs read from git through this cache, and blobs given from memory instead
        self.read_from_git = 0
        self.given = 0

    def take(
        self, blobs: Iterable[str]
    ) -> tuple[dict[str, bytes | None], list[str], list[tuple[str, threading.Event]]]:
        """Split ``blobs``: known (bytes, None for a missing one), claimed now by the caller (it reads
        them, then ``put``s or ``release``s each), and being read by another checkout (wait, then
        ``take`` them again)."""
        known: dict[str, bytes | None] = {}
        mine: list[str] = []
        others: list[tuple[str, threading.Event]] = []
        with self._lock:
            for blob in blobs:
                if blob in self._data:
                    known[blob] = self._data[blob]
                elif blob in self._missing:
                    known[blob] = None
                elif blob in self._reading:
                    others.append((blob, self._reading[blob]))
                else:
                    self._reading[blob] = threading.Event()
                    mine.append(blob)
            self.given += len(known)
        return known, mine, others

    def put(self, blob: str, data: bytes | None) -> None:
        """``blob`` (claimed by the caller) was read from git: ``data`` its bytes, None when missing."""
        with self._lock:
            self.read_from_git += 1
            if data is None:
                self._missing.add(blob)
            elif blob not in self._data and len(data) <= self.largest:
                if self._held + len(data) <= self.limit:
                    self._data[blob] = data
                    self._held += len(data)
            event = self._reading.pop(blob, None)
        if event is not None:
            event.set()

    def release(self, blobs: Iterable[str]) -> None:
        """Give up the claims on ``blobs`` (a read that ended early): a waiter reads them itself."""
        with self._lock:
            events = [e for b in blobs if (e := self._reading.pop(b, None)) is not None]
        for event in events:
            event.set()


class _Source:
    """Blob bytes for one checkout: from the cache, else from git (one ``cat-file`` started on need)."""

    def __init__(self, repo: Path, cache: BlobCache) -> None:
        self.repo = repo
        self.cache = cache
        self._reader: BlobReader | None = None
        #: blobs this checkout read from git (bytes from the cache for another is a reuse)
        self.fetched: set[str] = set()

    def read(self, blob: str) -> bytes | None:
        while True:
            known, mine, others = self.cache.take([blob])
            if known:
                return known[blob]
            if mine:
                try:
                    if self._reader is None:
                        self._reader = BlobReader(self.repo)
                    data = self._reader.read(blob)
                except BaseException:
                    self.cache.release(mine)
                    raise
                self.fetched.add(blob)
                self.cache.put(blob, data)
                return data
            for _, event in others:
                event.wait()

    def stream(self, blobs: Sequence[str]) -> Iterator[tuple[str, bytes | None, bool]]:
        """(blob, bytes or None when missing, True if another checkout read it) once for each of
        ``blobs``, in no set order: from memory, else from one ``git cat-file`` stream."""
        pending = list(dict.fromkeys(blobs))
        while pending:
            known, mine, others = self.cache.take(pending)
            for blob, data in known.items():
                yield blob, data, blob not in self.fetched
            left = set(mine)
            try:
                for blob, data in stream_blobs(self.repo, mine):
                    self.fetched.add(blob)
                    self.cache.put(blob, data)
                    left.discard(blob)
                    yield blob, data, False
            finally:
                self.cache.release(left)
            for _, event in others:
                event.wait()
            pending = [blob for blob, _ in others]

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


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


# -- what a test file reads --------------------------------------------------------------------


@dataclass
class _Facts:
    """What a Python file's source says about the files it reads."""

    imports: list[tuple[int, str]] = field(default_factory=list)
    strings: set[str] = field(default_factory=set)
    classes: list[str] = field(default_factory=list)
    expects: bool = False


def _facts(source: bytes) -> _Facts:
    """Imports (level, dotted name; ``from a import b`` gives a.b and a), path-like string constants,
    class names, and whether it calls ``assertExpected`` (files under ``expect/``)."""
    out = _Facts()
    try:
        tree = pyast.parse_module(source)
    except (SyntaxError, ValueError):
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.imports.extend((0, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            for alias in node.names:
                if alias.name != "*":
                    out.imports.append((node.level, f"{base}.{alias.name}" if base else alias.name))
            if base:
                out.imports.append((node.level, base))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if len(text) <= 255 and _PATHLIKE.fullmatch(text) and ("/" in text or "." in text):
                if any(part not in ("", ".", "..") for part in text.split("/")):
                    out.strings.add(text)
        elif isinstance(node, ast.ClassDef):
            out.classes.append(node.name)
        elif isinstance(node, ast.Attribute) and node.attr.startswith("assertExpected"):
            out.expects = out.expects or node.attr != "assertExpectedInline"
    return out


def _root_of(path: str, roots: Sequence[str]) -> str:
    """The test root of ``path``: the longest of ``roots`` that holds it ("" for the repo's root),
    else its top folder (``test`` for ``test/npu/x.py``, as ``run`` picks its roots)."""
    best: str | None = None
    for root in roots:
        if (root == "" or path.startswith(root + "/")) and (best is None or len(root) > len(best)):
            best = root
    return best if best is not None else path.split("/", 1)[0] if "/" in path else ""


def _folders_down(root: str, path: str) -> list[str]:
    """The folders from ``root`` down to the folder of ``path`` (``root`` first)."""
    folder = posixpath.dirname(path)
    out = [folder]
    while folder != root and folder:
        folder = posixpath.dirname(folder)
        out.append(folder)
    return out[::-1] if folder == root else [posixpath.dirname(path)]


def _bases(path: str, root: str) -> list[str]:
    """Where ``import x`` in ``path`` is looked for: its folder first, then each folder above it up
    to its test root; never the repo's root unless the file is there (not on ``python FILE``'s path)."""
    folders = _folders_down(root, path)[::-1]
    return [f for f in folders if f or f == posixpath.dirname(path)]


def _candidates(importer: str, level: int, name: str, bases: Sequence[str] = ()) -> Iterator[str]:
    """Files of the tree that ``import name`` (at ``level``) in ``importer`` may mean, per base."""
    folder = PurePosixPath(importer).parent
    if level:
        for _ in range(level - 1):
            folder = folder.parent
        found = [folder]
    else:
        found = [PurePosixPath(b) for b in bases] or [folder]
    parts = [p for p in name.split(".") if p]
    for base in found:
        for n in range(1, len(parts)):  # a package's __init__ runs before its modules
            yield base.joinpath(*parts[:n], "__init__.py").as_posix()
        if parts:
            stem = base.joinpath(*parts).as_posix()
            yield stem + ".py"
            yield stem + "/__init__.py"


class _Tree:
    """A ref's tree, with its folders (files and bytes under each) for lookups by path."""

    def __init__(self, entries: dict[str, Entry]) -> None:
        self.entries = entries
        self.folders: dict[str, list[int]] = {}
        for path, entry in entries.items():
            folder = posixpath.dirname(path)
            while folder:
                stats = self.folders.setdefault(folder, [0, 0])
                stats[0] += 1
                stats[1] += entry.size
                folder = posixpath.dirname(folder)

    def module_bases(self, bases: Sequence[str], name: str) -> list[str]:
        """Those of ``bases`` where the top-level module of ``name`` is a file or a folder."""
        top = name.split(".", 1)[0]
        out = []
        for base in bases:
            stem = posixpath.join(base, top) if base else top
            if stem + ".py" in self.entries or stem in self.folders:
                out.append(base)
        return out

    def under(self, folder: str) -> list[str]:
        prefix = folder + "/"
        return [p for p in self.entries if p.startswith(prefix)]


@dataclass
class _Needs:
    imported: list[str] = field(default_factory=list)
    #: path -> why it is written (data a file names, CI's support file)
    support: dict[str, str] = field(default_factory=dict)


def _needs(
    tree: _Tree,
    start: Sequence[str],
    roots: Sequence[str],
    read: Callable[[str], bytes | None],
    overlay: Mapping[str, bytes],
    narrow: bool,
) -> _Needs:
    """The files the run of ``start`` reads besides them: what they import (all kinds), and where
    ``narrow``: CI's support files on their path, the data files they name."""
    entries = tree.entries
    out = _Needs()
    seen = set(start)
    todo: list[str] = []

    def add(path: str, why: str) -> None:
        if path in entries and path not in seen:
            seen.add(path)
            if why == "import":
                out.imported.append(path)
            else:
                out.support[path] = why
            if path.endswith(".py") and why != "data":
                todo.append(path)

    for path in start:
        if path.endswith(".py") and (path in entries or path in overlay):
            todo.append(path)
        if narrow:
            root = _root_of(path, roots)
            for folder in _folders_down(root, path):
                for name in SUPPORT_FILES:
                    add(posixpath.join(folder, name) if folder else name, "support")
    done: set[str] = set()
    while todo:
        path = todo.pop()
        if path in done:
            continue
        done.add(path)
        data = overlay.get(path)
        if data is None:
            data = read(entries[path].blob)
        if data is None:
            continue
        facts = _facts(data)
        root = _root_of(path, roots)
        bases = _bases(path, root)
        for level, name in facts.imports:
            found = tree.module_bases(bases, name) if not level else []
            if level or found:
                for cand in _candidates(path, level, name, found):
                    add(cand, "import")
        if not narrow:
            continue
        folder = posixpath.dirname(path)
        for text in sorted(facts.strings):
            for base in [*bases, ""]:
                named = posixpath.normpath(posixpath.join(base, text))
                if named.startswith("../") or named in ("..", ".") or named == base:
                    continue
                if named in entries:
                    add(named, "data")
                elif named in tree.folders:
                    files, size = tree.folders[named]
                    if files <= MAX_DATA_FILES and size <= MAX_DATA:
                        for inner in tree.under(named):
                            add(inner, "data")
        if facts.expects and facts.classes:
            expect = posixpath.join(folder, "expect")
            for inner in tree.under(expect) if expect in tree.folders else ():
                if posixpath.basename(inner).startswith(tuple(facts.classes)):
                    add(inner, "data")
    out.imported.sort()
    return out


def imported_files(tree: dict[str, Entry], start: Iterable[str], read: BlobReader) -> list[str]:
    """The files of ``tree`` that the Python files ``start`` import, directly or through each other
    (looked for in each file's folder, then the folders above it up to its top folder)."""
    return _needs(_Tree(tree), list(start), (), read.read, {}, narrow=False).imported


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
    *,
    whole_roots: bool = False,
    cache: BlobCache | None = None,
) -> CheckoutReport:
    """Write what the run of ``required`` at ``commit`` reads into ``dest`` (the module's doc says
    what), then ``overlay`` (files not committed at the ref) on top. ``roots``: the test roots, each
    written whole where ``whole_roots`` or where it holds none of the run's files. ``cache``: blob
    bytes shared with the other checkouts of the run. ``CheckoutError`` when a required file cannot
    be written."""
    entries = list_entries(repo, commit)
    tree = _Tree(entries)
    given = dict(overlay)
    run_files = [*required, *(p for p in given if p not in required)]
    clean = {r: "" if r.strip("/") == "." else r.strip("/") for r in roots}
    whole = [
        r
        for r, c in clean.items()
        if whole_roots or not any(c == "" or p.startswith(c + "/") for p in run_files)
    ]
    report = CheckoutReport(roots=tuple(roots), whole=tuple(whole))
    wanted: dict[str, Entry] = {}
    for root in (clean[r] for r in whole):
        wanted.update(entries if root == "" else {p: entries[p] for p in tree.under(root)})
        if root in entries:
            wanted[root] = entries[root]
    needed = [p for p in required if p not in given]
    for path in needed:
        if path not in entries:
            raise CheckoutError(f"{path} is not in the tree of {commit[:12]}")
        wanted[path] = entries[path]
    source = _Source(repo, cache if cache is not None else BlobCache())
    try:
        needs = _needs(
            tree, run_files, list(clean.values()), source.read, given, narrow=not whole_roots
        )
        for path in needs.imported:
            if path not in wanted:
                report.imported.append(path)
                wanted[path] = entries[path]
        for path, why in needs.support.items():
            if path in wanted:
                continue
            if why == "data" and entries[path].size > MAX_DATA:
                report.left_out[path] = (
                    f"{entries[path].size / 1e6:.0f} MB, named by a test but over the "
                    f"{MAX_DATA / 1e6:.0f} MB limit for data"
                )
                continue
            report.support.append(path)
            wanted[path] = entries[path]
        report.support.sort()
        for path, entry in list(wanted.items()):
            if entry.size > max_blob and path not in needed:
                report.left_out[path] = (
                    f"{entry.size / 1e6:.0f} MB, over the {max_blob / 1e6:.0f} MB limit"
                )
                del wanted[path]
        for path in given:  # the overlay replaces what is committed there
            wanted.pop(path, None)
        dest.mkdir(parents=True, exist_ok=True)
        order = sorted(wanted)
        for folder in sorted({(dest / p).parent for p in order}):
            folder.mkdir(parents=True, exist_ok=True)
        by_blob: dict[str, list[str]] = {}
        for path in order:
            by_blob.setdefault(wanted[path].blob, []).append(path)
        missing: dict[str, str] = {}
        # file creation is the cost (a fraction of a millisecond each): a few threads write side by side
        with ThreadPoolExecutor(max_workers=WRITERS, thread_name_prefix="checkout") as pool:
            writes = []
            for blob, data, reused in source.stream(list(by_blob)):
                for path in by_blob[blob]:
                    if data is None:
                        if path in needed:
                            raise CheckoutError(
                                f"{path} at {commit[:12]}: git has no object {blob} (a missing blob)"
                            )
                        missing[path] = f"git has no object {blob[:12]}"
                        continue
                    target = dest / path
                    if not _inside(dest, target):
                        missing[path] = "its folder leads outside the checkout"
                        continue
                    writes.append(pool.submit(_write, target, data, wanted[path].mode))
                    report.files += 1
                    report.bytes += len(data)
                    report.reused += reused
            for w in writes:
                w.result()
        report.left_out.update(sorted(missing.items()))
    finally:
        source.close()
    for path, data in overlay:
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return report


__all__ = [
    "BlobCache",
    "CheckoutError",
    "CheckoutReport",
    "MAX_BLOB",
    "MAX_DATA",
    "imported_files",
    "list_entries",
    "write_checkout",
]
