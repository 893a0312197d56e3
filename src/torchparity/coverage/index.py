"""The per-ref index of a test tree, built from per-blob facts cached in the store.

Cold: ``ls-tree`` the ref, read the blobs the cache lacks with one
``cat-file --batch``, extract them in a process pool, keep the facts (compact
JSON) in the store's ``coverage_blob_facts`` table under the blob id. Warm (a
second branch, a second run): only new blobs are parsed. The facts of each
blob then become a ``FileIndex``: canonical name -> the tests that use it and
how, under one alias table.

The built index of a ref is kept too (``coverage_ref_index``), under the ref's
tree id, its test roots, the alias table's digest and the extractor's and the
tool's versions: a later call with the same inputs loads it in one read
(``BuiltIndexes``), and the facts of a file are read only when a query asks
that file how its tests use a name.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from .. import __version__
from ..errors import UsageError
from ..gitrepo import git, resolve_commit
from ..store import Store
from . import extract
from .aliases import AliasTable, Normalizer
from .extract import KINDS, _join_via, _parts, decode_refs, substitute
from .gitobjects import TreeEntry, blob_sizes, clean_roots, list_tree, open_repo, read_blobs
from .link import FileFacts, Link, Linker, ModuleMap, Target

_SCHEMA = """
CREATE TABLE IF NOT EXISTS coverage_blob_facts (
    blob     TEXT PRIMARY KEY,     -- git blob id of a test file
    version  INTEGER NOT NULL,     -- extractor version (facts of another version are re-made)
    facts    TEXT NOT NULL         -- compact JSON (see coverage/extract.py)
);
"""

_INDEX_SCHEMA = """
CREATE TABLE IF NOT EXISTS coverage_ref_index (
    key   TEXT PRIMARY KEY,   -- digest of (tree id, roots, alias table, extractor and tool versions)
    used  REAL NOT NULL,      -- when it was last made or loaded (the oldest go first)
    data  BLOB NOT NULL       -- msgpack of the built index (``Indexer._dump``)
);
CREATE TABLE IF NOT EXISTS coverage_file_uses (
    key   TEXT NOT NULL,      -- the built index's key
    file  INTEGER NOT NULL,   -- the file's number in it
    data  BLOB NOT NULL,      -- msgpack: name -> [[test number, role, via, chained, inherited, line, chain]]
    PRIMARY KEY (key, file)
);
"""
#: a kept index's time of use is written again only when older than this (seconds)
_USED_EVERY = 3600.0
#: built indexes kept per store (each is a few MB; a ref x alias table each)
KEEP_BUILT = 24
#: the built index's own layout (a change makes the kept ones unusable, and they are remade)
BUILT_FORMAT = 2

#: a test file larger than this is not parsed (nor read): parsing needs about 170 times its size in memory
DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024
#: the environment variable that sets another limit (bytes, or with a K/M suffix: 512K, 16M)
MAX_FILE_ENV = "TORCHPARITY_COVERAGE_MAX_FILE"
_SIZE = re.compile(r"(\d+)\s*(?:([kKmM])(?:i?B)?)?")


def max_file_bytes() -> int:
    """The size limit of one test file: ``$TORCHPARITY_COVERAGE_MAX_FILE``, else 4 MiB."""
    raw = os.environ.get(MAX_FILE_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_FILE_BYTES
    m = _SIZE.fullmatch(raw)
    n = int(m.group(1)) << {"": 0, "k": 10, "m": 20}[(m.group(2) or "").lower()] if m else 0
    if n <= 0:
        raise UsageError(
            f"{MAX_FILE_ENV}={raw!r} is not a size; give the largest test file to parse in bytes, "
            "or with a K or M suffix (e.g. 16M)"
        )
    return n


def too_large(size: int, limit: int) -> str:
    """Why a test file of ``size`` bytes was skipped (the note the answer carries)."""
    return (
        f"{size:,} bytes, over the limit of {limit:,} bytes for one test file: not read (parsing takes "
        f"about 170 times a file's size in memory); set {MAX_FILE_ENV} higher to index it"
    )


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


class BuiltIndexes:
    """Built ref indexes in the store, each one row read in one query."""

    def __init__(self, store: Store) -> None:
        self.store = store
        store.ensure_schema("coverage_ref_index", _INDEX_SCHEMA)

    def get(self, key: str) -> bytes | None:
        rows = self.store.query("SELECT used, data FROM coverage_ref_index WHERE key=?", (key,))
        if not rows:
            return None
        now = time.time()
        if (
            now - float(rows[0]["used"]) > _USED_EVERY
        ):  # (a write per call would cost more than the read)
            try:
                with self.store.transaction() as conn:
                    conn.execute("UPDATE coverage_ref_index SET used=? WHERE key=?", (now, key))
            except Exception:  # noqa: BLE001 - a read-only store still answers
                pass
        return bytes(rows[0]["data"])

    def put(self, key: str, data: bytes) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO coverage_ref_index(key, used, data) VALUES (?, ?, ?)",
                (key, time.time(), data),
            )
            conn.execute(
                "DELETE FROM coverage_ref_index WHERE key NOT IN "
                "(SELECT key FROM coverage_ref_index ORDER BY used DESC LIMIT ?)",
                (KEEP_BUILT,),
            )
            conn.execute(
                "DELETE FROM coverage_file_uses WHERE key NOT IN (SELECT key FROM coverage_ref_index)"
            )

    def uses(self, key: str, file: int) -> Mapping[str, dict[int, Use]] | None:
        """The uses of file number ``file`` of the built index ``key``, as an earlier call built them
        (each name's decoded when a query asks for it)."""
        rows = self.store.query(
            "SELECT data FROM coverage_file_uses WHERE key=? AND file=?", (key, file)
        )
        if not rows:
            return None
        return RawLookup(bytes(rows[0]["data"]), _uses_of)

    def put_uses(self, key: str, built: Sequence[tuple[int, bytes]]) -> None:
        """Keep each file's uses (``encode_uses``) under ``key``."""
        rows = [(key, file, data) for file, data in built]
        with self.store.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO coverage_file_uses(key, file, data) VALUES (?, ?, ?)", rows
            )


