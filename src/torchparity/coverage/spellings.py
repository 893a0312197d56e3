"""One answer for what an API is called: every spelling coverage counts, assembled in one place.

``assemble`` is what the ``coverage`` verb, ``verify`` and the checklist read names with:

1. the static table (aliases, classes; type facts generated from a real torch);
2. what resolve says in the environment under test (``--python``, or verify's resolve stage),
   with that environment's type facts, and an alias file (``--aliases``);
3. the config's ``[backend_aliases]`` (``torch.npu`` is ``torch_npu.npu``);
4. the backend's own spelling the native API pages state for the API (NPU 形式名称:
   ``torch_npu.npu.Event`` for ``torch.cuda.Event``), and for its class.

Later sources win where they disagree.

Which APIs each version's pages state a backend spelling for is kept in the store
(``StatedApis``, under the folder's file sizes and times): a warm call parses a
version's pages only when one of its APIs is among them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..config import Config
from ..docs import DocsTree
from ..docs.parse import page_files
from ..docs.tree import backend_names, find_docs_dir
from ..docs.versions import version_key
from ..errors import UsageError
from ..store import Store
from .aliases import AliasTable, static_table
from .environment import resolved_table
from .types import TypeFacts

#: resolve's kinds whose name is a class
_CLASS_KINDS = ("class", "context-manager", "storage-class")


@dataclass(frozen=True)
class Spellings:
    """The table coverage reads names with, and where its backend spellings came from."""

    table: AliasTable
    #: backend spelling -> canonical name of an API asked for, from the native API pages (NPU 形式名称)
    from_docs: dict[str, str] = field(default_factory=dict)
    #: backend spelling of such an API's class -> the class (torch_npu.npu -> its owner's spelling)
    owners_from_docs: dict[str, str] = field(default_factory=dict)
    #: what went in, in order ("static", "resolve", "aliases file", "environment types", ...)
    sources: tuple[str, ...] = ()

    def notes(self) -> list[str]:
        """What the docs added, for a verdict or the verb's output (one line, or none)."""
        if not self.from_docs:
            return []
        return [
            "coverage counts the backend's spelling too: "
            + ", ".join(f"{name} (the docs' NPU 形式名称)" for name in self.from_docs)
        ]


def docs_tree(config: Config, repo: Path | None, docs: Path | None = None) -> DocsTree | None:
    """The native API pages of ``repo`` (or ``docs``), or None when there are none to read."""
    try:
        found = find_docs_dir(docs, [repo] if repo is not None else [], config.docs_root)
        return (
            DocsTree(found, config.docs_products, config.docs_root) if found is not None else None
        )
    except UsageError:
        if docs is not None:
            raise
        return None


