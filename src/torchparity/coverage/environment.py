"""Aliases from ``resolve`` in an environment (``coverage --python PY``), on top of the static table.

The names asked about are resolved by the agent in that interpreter (no trace),
and what it says (the canonical name, every exported spelling, the class a
member belongs to, which names are classes) becomes an ``AliasTable`` whose
entries win over the static ones where the two disagree. Where they agree the
static entry stays, with the bases and members it knows.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..store import Store
from .aliases import AliasTable, static_table
from .types import TypeFacts

#: seconds for reading the type facts of a torch (its stubs, annotations, schemas)
TYPES_TIMEOUT = 300.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS coverage_type_facts (
    key     TEXT PRIMARY KEY,      -- torch version | backend module | interpreter
    facts   TEXT NOT NULL          -- TypeFacts as JSON
);
"""

#: resolve's kinds that are classes
CLASS_KINDS = ("class", "context-manager", "storage-class")


class ResolutionLike(Protocol):
    """What a resolve answer (``api.Resolution``) carries that the table needs."""

    @property
    def query(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def canonical(self) -> str: ...
    @property
    def aliases(self) -> tuple[str, ...]: ...
    @property
    def kind(self) -> str: ...
    @property
    def owner_class(self) -> str | None: ...


def resolved_table(
    resolutions: Iterable[ResolutionLike], base: AliasTable | None = None
) -> AliasTable:
    """A table of what resolve learnt, keeping only what ``base`` (the static table) does not say."""
    base = base if base is not None else static_table()
    aliases: dict[str, str] = {}
    is_class: dict[str, bool] = {}
    for r in resolutions:
        spellings = [s for s in (r.query, r.path, *r.aliases) if s]
        for spelled in spellings:
            if spelled != r.canonical and base.canonical(spelled)[0] != r.canonical:
                aliases[spelled] = r.canonical
        if not base.known(r.canonical):
            is_class[r.canonical] = r.kind in CLASS_KINDS
        owner = r.owner_class
        if owner:
            leaf = r.canonical.rsplit(".", 1)[-1]
            # the class's own spellings, from the member's qualified ones (not the short query)
            for spelled in (r.path, *r.aliases):
                parent = spelled[: -len(leaf) - 1] if spelled.endswith("." + leaf) else ""
                if parent and parent != owner and base.canonical(parent)[0] != owner:
                    aliases[parent] = owner
            if owner not in base.classes:
                is_class[owner] = True
    return AliasTable.from_mappings(aliases, None, is_class, source="resolve")


def environment_table(
    names: Sequence[str], python: str, backend_module: str = "", *, mode: str = "warm"
) -> AliasTable:
    """Resolve ``names`` in ``python`` (no trace) and turn the answers into a table.

    A name that resolves to nothing or to several things raises ``UnresolvedApi`` (exit 2).
    """
    from ..api import resolve_api  # (the agent's side: imported when an environment is asked)

    infos = resolve_api(list(names), python, backend_module, "cpu", trace=False, mode=mode)
    return resolved_table([i.resolution for i in infos])


@dataclass(frozen=True)
class Environment:
    """What the environment under test says: resolve's answers as a table, and its type facts."""

    table: AliasTable
    types: TypeFacts
    resolutions: tuple[ResolutionLike, ...]


def environment(
    names: Sequence[str],
    python: str,
    backend_module: str,
    store: Store | None,
    *,
    mode: str = "warm",
) -> Environment:
    """Resolve ``names`` in ``python`` and read its type facts there (one agent session), the type
    facts cached in ``store`` per torch version, backend module and interpreter."""
    from ..api import agent_session, resolve_api  # (imported when an environment is asked)

    with agent_session(python, backend_module, "cpu", mode=mode) as session:
        infos = resolve_api(
            list(names), python, backend_module, "cpu", trace=False, session=session
        )
        resolutions = tuple(i.resolution for i in infos)
        version = str(getattr(resolutions[0], "torch_version", "")) if resolutions else ""
        key = f"{version}|{backend_module}|{os.path.realpath(python)}"
        types = _cached(store, key) if version else None
        if types is None:
            answer = session.call("alias_facts", {"table": False, "types": True}, TYPES_TIMEOUT)
            doc = answer.get("types") or {}
            types = TypeFacts.from_json(
                doc, source=f"environment (torch {doc.get('torch_version', version)})"
            )
            if store is not None and version:
                store.ensure_schema("coverage_types", _SCHEMA)
                with store.transaction() as conn:
                    conn.execute(
                        "INSERT OR REPLACE INTO coverage_type_facts(key, facts) VALUES (?, ?)",
                        (key, json.dumps(types.to_json(), separators=(",", ":"))),
                    )
    return Environment(resolved_table(resolutions), types, resolutions)


def _cached(store: Store | None, key: str) -> TypeFacts | None:
    if store is None:
        return None
    store.ensure_schema("coverage_types", _SCHEMA)
    rows = store.query("SELECT facts FROM coverage_type_facts WHERE key=?", (key,))
    return TypeFacts.from_json(json.loads(rows[0]["facts"])) if rows else None