def encode_uses(uses: Mapping[str, dict[int, Use]]) -> bytes:
    """A file's uses as the store keeps them (``RawLookup(data, _uses_of)`` reads them back)."""
    return msgspec.msgpack.encode(
        {name: [[ti, *use] for ti, use in per.items()] for name, per in uses.items()}
    )


_DIGESTS: dict[int, tuple[AliasTable, str]] = {}


def table_digest(table: AliasTable) -> str:
    """A digest of everything in ``table`` that decides how a chain reads (kept per table object)."""
    hit = _DIGESTS.get(id(table))
    if hit is not None and hit[0] is table:
        return hit[1]
    doc = [
        sorted(table.aliases.items()),
        sorted(
            (k, list(v.bases), sorted(v.defines) if v.defines is not None else None)
            for k, v in table.classes.items()
        ),
        sorted(table.functions),
        sorted(table.returns.items()),
        sorted(table.attributes.items()),
    ]
    digest = hashlib.sha256(msgspec.json.encode(doc)).hexdigest()
    _DIGESTS[id(table)] = (table, digest)
    return digest


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

#: a use of a name by a test: (role, via, chained, inherited_via, line, chain)
Use = tuple[str, str, bool, str, int, str]

_ROLE_RANK = {"c": 3, "w": 3, "d": 3, "m": 2, "a": 1}
#: helpers followed from a test: its helpers, theirs, and theirs (setUp counts as one)
MAX_CALL_DEPTH = 3
_TAG = re.compile(r"^([lsap]):([^#]*)#(\d+)=(.*)$")


def asserted(use: Use) -> bool:
    """Whether a name (not called) is an argument of an assertion (``assertIsInstance(x, C)``):
    for a class, a test of the class itself, not a mere mention."""
    return use[0] == "a" and (use[1].startswith("q:") or ",q:" in use[1])


def _rank(use: Use, of_class: bool) -> float:
    return _ROLE_RANK[use[0]] + (0.5 if of_class and asserted(use) else 0)


def _better(new: Use, old: Use, of_class: bool = False) -> bool:
    """Prefer direct roles (for a class: one an assertion checks over one only named), then plain
    spellings (no inheritance, no helper, no data flow)."""
    rn, ro = _rank(new, of_class), _rank(old, of_class)
    if rn != ro:
        return rn > ro
    return (bool(new[3]), len(new[1]), new[4]) < (bool(old[3]), len(old[1]), old[4])


def _shift(via: str, delta: int) -> str:
    """The vias' part counts after the head of their chain was replaced by one of another length."""
    if not delta or "#" not in via:
        return via
    out = []
    for tag in via.split(","):
        m = _TAG.match(tag)
        n = int(m.group(3)) if m else 0
        out.append(
            f"{m.group(1)}:{m.group(2)}#{max(n + delta, 1) if n else 0}={m.group(4)}" if m else tag
        )
    return ",".join(out)


