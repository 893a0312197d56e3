"""Queries: for an API, per ref, the direct, related and weak tests, the grep baseline, the why.

``coverage_for`` is the library entry other parts call; ``CoverageReport.to_json()``
is the record the report templates read (one document per API).
"""

from __future__ import annotations

import difflib
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..config import load_config
from ..errors import UsageError
from ..gitrepo import resolve_commit
from ..records.coverage import ApiCoverage, GrepResult, RefCoverage, TestHit
from ..store import Store
from .aliases import ATTR, CALL, DECORATOR, MEMBER, WITH, AliasSource, AliasTable, table_for
from .chains import Normalizer
from .gitobjects import clean_roots, open_repo
from .grep import BlobTexts, PendingGrep, TreeText, community_pattern, grep_many, needle
from .index import Indexer, RefIndex, Use, asserted, typed_via
from .justify import justify, section

_API = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
#: related tests kept per ref in a record (the total is always given)
MAX_RELATED = 100
MAX_WEAK = 50
#: a class with more members in use than this (torch.Tensor) relates only same-stem siblings
_SIBLINGS_ALL = 40
#: up to this many (API, ref) pairs the baseline runs git grep itself; beyond, in process
GIT_GREP_MAX = 8


@dataclass(frozen=True)
class CoverageReport:
    apis: tuple[ApiCoverage, ...]
    indexes: tuple[RefIndex, ...] = field(default=(), compare=False, repr=False)
    #: APIs answered (those in ``apis``, or those handed one by one to ``coverage_for``'s ``each``)
    answered: int = 0

    def to_json(self) -> list[dict[str, Any]]:
        return [a.to_json() for a in self.apis]

    def __getitem__(self, api: str) -> ApiCoverage:
        for a in self.apis:
            if api in (a.api, a.canonical):
                return a
        raise KeyError(api)


@dataclass(frozen=True)
class ApiName:
    """An API as asked for and as the alias table spells it."""

    spelled: str
    canonical: str
    parent: str
    leaf: str
    parent_is_class: bool
    known: bool
    aliased: bool
    #: a short form (``Tensor.ndim``) the table maps to several names: they are the suggestions
    candidates: tuple[str, ...] = ()

    @classmethod
    def parse(cls, spelled: str, table: AliasTable) -> ApiName:
        """The name as the table spells it; a short form maps as ``resolve`` maps it, when unambiguous."""
        name = spelled.strip()
        if not _API.fullmatch(name):
            raise UsageError(
                f"not an API name: {spelled!r}; give a dotted Python name such as "
                "torch.autograd.grad_mode.set_grad_enabled.clone"
            )
        canonical, aliased = table.canonical(name)
        candidates: tuple[str, ...] = ()
        if not table.known(canonical):
            found = table.short_form(name)
            if len(found) == 1:
                canonical, aliased = found[0], True
            else:
                candidates = found
        parent, _, leaf = canonical.rpartition(".")
        return cls(
            name,
            canonical,
            parent,
            leaf,
            bool(parent) and table.is_class(parent),
            table.known(canonical),
            aliased,
            candidates,
        )


# -- rendering one use -------------------------------------------------------------------------

_ROLE_WORD = {
    CALL: "call",
    WITH: "with",
    DECORATOR: "decorator",
    ATTR: "attribute",
    MEMBER: "member of the class",
}


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def how(use: Use, normalizer: Normalizer | None = None, class_asserted: bool = False) -> str:
    """``("c", "i:t", True, "", 12, chain)`` -> "call, import alias t"; with a normalizer the
    locals a use goes through say what they held: "call, via x: Tensor from torch.randn(...).npu()"."""
    role, via, chained, inherited = use[:4]
    if normalizer is not None and "#" in via:
        typed_key = (normalizer, use[5], via)
        typed = _TYPED.get(typed_key)
        if typed is None:
            if len(_TYPED) > 200_000:
                _TYPED.clear()
            typed = _TYPED[typed_key] = typed_via(normalizer, use[5], via)
        via = typed
    key = (role, via, chained, inherited, class_asserted)
    text = _HOW.get(key)
    if text is None:
        if len(_HOW) > 200_000:
            _HOW.clear()
        text = _HOW[key] = _how(*key)
    return text


_HOW: dict[tuple[str, str, bool, str, bool], str] = {}
_TYPED: dict[tuple[Normalizer, str, str], str] = {}


