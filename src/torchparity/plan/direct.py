"""Each API's tests at one ref: its direct tests from the coverage index, the community's regex count.

The index is coverage's (``coverage.Indexer``: built once per ref and alias table, kept in the store),
read with the table the surface gives; the regex baseline is matched in process for every API in one
scan of the tree (``coverage.grep.grep_many``), counts only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..coverage import AliasTable, Indexer, RefIndex
from ..coverage.grep import BlobTexts, TreeText, community_pattern, grep_many, needle
from ..coverage.query import ApiName, RefQuery, query_ref
from ..store import Store

#: direct tests named per API in the summary (the count is always given)
LISTED_TESTS = 10


@dataclass(frozen=True)
class ApiTests:
    """One API's tests at the ref."""

    direct: int
    #: the first ``LISTED_TESTS`` direct tests (``path::Class::test``)
    tests: tuple[str, ...]
    related: int
    #: lines the community's ``git grep`` pattern matches (None: not run)
    regex: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "direct": self.direct,
            "direct_tests": list(self.tests),
            "related": self.related,
            "regex": self.regex,
        }


def index_ref(
    repo: Path,
    ref: str,
    commit: str,
    roots: Sequence[str],
    store: Store,
    table: AliasTable,
    jobs: int = 0,
) -> RefIndex:
    """The coverage index of ``repo`` at ``ref`` under ``table`` (kept in ``store``)."""
    indexer = Indexer(store, table, jobs=jobs)
    ix = indexer.index(repo, ref, roots, commit=commit)
    indexer.flush()
    return ix


def tests_of(
    names: Sequence[str],
    ix: RefIndex,
    table: AliasTable,
    regex: bool = True,
    progress: Callable[[int], None] | None = None,
) -> dict[str, ApiTests]:
    """{name: its tests at the index's ref} for every name of ``names``."""
    q = RefQuery(ix, table)
    apis = [ApiName.parse(n, table) for n in names]
    counts: list[int | None] = [None] * len(apis)
    if regex and apis:
        tree = TreeText(ix.repo, ix.ref, ix.entries, ix.roots, BlobTexts(index=False))
        queries = []
        for api in apis:
            pattern, parent_word, leaf_word = community_pattern(api.canonical)
            queries.append((pattern, needle(parent_word, leaf_word), parent_word or leaf_word))
        counts = [per[0].count for per in grep_many([tree], queries, listed=0)]
    out: dict[str, ApiTests] = {}
    for n, (name, api, count) in enumerate(zip(names, apis, counts, strict=True)):
        answer = query_ref(q, api, related_limit=0, describe=False)
        out[name] = ApiTests(
            len(answer.direct),
            tuple(h.test for h in answer.direct[:LISTED_TESTS]),
            answer.related_total,
            count,
        )
        if progress is not None and n % 1000 == 999:
            progress(n + 1)
    return out