class _Expander:
    """A test's refs with its helpers' refs (same file, and linked files), arguments substituted."""

    def __init__(
        self, normalizer: Normalizer, link: Link | None, facts_of: Callable[[str], FileFacts] | None
    ) -> None:
        self.normalizer = normalizer
        self.link = link
        self.facts_of = facts_of
        self._rets: dict[tuple[str, str], str | None] = {}

    def helper(self, path: str, name: str) -> tuple[FileFacts, Target] | None:
        if self.link is None or self.facts_of is None:
            return None
        t = self.link.helpers.get(f"{path}|{name}")
        if t is None:
            return None
        return self.facts_of(t.blob), t

    def rewrite(
        self, chain: str, via: str, facts: FileFacts, path: str, func: list[Any], depth: int = 0
    ) -> tuple[str, str]:
        """Calls of helpers in other files replaced by what they return (their arguments substituted)."""
        if self.link is None or not self.link.helpers or depth > 2:
            return chain, via
        for callee, args, kws, _ in func[5]:
            if not callee.startswith("@") or callee[1:] + "()" not in chain:
                continue
            found = self.helper(path, callee[1:])
            if found is None:
                continue
            other, t = found
            ret = self.ret_of(other, t, depth)
            if not ret:
                continue
            target = other.funcs[t.qual]
            ret = substitute(
                ret,
                target[8],
                [facts.string(a) for a in args],
                {k: facts.string(v) for k, v in kws.items()},
            )
            if "$" in ret:
                continue
            head = callee[1:] + "()"
            if chain.startswith(head):
                via = _shift(via, _parts(ret) - _parts(head))
            chain = re.sub(r"(?<![\w.$])" + re.escape(head), _literal(ret), chain)
            via = _join_via(f"h:{t.qual.rsplit('.', 1)[-1]}", via)
        return chain, via

    def ret_of(self, facts: FileFacts, t: Target, depth: int) -> str | None:
        key = (t.blob, t.qual)
        if key not in self._rets:
            f = facts.funcs[t.qual]
            ret = facts.string(f[7])
            self._rets[key] = self.rewrite(ret, "", facts, t.path, f, depth + 1)[0] if ret else None
        return self._rets[key]

    def refs(
        self,
        facts: FileFacts,
        path: str,
        qual: str,
        subst: dict[str, str] | None,
        depth: int,
        stack: tuple[str, ...],
        own: bool,
    ) -> list[list[Any]]:
        f = facts.funcs.get(qual)
        if f is None:
            return []
        out: list[list[Any]] = []
        for chain, kind, line, via in decode_refs(facts.doc, f):
            chain, via = self.rewrite(chain, via, facts, path, f)
            if subst and "$" in chain:
                new = substitute(chain, list(subst), list(subst.values()), {})
                if new != chain and chain.startswith("$"):
                    name = _NAME_AT.match(chain[1:])
                    dollars = len(chain) - len(chain.lstrip("$"))
                    head = chain[: dollars + (len(name.group(0)) if name else 0)]
                    arg = subst.get(head[1:], "")
                    via = _shift(via, _parts(arg) - 1) if arg else via
                chain = new
            out.append([chain, kind, line if own else 0, via])
        if depth >= MAX_CALL_DEPTH:
            return out
        for callee, args, kws, at in f[5]:
            arg_chains = [facts.string(a) for a in args]
            kw_chains = {k: facts.string(v) for k, v in kws.items()}
            if subst:
                arg_chains = [
                    substitute(a, list(subst), list(subst.values()), {}) for a in arg_chains
                ]
                kw_chains = {
                    k: substitute(v, list(subst), list(subst.values()), {})
                    for k, v in kw_chains.items()
                }
            if callee.startswith("@"):
                found = self.helper(path, callee[1:])
                if found is None:
                    continue
                other, t = found
                where, callee_qual, callee_own = t.path, t.qual, False
            else:
                other, where, callee_qual, callee_own = facts, path, callee, own
            key = f"{where}::{callee_qual}"
            target = other.funcs.get(callee_qual)
            if target is None or key in stack:
                continue
            inner = {
                p: a for p, a in zip(target[8], arg_chains, strict=False) if a and "$" not in a
            }
            inner.update(
                {k: v for k, v in kw_chains.items() if k in target[8] and v and "$" not in v}
            )
            tag = f"h:{callee_qual.rsplit('.', 1)[-1]}"
            for chain, kind, _line, via in self.refs(
                other, where, callee_qual, inner or None, depth + 1, (*stack, key), callee_own
            ):
                out.append([chain, kind, at if own else 0, _join_via(tag, via)])
        return out


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    """A replacement for ``re.sub`` that is ``text`` as it is (no group references read in it)."""

    def repl(_: re.Match[str]) -> str:
        return text

    return repl