def _how(
    role: str, via: str, chained: bool, inherited_via: str, class_asserted: bool = False
) -> str:
    """``class_asserted``: the API is a class and this use is an argument of an assertion."""
    tags = [t for t in via.split(",") if t]
    flows = [t for t in tags if t[0] in "lshfpa"]
    word = "the class asserted" if class_asserted else _ROLE_WORD[role]
    if chained and not flows:
        word = f"chained {word}"
    parts = [word]
    for tag in tags:
        if tag.startswith("q:") and not class_asserted:
            continue  # the assertion a plain name was in says nothing
        parts.append(_tag_text(tag))
    if inherited_via:
        parts.append(f"inherited via {_short(inherited_via)}")
    return ", ".join(parts)


def _tag_text(tag: str) -> str:
    """One via tag as a reviewer reads it: ``l:x=Tensor=torch.randn(...).npu()`` -> "via x: Tensor from ..."."""
    kind, _, rest = tag.partition(":")
    if kind == "w":  # w:wrapper=wrapped
        wrapper, _, wrapped = rest.partition("=")
        return f"via {wrapper} (implemented with {wrapped})"
    if kind == "q":
        return f"in {rest}"
    name, typ, src = rest, "", ""
    if "#" in rest:  # not typed (no table at hand): l:x#3=src
        name, _, tail = rest.partition("#")
        src = tail.partition("=")[2]
    elif "=" in rest:
        name, _, tail = rest.partition("=")
        typ, _, src = tail.partition("=")
    holds = f": {typ}" if typ else ""
    if kind == "l":
        return f"via {name}{holds} from {src}" if src else f"via local {name}"
    if kind == "s":
        return f"via self.{name}{holds} from {src}" if src else f"via self.{name}"
    if kind == "a":
        return f"via {name}{holds} (annotated {src})"
    if kind == "p":
        return f"via parameter {name}"
    if kind == "t":
        return f"in a test inherited from {rest}"
    return {
        "h": f"via helper {name}()",
        "i": f"import alias {name}",
        "m": f"module name {name}",
        "f": f"via fixture {name}",
    }.get(kind, tag)


# -- the per-ref lookups --------------------------------------------------------------------


class RefQuery:
    """Fast lookups over one ``RefIndex`` (merged lazily across its files)."""

    def __init__(self, index: RefIndex, table: AliasTable) -> None:
        self.index = index
        self.table = table
        self._names: Mapping[str, list[int]] | None = None
        self._children: Mapping[str, list[int]] | None = None
        self._weak: Mapping[str, list[int]] | None = None
        self._test_words: Mapping[str, list[tuple[int, int]]] | None = None
        self._members: dict[str, list[str]] = {}
        self._by_leaf: dict[str, list[str]] | None = None
        self._tests: dict[tuple[int, int], tuple[str, str, int, int]] = {}

    def _merge(self, attr: str) -> Mapping[str, list[int]]:
        return self.index.lookup(attr)

    def files_using(self, name: str) -> list[int]:
        if self._names is None:
            self._names = self._merge("names")
        return self._names.get(name, [])

    def files_with_children(self, parent: str) -> list[int]:
        if self._children is None:
            self._children = self._merge("children")
        return self._children.get(parent, [])

    def files_mentioning(self, key: str) -> list[int]:
        if self._weak is None:
            self._weak = self._merge("weak")
        return self._weak.get(key, [])

    def tests_named(self, word: str) -> list[tuple[int, int]]:
        if self._test_words is None:
            self._test_words = self.index.lookup("words")
        return self._test_words.get(word, [])

    def members(self, parent: str) -> list[str]:
        """The members of ``parent`` some test of this ref uses, sorted."""
        if parent not in self._members:
            names: set[str] = set()
            for fi_no in self.files_with_children(parent):
                names |= self.index.indexes[fi_no].children[parent]
            self._members[parent] = sorted(names)
        return self._members[parent]

    def names_ending(self, leaf: str) -> list[str]:
        """Names any test of this ref uses whose last part is ``leaf`` (for suggestions)."""
        if self._by_leaf is None:
            if self._names is None:
                self._names = self._merge("names")
            by_leaf: dict[str, list[str]] = {}
            for name in self._names:
                by_leaf.setdefault(_short(name), []).append(name)
            self._by_leaf = by_leaf
        return self._by_leaf.get(leaf, [])

    def hit(self, fi_no: int, ti: int, text: str, at: int | None = None) -> TestHit:
        key = (fi_no, ti)
        base = self._tests.get(key)
        if base is None:
            path = self.index.files[fi_no][0]
            qual, line, end = self.index.indexes[fi_no].tests[ti]
            base = self._tests[key] = (f"{path}::{qual.replace('.', '::')}", path, line, end)
        test, path, line, end = base
        return TestHit(test, path, line, end, text, line if at is None else at)


