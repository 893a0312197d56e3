"""The per-ref index of a test tree, built from per-blob facts cached in the store.

Cold: ``ls-tree`` the ref, read the blobs the cache lacks with one
``cat-file --batch``, extract them in a process pool, keep the facts (compact
JSON) in the store's ``coverage_blob_facts`` table under the blob id. Warm (a
second branch, a second run): only new blobs are parsed. The facts of each
blob then become a ``FileIndex``: canonical name -> the tests that use it and
how, under one alias table.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..gitrepo import resolve_commit
from ..store import Store
from . import extract
from .aliases import AliasTable, Normalizer
from .extract import KINDS, decode_refs
from .gitobjects import TreeEntry, clean_roots, list_tree, open_repo, read_blobs

_SCHEMA = """
CREATE TABLE IF NOT EXISTS coverage_blob_facts (
    blob     TEXT PRIMARY KEY,     -- git blob id of a test file
    version  INTEGER NOT NULL,     -- extractor version (facts of another version are re-made)
    facts    TEXT NOT NULL         -- compact JSON (see coverage/extract.py)
);
"""

#: below this many new blobs a process pool costs more than it saves
_POOL_MIN = 24
_SQL_CHUNK = 500


class BlobCache:
    """Facts per git blob id, in the store (shared by every branch, repo and run)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        store.ensure_schema("coverage", _SCHEMA)

    def get_many(self, blobs: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for i in range(0, len(blobs), _SQL_CHUNK):
            chunk = blobs[i : i + _SQL_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self.store.query(
                f"SELECT blob, facts FROM coverage_blob_facts WHERE version=? AND blob IN ({marks})",
                (extract.VERSION, *chunk),
            )
            out.update((r["blob"], r["facts"]) for r in rows)
        return out

    def put_many(self, items: dict[str, str]) -> None:
        if not items:
            return
        with self.store.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO coverage_blob_facts(blob, version, facts) VALUES (?, ?, ?)",
                [(blob, extract.VERSION, facts) for blob, facts in items.items()],
            )

    def count(self) -> int:
        return int(self.store.query("SELECT COUNT(*) AS n FROM coverage_blob_facts")[0]["n"])


def _extract_json(data: bytes) -> str:
    return json.dumps(extract.extract(data), separators=(",", ":"), ensure_ascii=False)


def _extract_chunk(chunk: list[bytes]) -> list[str]:
    return [_extract_json(d) for d in chunk]


def extract_all(blobs: dict[str, bytes], jobs: int = 0) -> dict[str, str]:
    """Facts (JSON text) for each blob; a process pool when there are many."""
    items = list(blobs.items())
    workers = jobs or os.cpu_count() or 1
    if len(items) < _POOL_MIN or workers <= 1:
        return {sha: _extract_json(data) for sha, data in items}
    # big files first, then dealt round-robin, so the workers finish together
    items.sort(key=lambda kv: len(kv[1]), reverse=True)
    chunks: list[list[tuple[str, bytes]]] = [[] for _ in range(workers * 4)]
    for i, item in enumerate(items):
        chunks[i % len(chunks)].append(item)
    out: dict[str, str] = {}
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = pool.map(_extract_chunk, [[d for _, d in c] for c in chunks])
            for chunk, facts in zip(chunks, results, strict=True):
                for (sha, _), f in zip(chunk, facts, strict=True):
                    out[sha] = f
    except (BrokenProcessPool, OSError):  # no processes to be had here: parse in this one
        out.update((sha, _extract_json(data)) for sha, data in items if sha not in out)
    return out


# -- one file ---------------------------------------------------------------------------------

#: a use of a name by a test: (role, via, chained, inherited_via, line)
Use = tuple[str, str, bool, str, int]

_ROLE_RANK = {"c": 3, "w": 3, "d": 3, "a": 1}


def _better(new: Use, old: Use) -> bool:
    """Prefer direct roles, then plain spellings (no inheritance, no helper, no data flow)."""
    rn, ro = _ROLE_RANK[new[0]], _ROLE_RANK[old[0]]
    if rn != ro:
        return rn > ro
    return (bool(new[3]), len(new[1])) < (bool(old[3]), len(old[1]))


class FileIndex:
    """The tests of one file and, per canonical name, which of them use it and how.

    What a query needs to find the file (its names, the members of each parent, the
    mentions) is made at once; the per-test uses only when a query asks this file,
    so loading a branch of cached facts stays cheap.
    """

    __slots__ = ("error", "tests", "names", "children", "weak", "module_weak", "_facts", "_normalizer",
                 "_uses")

    def __init__(self, facts: dict[str, Any], normalizer: Normalizer) -> None:
        self.error: str | None = facts.get("err")
        funcs = facts.get("f", [])
        # tests in line order: test numbers then sort like places in the file
        ordered = sorted((f for f in funcs if f[3]), key=lambda f: f[1])
        self.tests: list[tuple[str, int, int]] = [(f[0], f[1], f[2]) for f in ordered]
        flat = normalizer.flat
        strings = facts.get("s", [])
        pairs: set[tuple[int, int]] = set()
        for f in funcs:  # helpers too: a name only a helper uses reaches its tests
            r = f[4]
            pairs.update(zip(r[0::4], r[1::4], strict=True))
        names: set[str] = set()
        for c, k in pairs:
            names.update(e[0] for e in flat(strings[c], KINDS[k]))
        #: every canonical name some function of the file uses (a superset of the tests' names)
        self.names = names
        self.children: dict[str, set[str]] = {}  # parent name -> member names used
        for name in names:
            parent = name.rpartition(".")[0]
            if parent:
                self.children.setdefault(parent, set()).add(name)
        self.weak: dict[str, set[int]] = {}  # dotted suffix in a string -> tests
        for ti, f in enumerate(ordered):
            for token in f[6]:
                parts = token.split(".")
                for k in range(len(parts) - 2, -1, -1):
                    self.weak.setdefault(".".join(parts[k:]), set()).add(ti)
        #: dotted suffix mentioned in the module's or a class's docstring -> its line
        self.module_weak: dict[str, int] = {}
        for token, line in facts.get("m", []):
            parts = token.split(".")
            for k in range(len(parts) - 2, -1, -1):
                self.module_weak.setdefault(".".join(parts[k:]), line)
                self.weak.setdefault(".".join(parts[k:]), set())
        self._facts: dict[str, Any] | None = facts
        self._normalizer = normalizer
        self._uses: dict[str, dict[int, Use]] | None = None

    @property
    def uses(self) -> dict[str, dict[int, Use]]:
        """Canonical name -> {test number: how the test uses it} (built on first use)."""
        if self._uses is None:
            assert self._facts is not None
            self._uses = _uses(self._facts, self._normalizer)
            self._facts = None
        return self._uses


def _uses(facts: dict[str, Any], normalizer: Normalizer) -> dict[str, dict[int, Use]]:
    funcs = {f[0]: f for f in facts.get("f", [])}
    expanded: dict[str, list[list[Any]]] = {}

    def refs_of(qual: str, stack: tuple[str, ...]) -> list[list[Any]]:
        if qual in expanded:
            return expanded[qual]
        f = funcs[qual]
        refs = decode_refs(facts, f)
        for callee in f[5]:
            if callee in funcs and callee not in stack:
                tag = f"h:{callee.rsplit('.', 1)[-1]}"
                for chain, kind, line, via in refs_of(callee, (*stack, callee)):
                    refs.append([chain, kind, line, f"{tag},{via}" if via else tag])
        expanded[qual] = refs
        return refs

    uses: dict[str, dict[int, Use]] = {}
    flat = normalizer.flat
    ordered = sorted((f for f in facts.get("f", []) if f[3]), key=lambda f: f[1])
    for ti, f in enumerate(ordered):
        start, end = f[1], f[2]
        for chain, kind, line, via in refs_of(f[0], (f[0],)):
            if not start <= line <= end:
                line = start  # a use inside a helper: point at the test itself
            for name, role, chained, inherited in flat(chain, kind):
                use: Use = (role, via, chained, inherited, line)
                per = uses.get(name)
                if per is None:
                    uses[name] = {ti: use}
                else:
                    old = per.get(ti)
                    if old is None or (old != use and _better(use, old)):
                        per[ti] = use
    return uses


# -- one ref ----------------------------------------------------------------------------------

@dataclass
class RefIndex:
    """A ref's test tree: its files, each file's index, what was skipped."""

    repo: Path
    ref: str
    commit: str
    roots: tuple[str, ...]
    entries: list[TreeEntry]  # every file under the roots (git grep searches them all)
    files: list[tuple[str, str]]  # (path, blob) of the Python files
    indexes: list[FileIndex]
    skipped: list[tuple[str, str]]  # (path, why)
    parsed: int = 0  # blobs parsed for this index (not found in the cache)
    cached: int = 0  # blobs whose facts came from the cache

    @property
    def tests(self) -> int:
        return sum(len(fi.tests) for fi in self.indexes)


class Indexer:
    """Builds ``RefIndex``es; keeps facts and file indexes in memory across refs of one run."""

    def __init__(self, store: Store, table: AliasTable, *, jobs: int = 0) -> None:
        self.cache = BlobCache(store)
        self.table = table
        self.normalizer = Normalizer(table)
        self.jobs = jobs
        self._file_indexes: dict[str, FileIndex] = {}

    def index(self, repo: str | Path, ref: str, roots: Iterable[str], *, flag: str = "--repo",
              commit: str = "") -> RefIndex:
        """The index of ``repo`` at ``ref`` (``flag`` names the option the repo came from, for errors;
        ``commit``: what ``ref`` was already resolved to)."""
        root = open_repo(repo, flag)
        commit = commit or resolve_commit(root, ref)
        clean = clean_roots(list(roots))
        entries = list_tree(root, commit, clean)
        files = [(e.path, e.blob) for e in entries if e.is_python]
        missing = [b for b in dict.fromkeys(b for _, b in files) if b not in self._file_indexes]
        facts = self.cache.get_many(missing)
        cached = len(facts)
        new = [b for b in missing if b not in facts]
        if new:
            made = extract_all(read_blobs(root, new), self.jobs)
            self.cache.put_many(made)
            facts.update(made)
        for blob in missing:
            text = facts.get(blob)
            doc = json.loads(text) if text else {"err": "blob missing from the repository", "f": []}
            self._file_indexes[blob] = FileIndex(doc, self.normalizer)
        indexes = [self._file_indexes[b] for _, b in files]
        skipped = [(p, fi.error) for (p, _), fi in zip(files, indexes, strict=True) if fi.error]
        return RefIndex(root, ref, commit, clean, entries, files, indexes, skipped, len(new), cached)