_NAME_AT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class FileIndex:
    """The tests of one file and, per canonical name, which of them use it and how.

    What a query needs to find the file (its names, the members of each parent, the
    mentions) is made at once; the per-test uses only when a query asks this file,
    so loading a branch of cached facts stays cheap. ``link`` says what the file's
    imported helpers and base classes are at this ref (``link.py``).
    """

    __slots__ = (
        "error",
        "tests",
        "names",
        "children",
        "weak",
        "module_weak",
        "_facts",
        "_normalizer",
        "_uses",
        "_link",
        "_path",
        "_facts_of",
        "_origins",
        "_blob",
        "keepers",
    )

    def __init__(
        self,
        facts: dict[str, Any] | FileFacts,
        normalizer: Normalizer,
        *,
        path: str = "",
        link: Link | None = None,
        facts_of: Callable[[str], FileFacts] | None = None,
    ) -> None:
        ff = facts if isinstance(facts, FileFacts) else FileFacts("", facts)
        doc = ff.doc
        self.error: str | None = doc.get("err")
        funcs = doc.get("f", [])
        # tests in line order: test numbers then sort like places in the file
        own = [(f[0], f[1], f[2], None) for f in funcs if f[3]]
        inherited = self._inherited(ff, link, facts_of) if link else []
        ordered = sorted([*own, *inherited], key=lambda t: t[1])
        self.tests: list[tuple[str, int, int]] = [(q, a, b) for q, a, b, _ in ordered]
        #: test number -> (file facts, path, qualname) of an inherited test method from another file
        self._origins: dict[int, tuple[FileFacts, str, str]] = {
            ti: o for ti, (_, _, _, o) in enumerate(ordered) if o is not None
        }
        flat = normalizer.flat
        pairs: set[tuple[str, str]] = set()
        expander = _Expander(normalizer, link, facts_of) if link else None
        for f in funcs:  # helpers too: a name only a helper uses reaches its tests
            r = f[4]
            strings = doc["s"]
            for c, k in zip(r[0::4], r[1::4], strict=True):
                chain = strings[c]
                if expander is not None and f[5]:
                    chain = expander.rewrite(chain, "", ff, path, f)[0]
                pairs.add((chain, KINDS[k]))
        if link and facts_of is not None:  # what linked helpers and base tests use
            for t in [*link.helpers.values(), *(b for bs in link.bases.values() for b in bs)]:
                other = facts_of(t.blob)
                for f in other.doc.get("f", []):
                    if f[0] == t.qual or f[0].startswith(t.qual + "."):
                        r = f[4]
                        pairs.update(
                            (other.doc["s"][c], KINDS[k])
                            for c, k in zip(r[0::4], r[1::4], strict=True)
                        )
        names: set[str] = set()
        for chain, kind in pairs:
            names.update(e[0] for e in flat(chain, kind))
        #: every canonical name some function of the file uses (a superset of the tests' names)
        self.names = names
        self.children: dict[str, set[str]] = {}  # parent name -> member names used
        for name in names:
            parent = name.rpartition(".")[0]
            if parent:
                self.children.setdefault(parent, set()).add(name)
        self.weak: dict[str, set[int]] = {}  # dotted suffix in a string -> tests
        weak_of = {f[0]: f[6] for f in funcs}
        for ti, (qual, _, _, origin) in enumerate(ordered):
            tokens = weak_of.get(qual, []) if origin is None else origin[0].funcs[origin[2]][6]
            for token in tokens:
                parts = token.split(".")
                for k in range(len(parts) - 2, -1, -1):
                    self.weak.setdefault(".".join(parts[k:]), set()).add(ti)
        #: dotted suffix mentioned in the module's or a class's docstring -> its line
        self.module_weak: dict[str, int] = {}
        for token, line in doc.get("m", []):
            parts = token.split(".")
            for k in range(len(parts) - 2, -1, -1):
                self.module_weak.setdefault(".".join(parts[k:]), line)
                self.weak.setdefault(".".join(parts[k:]), set())
        self._facts: FileFacts | None = ff
        self._blob = ff.blob
        #: (the kept uses of a built index, this file's number in it), one per ref that has this file
        self.keepers: list[tuple[UsesKeeper, int]] = []
        self._normalizer = normalizer
        self._uses: Mapping[str, dict[int, Use]] | None = None
        self._link = link
        self._path = path
        self._facts_of = facts_of

    @staticmethod
    def _inherited(
        ff: FileFacts, link: Link, facts_of: Callable[[str], FileFacts] | None
    ) -> list[tuple[str, int, int, tuple[FileFacts, str, str] | None]]:
        """Test methods a class of this file runs from a base class in another file."""
        out: list[tuple[str, int, int, tuple[FileFacts, str, str] | None]] = []
        if facts_of is None:
            return out
        for cls_qual, bases in link.bases.items():
            cls = ff.classes.get(cls_qual)
            if cls is None:
                continue
            have = {q.rsplit(".", 1)[-1] for q in ff.funcs if q.startswith(cls_qual + ".")}
            for t in bases:
                other = facts_of(t.blob)
                base = other.classes.get(t.qual)
                if base is None:
                    continue
                for name in base[4]:
                    if name in have or f"{t.qual}.{name}" not in other.funcs:
                        continue
                    have.add(name)
                    out.append(
                        (f"{cls_qual}.{name}", cls[1], cls[2], (other, t.path, f"{t.qual}.{name}"))
                    )
        return out

    @property
    def uses(self) -> Mapping[str, dict[int, Use]]:
        """Canonical name -> {test number: how the test uses it} (built on first use)."""
        if self._uses is None:
            for keeper, n in self.keepers:  # built by an earlier call
                self._uses = keeper.load(n)
                if self._uses is not None:
                    break
            if self._uses is None:
                facts = self._facts
                if facts is None:  # a kept index: the file's facts are read now
                    assert self._facts_of is not None
                    facts = self._facts_of(self._blob)
                self._uses = self._build_uses(facts)
                if (
                    self.keepers
                ):  # kept for the next call, and held as kept: a fifth of the dict's memory
                    data = encode_uses(self._uses)
                    for keeper, n in self.keepers:
                        keeper.built(n, data)
                    self._uses = RawLookup(data, _uses_of)
            self._facts = None
        return self._uses

    def state(self) -> list[Any]:
        """What a kept index stores of this file (``restore`` makes it again)."""
        link = None
        if self._link:
            link = [
                [[k, t.path, t.blob, t.qual] for k, t in self._link.helpers.items()],
                [[c, [[t.path, t.blob, t.qual] for t in ts]] for c, ts in self._link.bases.items()],
            ]
        origins = {str(ti): [o[0].blob, o[1], o[2]] for ti, o in self._origins.items()}
        return [
            self.error,
            self.tests,
            sorted(self.names),
            {k: sorted(v) for k, v in self.children.items()},
            {k: sorted(v) for k, v in self.weak.items()},
            self.module_weak,
            origins,
            link,
            self._path,
            self._blob,
        ]

    @classmethod
    def restore(
        cls, state: list[Any], normalizer: Normalizer, facts_of: Callable[[str], FileFacts]
    ) -> FileIndex:
        error, tests, names, children, weak, module_weak, origins, link, path, blob = state
        fi = cls.__new__(cls)
        fi.error = error
        fi.tests = [(q, a, b) for q, a, b in tests]
        fi.names = set(names)
        fi.children = {k: set(v) for k, v in children.items()}
        fi.weak = {k: set(v) for k, v in weak.items()}
        fi.module_weak = module_weak
        fi._origins = {int(ti): (_Lazy(facts_of, b), p, q) for ti, (b, p, q) in origins.items()}  # type: ignore[misc]
        fi._link = (
            None
            if link is None
            else Link(
                {k: Target(p, b, q) for k, p, b, q in link[0]},
                {c: [Target(p, b, q) for p, b, q in ts] for c, ts in link[1]},
            )
        )
        fi._path = path
        fi._blob = blob
        fi._facts = None
        fi._uses = None
        fi._normalizer = normalizer
        fi._facts_of = facts_of
        fi.keepers = []
        return fi

    def _build_uses(self, ff: FileFacts) -> dict[str, dict[int, Use]]:
        normalizer = self._normalizer
        expander = _Expander(normalizer, self._link, self._facts_of)
        uses: dict[str, dict[int, Use]] = {}
        flat = normalizer.flat
        for ti, (qual, start, end) in enumerate(self.tests):
            origin = self._origins.get(ti)
            if origin is not None and isinstance(origin[0], _Lazy):
                origin = (origin[0].get(), origin[1], origin[2])
            if origin is None:
                refs = expander.refs(
                    ff, self._path, qual, None, 0, (f"{self._path}::{qual}",), True
                )
            else:
                other, where, oqual = origin
                base_tag = f"t:{where}::{oqual.rpartition('.')[0].replace('.', '::')}"
                refs = [
                    [c, k, 0, _join_via(base_tag, v)]
                    for c, k, _, v in expander.refs(
                        other, where, oqual, None, 0, (f"{where}::{oqual}",), False
                    )
                ]
            for chain, kind, line, via in refs:
                if not start <= line <= end:
                    line = start  # a use inside a helper: point at the test itself
                for name, role, chained, inherited, wrapper in flat(chain, kind):
                    use: Use = (
                        role,
                        _join_via(via, f"w:{wrapper}={name}") if wrapper else via,
                        chained,
                        inherited,
                        line,
                        chain,
                    )
                    per = uses.get(name)
                    if per is None:
                        uses[name] = {ti: use}
                    else:
                        old = per.get(ti)
                        if old is None or (
                            old != use
                            and _better(use, old, role == "a" and normalizer.is_class(name))
                        ):
                            per[ti] = use
        return uses