def _variants(api: ApiName) -> list[str]:
    """Other spellings of the same operation: in-place/out-of-place, function/method."""
    leaf = api.leaf
    base = leaf[:-1] if leaf.endswith("_") and not leaf.endswith("__") else leaf
    out = {f"{api.parent}.{base}", f"{api.parent}.{base}_"}
    if api.parent == "torch.Tensor":
        out.add(f"torch.{base}")
    elif api.parent == "torch":
        out |= {f"torch.Tensor.{base}", f"torch.Tensor.{base}_"}
    out.discard(api.canonical)
    return sorted(out)


def _stem(name: str) -> str:
    return name.strip("_")


@dataclass(frozen=True)
class RefAnswer:
    """One API on one ref: every direct test, the best related ones (and how many), weak mentions."""

    direct: list[TestHit]
    related: list[TestHit]
    related_total: int
    weak: list[TestHit]


def query_ref(
    q: RefQuery, api: ApiName, related_limit: int = MAX_RELATED, describe: bool = True
) -> RefAnswer:
    """Direct, related and weak tests for one API on one ref (``describe``: say how each direct test
    uses it, the locals a use goes through with their types; without it the hits say nothing).

    Related tests are gathered as sets of test numbers per file (set operations,
    not a Python loop per test); only what the answer keeps becomes a ``TestHit``,
    so an API that thousands of tests use stays cheap to ask about. Test numbers
    follow line order and files follow path order, so (file, test) sorts by place.
    """
    table = q.table
    index = q.index
    indexes = index.indexes
    name = api.canonical
    names_a_class = table.is_class(name)
    #: tests already placed (direct or related), per file
    seen: dict[int, set[int]] = {}
    direct_keys: list[tuple[int, int, Use]] = []
    #: (rank, file, label, uses of the name, test numbers): rank orders the related list
    chunks: list[tuple[int, int, str, Mapping[int, Use], set[int]]] = []
    for fi_no in q.files_using(name):
        per = indexes[fi_no].uses.get(name)
        if not per:  # only a helper no test calls uses it
            continue
        # a class only named is related; one an assertion checks (assertIsInstance(x, C)) is tested
        named_only = (
            {ti for ti, use in per.items() if use[0] == ATTR and not asserted(use)}
            if names_a_class
            else set()
        )
        direct_keys += [(fi_no, ti, use) for ti, use in per.items() if ti not in named_only]
        seen[fi_no] = set(per)
        if named_only:
            chunks.append((1, fi_no, "names the class", per, named_only))
    # the parent (class or callable), the variants, the other members of the class
    groups: list[tuple[str, str, int]] = []
    if api.parent and (api.parent_is_class or api.parent in table.returns):
        groups.append((api.parent, f"parent {_short(api.parent)}", 1))
    groups += [(v, f"variant {_short(v)}", 2) for v in _variants(api)]
    if api.parent_is_class:
        siblings = q.members(api.parent)
        many = len(siblings) > _SIBLINGS_ALL
        for sib in siblings:
            if sib != name and not (many and _stem(_short(sib)) != _stem(api.leaf)):
                groups.append((sib, f"sibling {_short(api.parent)}.{_short(sib)}", 3))
    parent_word = _short(api.parent) if api.parent else ""
    total = sum(len(c[4]) for c in chunks)
    for other, label, rank in groups:
        for fi_no in q.files_using(other):
            per = indexes[fi_no].uses.get(other)
            if not per:
                continue
            placed = seen.get(fi_no)
            new = per.keys() - placed if placed else set(per)
            if not new:
                continue
            if placed is None:
                seen[fi_no] = set(new)
            else:
                placed |= new
            total += len(new)
            if (
                rank == 1
            ):  # a test named after the parent (test_set_grad_enabled) is its own test: first
                tests = indexes[fi_no].tests
                own = {ti for ti in new if parent_word in _short(tests[ti][0])}
                if own:
                    chunks.append((0, fi_no, label, per, own))
                    new -= own
                    if not new:
                        continue
            chunks.append((rank, fi_no, label, per, new))
    # weak: mentions in strings and docstrings, and test names
    weak: dict[tuple[int, int], TestHit] = {}
    keys = {".".join(name.split(".")[-2:]), ".".join(api.spelled.split(".")[-2:])}
    for key in sorted(k for k in keys if "." in k):
        for fi_no in q.files_mentioning(key):
            placed = seen.get(fi_no, set())
            for ti in indexes[fi_no].weak.get(key, ()):
                if ti not in placed and (fi_no, ti) not in weak:
                    weak[(fi_no, ti)] = q.hit(fi_no, ti, f"mentions {key} in a string or docstring")
            line = indexes[fi_no].module_weak.get(key)
            if line is not None and (fi_no, -line) not in weak:
                path = index.files[fi_no][0]
                weak[(fi_no, -line)] = TestHit(
                    path, path, line, line, f"module or class docstring mentions {key}", line
                )
    first_word = next((w for w in api.leaf.split("_") if w), api.leaf)
    for fi_no, ti in q.tests_named(first_word):
        test_name = _short(indexes[fi_no].tests[ti][0])
        if api.parent_is_class:
            named = f"{parent_word}_{api.leaf}" in test_name
        else:
            named = test_name == f"test_{api.leaf}" or test_name.startswith(f"test_{api.leaf}_")
        if named and ti not in seen.get(fi_no, ()) and (fi_no, ti) not in weak:
            weak[(fi_no, ti)] = q.hit(fi_no, ti, "test name only")

    direct_keys.sort(key=lambda k: (k[0], k[1]))
    norm = index.normalizer
    direct_hits = [
        q.hit(
            fi_no, ti, how(use, norm, names_a_class and asserted(use)) if describe else "", use[4]
        )
        for fi_no, ti, use in direct_keys
    ]
    chunks.sort(key=lambda c: (c[0], c[1]))
    related_hits: list[TestHit] = []
    for _, fi_no, label, chunk_uses, tis in chunks:
        if len(related_hits) >= related_limit:
            break
        for ti in sorted(tis)[: related_limit - len(related_hits)]:
            use = chunk_uses[ti]
            text = (
                f"{label} ({how(use, norm)})"
                if label == "names the class"
                else f"{label}: {how(use, norm)}"
            )
            related_hits.append(q.hit(fi_no, ti, text, use[4]))
    return RefAnswer(direct_hits, related_hits, total, sorted(weak.values(), key=_hit_order))