_STATED_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs_stated_apis (
    key   TEXT PRIMARY KEY,   -- digest of a version folder's page files (paths, sizes, times) and the tool
    apis  TEXT NOT NULL       -- JSON list: the APIs its pages state a backend spelling for
);
"""


class StatedApis:
    """Per version of a docs tree, the APIs whose entries state a backend spelling (kept in a store)."""

    def __init__(self, tree: DocsTree, store: Store | None) -> None:
        self.tree = tree
        self.store = store
        if store is not None:
            store.ensure_schema("docs_stated_apis", _STATED_SCHEMA)

    def _key(self, version: str) -> str:
        folder = self.tree.folder(version)
        digest = hashlib.sha256(
            f"{folder.resolve()}|{__version__}|{self.tree.products.items!r}".encode()
        )
        for page in page_files(folder):
            st = os.stat(page)
            digest.update(f"\0{page.name}|{st.st_size}|{st.st_mtime_ns}".encode())
        return digest.hexdigest()

    def of(self, version: str) -> set[str]:
        if self.store is None:
            return set(backend_names(self.tree.pages(version)).values())
        key = self._key(version)
        rows = self.store.query("SELECT apis FROM docs_stated_apis WHERE key=?", (key,))
        if rows:
            return set(json.loads(rows[0]["apis"]))
        stated = set(backend_names(self.tree.pages(version)).values())
        try:
            with self.store.transaction() as conn:
                conn.execute(
                    "INSERT OR REPLACE INTO docs_stated_apis(key, apis) VALUES (?, ?)",
                    (key, json.dumps(sorted(stated))),
                )
        except Exception:  # noqa: BLE001 - a store that cannot keep it: read again next time
            pass
        return stated


def _docs_spellings(
    tree: DocsTree,
    apis: Sequence[str],
    base: AliasTable,
    resolutions: Sequence[Any],
    store: Store | None = None,
) -> tuple[dict[str, str], dict[str, str], dict[str, bool]]:
    """{backend spelling: canonical}, {class spelling: class}, {spelling: is a class}, from the newest
    page that states one."""
    by_query = {getattr(r, "query", ""): r for r in resolutions}
    try:
        versions = sorted(tree.versions(), key=version_key, reverse=True)
    except UsageError:
        return {}, {}, {}
    out: dict[str, str] = {}
    owners: dict[str, str] = {}
    stated_apis: dict[str, set[str]] = {}
    stated_in = StatedApis(tree, store)
    classes: dict[str, bool] = {}
    for api in apis:
        res = by_query.get(api)
        if res is not None:
            names = list(res.doc_names())
            canonical, owner = res.canonical, res.owner_class
            is_class = res.kind in _CLASS_KINDS
        else:
            canonical = base.canonical(api)[0]
            names = list(dict.fromkeys([api, canonical, *base.spellings(canonical)]))
            parent = canonical.rpartition(".")[0]
            owner = parent if parent and base.is_class(parent) else None
            is_class = base.is_class(canonical)
        for version in versions:
            stated = stated_apis.get(version)
            if stated is None:  # the entries (and their members) that state a backend spelling
                stated = stated_apis[version] = stated_in.of(version)
            if not any(n in stated or n.rpartition(".")[0] in stated for n in names):
                continue
            spelled = next((s for s in (tree.backend_name(n, version) for n in names) if s), None)
            if spelled is None:
                continue
            out[spelled] = canonical
            if is_class:
                classes[spelled] = True
            if owner and "." in spelled:
                parent_spelled = spelled.rsplit(".", 1)[0]
                owners[parent_spelled] = owner
                classes[parent_spelled] = True
            break
    return out, owners, classes


def assemble(
    apis: Iterable[str],
    config: Config,
    *,
    repo: Path | None = None,
    docs: DocsTree | Path | None = None,
    resolutions: Sequence[Any] = (),
    learnt: AliasTable | None = None,
    types: TypeFacts | None = None,
    store: Store | None = None,
) -> Spellings:
    """Every spelling of ``apis`` coverage counts (see the module docstring).

    :param repo: the backend repository (its docs pages are read when ``docs`` is not given)
    :param resolutions: resolve's answers for the APIs (verify's resolve stage, ``--python``)
    :param learnt: more that is known (an ``--aliases`` file, an environment's table)
    :param types: the environment's type facts (the static ones otherwise)
    :param store: where what the docs pages state is kept between calls (None: read every time)
    """
    names = [a.strip() for a in apis if a.strip()]
    sources = ["static"]
    table = static_table()
    devices = tuple(d for d in (config.device,) if d and d not in ("auto", "cpu"))
    if types is not None:
        table = table.with_types(types, devices)
        sources.append(types.source)
    elif devices:
        table = table.with_types(TypeFacts(source="static"), devices)
    if resolutions:
        table = table.merged(resolved_table(resolutions, static_table()))
        sources.append("resolve")
    if learnt is not None:
        table = table.merged(learnt)
        sources.append(learnt.source)
    backend: dict[str, str] = dict(config.backend_aliases)
    classes: dict[str, bool] = {}
    from_docs: dict[str, str] = {}
    owners: dict[str, str] = {}
    tree = docs if isinstance(docs, DocsTree) else docs_tree(config, repo, docs)
    if tree is not None and names:
        from_docs, owners, classes = _docs_spellings(tree, names, table, resolutions, store)
        backend.update(owners)
        backend.update(from_docs)
        if from_docs:
            sources.append("docs")
    if backend:
        table = table.merged(AliasTable.from_mappings(backend, None, classes, source="backend"))
        if config.backend_aliases:
            sources.append("[backend_aliases]")
    return Spellings(table, from_docs, owners, tuple(sources))


def docs_names(api: str, resolution: Any | None = None) -> tuple[str, list[str]]:
    """The name a support page lists ``api`` under and its other spellings: the one docs lookup that
    ``docs check``, ``verify`` and ``review`` share. With resolve's answer, PyTorch's documented
    name first (``Resolution.doc_names``); without it, ``api`` and the static table's spellings."""
    if resolution is not None:
        first, *others = resolution.doc_names()
        return first, others
    return api, [s for s in static_table().spellings(api) if s != api]