class UsesKeeper:
    """The per-file uses of one built index: read from the store when a query asks a file, and the
    ones built now written back (``flush``) for the next call."""

    def __init__(self, built: BuiltIndexes, key: str) -> None:
        self.built_indexes = built
        self.key = key
        self._new: list[tuple[int, bytes]] = []

    def load(self, file: int) -> Mapping[str, dict[int, Use]] | None:
        return self.built_indexes.uses(self.key, file)

    def built(self, file: int, data: bytes) -> None:
        """File number ``file``'s uses (``encode_uses``), built now: written at ``flush``."""
        self._new.append((file, data))

    def flush(self) -> None:
        new, self._new = self._new, []
        if new:
            try:
                self.built_indexes.put_uses(self.key, new)
            except Exception:  # noqa: BLE001 - a store that cannot keep them: built again next time
                pass


class _Lazy:
    """The facts of a blob, read when first needed (an inherited test's origin in a kept index)."""

    __slots__ = ("_facts_of", "blob")

    def __init__(self, facts_of: Callable[[str], FileFacts], blob: str) -> None:
        self._facts_of = facts_of
        self.blob = blob

    def get(self) -> FileFacts:
        return self._facts_of(self.blob)


def typed_via(normalizer: Normalizer, chain: str, via: str) -> str:
    """``l:x#3=torch.randn(...).npu()`` -> ``l:x=Tensor=torch.randn(...).npu()``: the type of what x holds."""
    out = []
    for tag in via.split(","):
        m = _TAG.match(tag)
        if m is None:
            out.append(tag)
            continue
        n = int(m.group(3))
        t = normalizer.type_of(chain, n) if n else None
        out.append(f"{m.group(1)}:{m.group(2)}={t.short if t is not None else ''}={m.group(4)}")
    return ",".join(out)