def _hit_order(h: TestHit) -> tuple[str, int]:
    return (h.path, h.line)


# -- the entry point ------------------------------------------------------------------------


def suggestions(api: ApiName, queries: Sequence[RefQuery], table: AliasTable) -> tuple[str, ...]:
    """Names close to ``api`` that the table or the test trees know."""
    pool: set[str] = set(_table_by_leaf(table).get(api.leaf, ()))
    for q in queries:
        pool.update(q.names_ending(api.leaf))
        if api.parent:  # a misspelt member: the parent's members that tests use
            pool.update(q.members(api.parent))
    if api.parent in table.classes:
        pool.update(f"{api.parent}.{m}" for m in table.classes[api.parent].defines or ())
    pool.discard(api.canonical)
    leaf = api.leaf
    # only names whose last part could be a misspelling of the leaf (difflib over hundreds is slow)
    near = [
        n
        for n in pool
        if abs(len(_short(n)) - len(leaf)) <= 3 and _short(n)[:1] == leaf[:1] or _short(n) == leaf
    ]
    near.sort(key=lambda n: (abs(len(_short(n)) - len(leaf)), n))
    return tuple(difflib.get_close_matches(api.canonical, sorted(near[:200]), n=5, cutoff=0.6))


#: the last table's names by their last part (one table at a time in practice)
_BY_LEAF: list[tuple[AliasTable, dict[str, list[str]]]] = []


def _table_by_leaf(table: AliasTable) -> dict[str, list[str]]:
    if not _BY_LEAF or _BY_LEAF[0][0] is not table:
        by_leaf: dict[str, list[str]] = {}
        for name in table.names():
            by_leaf.setdefault(_short(name), []).append(name)
        _BY_LEAF[:] = [(table, by_leaf)]
    return _BY_LEAF[0][1]


