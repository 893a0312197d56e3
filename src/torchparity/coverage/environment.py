"""Aliases from ``resolve`` in an environment (``coverage --python PY``), on top of the static table.

The names asked about are resolved by the agent in that interpreter (no trace),
and what it says (the canonical name, every exported spelling, the class a
member belongs to, which names are classes) becomes an ``AliasTable`` whose
entries win over the static ones where the two disagree. Where they agree the
static entry stays, with the bases and members it knows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from ..api import resolve_api
from .aliases import AliasTable, static_table

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


def resolved_table(resolutions: Iterable[ResolutionLike], base: AliasTable | None = None) -> AliasTable:
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


def environment_table(names: Sequence[str], python: str, backend_module: str = "", *,
                      mode: str = "warm") -> AliasTable:
    """Resolve ``names`` in ``python`` (no trace) and turn the answers into a table.

    A name that resolves to nothing or to several things raises ``UnresolvedApi`` (exit 2).
    """
    infos = resolve_api(list(names), python, backend_module, "cpu", trace=False, mode=mode)
    return resolved_table([i.resolution for i in infos])