# -- one ref ----------------------------------------------------------------------------------


class LazyIndexes(Sequence[FileIndex]):
    """The file indexes of a kept index, each made from its stored state when first asked for."""

    def __init__(self, states: list[bytes], make: Callable[[int, bytes], FileIndex]) -> None:
        self._states = states
        self._make = make
        self._made: dict[int, FileIndex] = {}

    def __len__(self) -> int:
        return len(self._states)

    def __getitem__(self, i: int) -> FileIndex:  # type: ignore[override]
        fi = self._made.get(i)
        if fi is None:
            fi = self._made[i] = self._make(i, self._states[i])
        return fi

    def __iter__(self) -> Iterator[FileIndex]:
        return (self[i] for i in range(len(self._states)))


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def lookups(indexes: Sequence[FileIndex], which: str) -> dict[str, Any]:
    """A ref's merged lookups over its files: ``names``, ``children``, ``weak`` (key -> file numbers)
    and ``words`` (a word of a test's name -> (file, test) numbers)."""
    merged: dict[str, Any] = {}
    if which == "words":
        for fi_no, fi in enumerate(indexes):
            for ti, (qual, _, _) in enumerate(fi.tests):
                for w in set(_short(qual).split("_")):
                    merged.setdefault(w, []).append((fi_no, ti))
        return merged
    for fi_no, fi in enumerate(indexes):
        for key in getattr(fi, which):
            merged.setdefault(key, []).append(fi_no)
    return merged


LOOKUPS = ("names", "children", "weak", "words")

_RAW_MAP = msgspec.msgpack.Decoder(dict[str, msgspec.Raw])


def _uses_of(per: list[list[Any]]) -> dict[int, Use]:
    return {
        ti: (role, via, chained, inh, line, chain)
        for ti, role, via, chained, inh, line, chain in per
    }


class RawLookup(Mapping[str, Any]):
    """A kept lookup: its keys read at once, each value decoded when asked for (a query asks a few).

    A value is decoded again at each ask, never kept: decoding is cheaper than holding what a batch of
    a thousand APIs has asked for (a fifth of its memory, measured)."""

    def __init__(self, data: bytes, convert: Callable[[Any], Any] | None = None) -> None:
        self._raw = _RAW_MAP.decode(data)
        self._convert = convert

    def __getitem__(self, key: str) -> Any:
        hit = msgspec.msgpack.decode(self._raw[key])
        return hit if self._convert is None else self._convert(hit)

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __contains__(self, key: object) -> bool:
        return key in self._raw