@dataclass(frozen=True)
class Target:
    """One repository at one ref, with its test roots (the backend's, or upstream's)."""

    repo: Path
    ref: str
    roots: tuple[str, ...]
    upstream: bool = False
    #: the commit ``ref`` names ("" until resolved)
    commit: str = ""

    @property
    def flag(self) -> str:
        """The option the repository came from (for errors)."""
        return "--upstream" if self.upstream else "--repo"


def resolve_targets(
    repo: str | Path,
    refs: Sequence[str] | None,
    roots: Sequence[str],
    upstream: Sequence[tuple[str | Path, str]] = (),
    upstream_tests: Sequence[str] = ("test",),
) -> list[Target]:
    """Every repository and ref to index, each ref resolved to its commit.

    Runs before any indexing, so that a bad repository or ref is one clear line at once
    (a UsageError naming it), not after the refs before it were indexed.
    """
    targets = [Target(Path(repo), r, tuple(roots)) for r in (refs or ["HEAD"])]
    targets += [Target(Path(p), r, tuple(upstream_tests), True) for p, r in upstream]
    return [replace(t, commit=resolve_commit(open_repo(t.repo, t.flag), t.ref)) for t in targets]


def parse_upstream(spec: str) -> tuple[Path, str]:
    """``PATH[@REF]`` -> (path, ref); the ref defaults to HEAD."""
    path, sep, ref = spec.rpartition("@")
    if not sep or not path:
        return Path(spec), "HEAD"
    return Path(path), ref or "HEAD"


def coverage_for(
    apis: Iterable[str],
    repo: str | Path,
    refs: Sequence[str] | None,
    store: Store,
    tests: Sequence[str] | None = None,
    aliases: AliasTable | AliasSource | Mapping[str, str] | None = None,
    *,
    upstream: Sequence[tuple[str | Path, str]] = (),
    upstream_tests: Sequence[str] = ("test",),
    grep: str = "auto",
    jobs: int = 0,
    progress: Callable[[RefIndex, float], None] | None = None,
    each: Callable[[ApiCoverage], None] | None = None,
) -> CoverageReport:
    """Which tests cover each API at each ref of ``repo`` (and of upstream).

    :param refs: branches, tags or commits (default: HEAD)
    :param tests: test roots (default: the config's ``test_roots``)
    :param aliases: what resolve knows, on top of the static table
    :param grep: "auto" (git grep for a few APIs, in process for many), "git", "fast" or "off"
    :param each: given, each API's answer goes to it as soon as it is made, and the report keeps none
        (a batch of thousands is written out one by one, never all in memory)
    """
    table = table_for(aliases)
    names = [ApiName.parse(a, table) for a in dict.fromkeys(a.strip() for a in apis if a.strip())]
    if not names:
        raise UsageError(
            "no API name given; pass one or more names, or --from FILE with one a line"
        )
    roots = tuple(tests) if tests else load_config(None, repo).test_roots
    targets = resolve_targets(repo, refs, roots, upstream, upstream_tests)
    if grep == "auto":
        grep = "git" if len(names) * len(targets) <= GIT_GREP_MAX else "fast"
    # a few git greps run while the indexes load
    greps: dict[tuple[str, int], PendingGrep] = {}
    try:
        if grep == "git":
            for i, t in enumerate(targets):
                top, roots_at = open_repo(t.repo, t.flag), clean_roots(list(t.roots))
                for api in names:
                    greps[(api.canonical, i)] = PendingGrep(
                        top, t.ref, community_pattern(api.canonical)[0], roots_at
                    )
        return _coverage(names, targets, table, store, grep, greps, jobs, progress, each)
    finally:
        for pending in greps.values():
            pending.cancel()