@dataclass
class RefIndex:
    """A ref's test tree: its files, each file's index, what was skipped."""

    repo: Path
    ref: str
    commit: str
    roots: tuple[str, ...]
    entries: list[TreeEntry]  # every file under the roots (git grep searches them all)
    files: list[tuple[str, str]]  # (path, blob) of the Python files
    indexes: Sequence[FileIndex]
    skipped: list[tuple[str, str]]  # (path, why)
    parsed: int = 0  # blobs parsed for this index (not found in the cache)
    cached: int = 0  # blobs whose facts came from the cache
    #: the table's reading of chains (says what a local held, for the 'via' text)
    normalizer: Normalizer | None = None
    #: loaded as it was built by an earlier call (``BuiltIndexes``), not built now
    kept: bool = False
    #: a kept index's merged lookups, as stored (decoded when first asked for)
    kept_lookups: dict[str, bytes] = field(default_factory=dict, repr=False)

    def lookup(self, which: str) -> Mapping[str, Any]:
        """One of ``LOOKUPS``, merged over the files (kept, or made now) once."""
        made = self.__dict__.setdefault("_lookups", {})
        hit: Mapping[str, Any] | None = made.get(which)
        if hit is None:
            raw = self.kept_lookups.get(which)
            hit = made[which] = RawLookup(raw) if raw is not None else lookups(self.indexes, which)
        return hit

    @property
    def tests(self) -> int:
        n = self.__dict__.get("_tests")
        if n is None:
            n = self.__dict__["_tests"] = sum(len(fi.tests) for fi in self.indexes)
        return n