def _coverage(
    names: list[ApiName],
    targets: list[Any],
    table: AliasTable,
    store: Store,
    grep: str,
    greps: dict[tuple[str, int], PendingGrep],
    jobs: int,
    progress: Callable[[RefIndex, float], None] | None,
    each: Callable[[ApiCoverage], None] | None = None,
) -> CoverageReport:
    indexer = Indexer(store, table, jobs=jobs)
    indexes: list[RefIndex] = []
    for t in targets:
        started = time.perf_counter()
        indexes.append(indexer.index(t.repo, t.ref, t.roots, flag=t.flag, commit=t.commit))
        if progress is not None:
            progress(indexes[-1], time.perf_counter() - started)
    queries = [RefQuery(ix, table) for ix in indexes]
    texts: list[TreeText] = []
    pool = BlobTexts()  # the refs' files, read once, matched once per blob
    results: list[ApiCoverage] = []
    for api, fast in _with_fast_greps(names, grep, targets, indexes, texts, pool):
        per_ref: list[RefCoverage] = []
        for i, (target, ix, q) in enumerate(zip(targets, indexes, queries, strict=True)):
            answer = query_ref(q, api)
            direct = answer.direct
            g: GrepResult | None = None
            if grep == "git":
                g = greps[(api.canonical, i)].result()
            elif grep == "fast":
                g = fast[i]
            per_ref.append(
                RefCoverage(
                    ref=target.ref,
                    commit=ix.commit,
                    repo=str(ix.repo),
                    upstream=target.upstream,
                    files=len(ix.files),
                    tests=ix.tests,
                    direct=tuple(direct),
                    related=tuple(answer.related),
                    related_total=answer.related_total,
                    weak=tuple(answer.weak[:MAX_WEAK]),
                    weak_total=len(answer.weak),
                    grep=g,
                    skipped_files=tuple(ix.skipped),
                    grep_in_direct=_grep_in(g, direct),
                )
            )
        found_any = any(r.direct or r.related for r in per_ref)
        hints = api.candidates or (() if found_any else suggestions(api, queries, table))
        cov = ApiCoverage(
            api.spelled, api.canonical, api.known, table.source, hints, tuple(per_ref)
        )
        zh, en = justify(cov)
        cov = replace(cov, justification_zh=zh, justification_en=en)
        szh, sen = section(cov)
        cov = replace(cov, section_zh=szh, section_en=sen)
        pool.forget_matches()
        if each is None:
            results.append(cov)
        else:
            each(cov)
    indexer.flush()
    return CoverageReport(tuple(results), tuple(indexes), answered=len(names))


#: APIs whose in-process baselines are matched together (each blob scanned once for all of them);
#: their lines are held until the APIs are answered
GREP_CHUNK = 1000
#: fewer APIs than this are matched one by one (only the blobs with their words are opened)
GREP_MANY_MIN = 24


def _grep_query(api: ApiName) -> tuple[str, str, str]:
    """(pattern, needle, the other word) of the community's baseline for ``api``."""
    pattern, parent_word, leaf_word = community_pattern(api.canonical)
    return pattern, needle(parent_word, leaf_word), parent_word or leaf_word


def _with_fast_greps(
    names: Sequence[ApiName],
    grep: str,
    targets: Sequence[Any],
    indexes: Sequence[RefIndex],
    texts: list[TreeText],
    pool: BlobTexts,
) -> Iterator[tuple[ApiName, list[GrepResult]]]:
    """Each API with its in-process baseline at each ref (none unless ``grep`` is "fast"), matched
    ``GREP_CHUNK`` APIs at a time (``grep_many``); ``texts`` gets the refs' trees when first needed."""
    for start in range(0, len(names), GREP_CHUNK):
        chunk = names[start : start + GREP_CHUNK]
        if grep != "fast":
            yield from ((api, []) for api in chunk)
            continue
        if not texts:
            texts += [
                TreeText(ix.repo, t.ref, ix.entries, ix.roots, pool)
                for t, ix in zip(targets, indexes, strict=True)
            ]
        asked = [_grep_query(api) for api in chunk]
        if len(chunk) >= GREP_MANY_MIN:
            found = grep_many(texts, asked)
        else:
            found = [[tree.grep(*query) for tree in texts] for query in asked]
        yield from zip(chunk, found, strict=True)


def _grep_in(g: GrepResult | None, direct: Sequence[TestHit]) -> int:
    """How many grep lines lie inside a direct test's lines."""
    if g is None or not direct:
        return 0
    spans: dict[str, list[tuple[int, int]]] = {}
    for h in direct:
        spans.setdefault(h.path, []).append((h.line, h.end_line))
    n = 0
    for m in g.matches:
        parts = m.split(":", 3)
        if len(parts) == 4 and parts[2].isdigit():
            line = int(parts[2])
            if any(a <= line <= b for a, b in spans.get(parts[1], ())):
                n += 1
    return n