class Indexer:
    """Builds ``RefIndex``es; keeps facts and file indexes in memory across refs of one run."""

    def __init__(
        self,
        store: Store,
        table: AliasTable,
        *,
        jobs: int = 0,
        keep: bool = True,
        max_file: int | None = None,
    ) -> None:
        """``keep``: load a ref's built index kept by an earlier call, and keep the ones built now.
        ``max_file``: the size limit of one test file (default: ``max_file_bytes()``)."""
        self.max_file = max_file if max_file is not None else max_file_bytes()
        self.cache = BlobCache(store)
        self.built = BuiltIndexes(store) if keep else None
        self._keepers: list[UsesKeeper] = []
        self.table = table
        self.normalizer = Normalizer(table)
        self.jobs = jobs
        self._facts: dict[str, FileFacts] = {}
        self._file_indexes: dict[tuple[Any, ...], FileIndex] = {}
        self._parsed = 0

    def _load(self, root: Path, blobs: Sequence[str]) -> tuple[int, int]:
        """Facts of ``blobs`` into memory: from the store, else parsed (and kept). (parsed, cached)."""
        missing = [b for b in dict.fromkeys(blobs) if b not in self._facts]
        if not missing:
            return 0, 0
        facts = self.cache.get_many(missing)
        cached = len(facts)
        new = [b for b in missing if b not in facts]
        if new:
            # a file past the limit is neither read nor parsed (memory is bounded per file); its note is
            # not kept as the blob's facts, so that a higher limit later parses it
            sizes = blob_sizes(root, new)
            big = {b: sizes[b] for b in new if sizes.get(b, 0) > self.max_file}
            small = [b for b in new if b not in big]
            made = extract_all(read_blobs(root, small), self.jobs) if small else {}
            self.cache.put_many(made)
            facts.update(made)
            for b, size in big.items():
                facts[b] = json.dumps(
                    {"v": extract.VERSION, "err": too_large(size, self.max_file), "f": []}
                )
        for blob in missing:
            self._facts[blob] = FileFacts.from_text(blob, facts.get(blob))
        return len(new), cached

    def index(
        self,
        repo: str | Path,
        ref: str,
        roots: Iterable[str],
        *,
        flag: str = "--repo",
        commit: str = "",
    ) -> RefIndex:
        """The index of ``repo`` at ``ref`` (``flag`` names the option the repo came from, for errors;
        ``commit``: what ``ref`` was already resolved to)."""
        root = open_repo(repo, flag)
        commit = commit or resolve_commit(root, ref)
        clean = clean_roots(list(roots))
        key = self._key(root, commit, clean) if self.built is not None else ""
        if not key:
            return self._build(root, ref, commit, clean)
        assert self.built is not None
        keeper = UsesKeeper(self.built, key)
        self._keepers.append(keeper)
        data = self.built.get(key)
        if data is not None:
            try:
                return self._restore(data, root, ref, commit, clean, keeper)
            except (msgspec.DecodeError, ValueError, TypeError, KeyError):
                pass  # unreadable: built again below
        ix = self._build(root, ref, commit, clean)
        try:
            self.built.put(key, self._dump(ix))
        except Exception:  # noqa: BLE001 - a store that cannot keep it (read-only, full): built next time
            return ix
        for n, fi in enumerate(ix.indexes):
            fi.keepers.append((keeper, n))  # (a file index shared by refs is kept under each)
        return ix

    def flush(self) -> None:
        """Keep the per-file uses built during this call (for the next one)."""
        for keeper in self._keepers:
            keeper.flush()

    def _key(self, root: Path, commit: str, roots: tuple[str, ...]) -> str:
        tree = git(root, "rev-parse", f"{commit}^{{tree}}", check=False).text.strip()
        if not tree:
            return ""
        parts = [
            tree,
            "\0".join(roots),
            table_digest(self.table),
            str(extract.VERSION),
            __version__,
            str(BUILT_FORMAT),
            str(self.max_file),
        ]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()

    def _facts_reader(self, root: Path) -> Callable[[str], FileFacts]:
        def facts_of(blob: str) -> FileFacts:
            if blob not in self._facts:
                self._load(root, [blob])
            return self._facts[blob]

        return facts_of

    @staticmethod
    def _dump(ix: RefIndex) -> bytes:
        enc = msgspec.msgpack.encode
        return enc(
            {
                "entries": [[e.path, e.blob, e.mode] for e in ix.entries],
                "files": ix.files,
                "skipped": ix.skipped,
                "tests": ix.tests,
                # each file's state and each lookup as bytes of its own: a call decodes what it asks for
                "states": [enc(fi.state()) for fi in ix.indexes],
                "lookups": {which: enc(dict(ix.lookup(which))) for which in LOOKUPS},
            }
        )

    def _restore(
        self,
        data: bytes,
        root: Path,
        ref: str,
        commit: str,
        roots: tuple[str, ...],
        keeper: UsesKeeper,
    ) -> RefIndex:
        doc = msgspec.msgpack.decode(data)
        facts_of = self._facts_reader(root)
        normalizer = self.normalizer

        def make(n: int, state: bytes) -> FileIndex:
            fi = FileIndex.restore(msgspec.msgpack.decode(state), normalizer, facts_of)
            fi.keepers.append((keeper, n))
            return fi

        files = [(p, b) for p, b in doc["files"]]
        ix = RefIndex(
            root,
            ref,
            commit,
            roots,
            [TreeEntry(p, b, m) for p, b, m in doc["entries"]],
            files,
            LazyIndexes(list(doc["states"]), make),
            [(p, w) for p, w in doc["skipped"]],
            0,
            len(files),
            normalizer,
            kept=True,
            kept_lookups=dict(doc["lookups"]),
        )
        ix.__dict__["_tests"] = int(doc["tests"])
        return ix

    def _build(self, root: Path, ref: str, commit: str, clean: tuple[str, ...]) -> RefIndex:
        entries = list_tree(root, commit, clean)
        files = [(e.path, e.blob) for e in entries if e.is_python]
        parsed, cached = self._load(root, [b for _, b in files])
        extra = [0]

        def facts_of(blob: str) -> FileFacts:
            if blob not in self._facts:
                p, _ = self._load(root, [blob])
                extra[0] += p
            return self._facts[blob]

        linker: Linker | None = None
        indexes: list[FileIndex] = []
        for path, blob in files:
            ff = self._facts[blob]
            link: Link | None = None
            if ff.ext_names():
                if linker is None:
                    tree = {e.path: e.blob for e in list_tree(root, commit, ["."]) if e.is_python}
                    linker = Linker(ModuleMap(tree, clean), facts_of)
                link = linker.link(path, ff) or None
            key: tuple[Any, ...] = (blob,) if link is None else (blob, path, link.key)
            fi = self._file_indexes.get(key)
            if fi is None:
                fi = self._file_indexes[key] = FileIndex(
                    ff, self.normalizer, path=path, link=link, facts_of=facts_of
                )
            indexes.append(fi)
        skipped = [(p, fi.error) for (p, _), fi in zip(files, indexes, strict=True) if fi.error]
        return RefIndex(
            root,
            ref,
            commit,
            clean,
            entries,
            files,
            indexes,
            skipped,
            parsed + extra[0],
            cached,
            self.normalizer,
        )
