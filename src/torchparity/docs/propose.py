"""``docs propose``: the support pages' cells proposed from runs, with the evidence behind each.

From the targets of verify, run or batch runs (``propose_runs``), each bound to a cell (API x page
version x product: ``propose_evidence``), every cell of each API and version the runs touched is
proposed and held against the page (``propose_cells``): it agrees, contradicts the page, goes into
a proposed new entry (the version has none), or is left to a person with why. The new entries are
written by ``docs add`` into a scratch copy and shown as one diff; ``--write`` writes the same bytes
through ``docs add``'s all-or-nothing writer (``propose_edit``). Emulated evidence, and evidence
whose probe saw no real device of its configured hardware, never proposes a cell.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..records.resolve import Resolution
from .check import check_in_tree
from .propose_cells import AGREES, CONTRADICTION, LEFT, NEW, STATES, Cell, cells_of, mark
from .propose_edit import EntryAsk, PageChange, PlannedEntry, plan_entries, unified_diff, write
from .propose_evidence import Evidence
from .propose_runs import RunEvidence
from .tree import DocsTree
from .versions import folder_name, normalize_version, version_key

SCHEMA = "torchparity.docs-propose/1"

#: (API as the run names it, resolve's answer) -> (the name pages list it under, its other spellings)
Names = Callable[[str, Resolution | None], tuple[str, list[str]]]


def plain_names(api: str, resolution: Resolution | None) -> tuple[str, list[str]]:
    return api, []


@dataclass(frozen=True)
class Proposal:
    docs_dir: str
    runs: tuple[RunEvidence, ...]
    cells: tuple[Cell, ...]
    entries: tuple[PlannedEntry, ...]
    pages: tuple[PageChange, ...]
    #: targets bound to no cell (no API, no product, no page version, a version not asked), each with why
    unbound: tuple[Evidence, ...]
    notes: tuple[str, ...] = ()
    written: bool = False

    def of_state(self, state: str) -> list[Cell]:
        return [c for c in self.cells if c.state == state]

    @property
    def contradictions(self) -> list[Cell]:
        return self.of_state(CONTRADICTION)

    @property
    def diff(self) -> str:
        return unified_diff(self.pages)

    @property
    def added(self) -> list[PlannedEntry]:
        return [p for p in self.entries if p.change is not None]

    def counts(self) -> dict[str, int]:
        out = {s: len(self.of_state(s)) for s in STATES}
        out.update(
            cells=len(self.cells),
            entries=len(self.added),
            pages=len(self.pages),
            unbound=len(self.unbound),
            targets=sum(len(r.evidence) for r in self.runs),
            runs=len(self.runs),
        )
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "docs_dir": self.docs_dir,
            "runs": [
                {
                    "uid": r.uid,
                    "id": r.id,
                    "kind": r.kind,
                    "api": r.api,
                    "batch": r.batch or None,
                    "targets": [e.label for e in r.evidence],
                }
                for r in self.runs
            ],
            "summary": self.counts(),
            "cells": [c.to_json() for c in self.cells],
            "entries": [p.to_json() for p in self.entries],
            "unbound": [e.to_json() for e in self.unbound],
            "notes": list(self.notes),
            "diff": self.diff,
            "written": self.written,
        }


def _unbound(e: Evidence, code: str, why: str) -> Evidence:
    return replace(e, why_code=code, why=why)


def _bind(
    runs: Iterable[RunEvidence], versions: set[str] | None, names: Names
) -> tuple[dict[tuple[str, str], list[Evidence]], dict[str, list[str]], list[Evidence]]:
    """Evidence by (entry name, version); each entry name's other spellings; the evidence bound to none."""
    cells: dict[tuple[str, str], list[Evidence]] = {}
    spellings: dict[str, list[str]] = {}
    unbound: list[Evidence] = []
    for run in runs:
        for e in run.evidence:
            if not run.api:
                unbound.append(
                    _unbound(
                        e,
                        "no_api",
                        f"run {run.uid[:12]} ({run.kind}) names no API (run it with --api, or use verify)",
                    )
                )
                continue
            if run.resolution is not None and not run.resolution.public:
                reason = run.resolution.public_reason
                unbound.append(
                    _unbound(
                        e,
                        "private",
                        f"{run.api} is private ({reason}): the pages list public APIs only",
                    )
                )
                continue
            if not e.product or not e.version:
                unbound.append(e)
                continue
            if versions is not None and e.version not in versions:
                unbound.append(
                    _unbound(e, "version_not_asked", f"torch {e.version}: not a --version asked")
                )
                continue
            entry, others = names(run.api, run.resolution)
            spellings.setdefault(entry, [])
            for s in [run.api, *others]:
                if s != entry and s not in spellings[entry]:
                    spellings[entry].append(s)
            cells.setdefault((entry, e.version), []).append(e)
    return cells, spellings, unbound


def _no_pages(cell: Cell, tree: DocsTree) -> Cell:
    return replace(
        cell,
        state=LEFT,
        why_code="no_pages",
        why=(
            f"no {folder_name(cell.version)} folder in {tree.root}: the pages of torch "
            f"{cell.version} do not exist yet (proposed: {mark(cell.proposed)})"
        ),
    )


def propose(
    runs: Iterable[RunEvidence],
    tree: DocsTree,
    *,
    versions: Iterable[str] | None = None,
    names: Names = plain_names,
    notes: Iterable[str] = (),
) -> Proposal:
    """Every cell the runs touch, proposed and held against ``tree``'s pages; the new entries planned."""
    runs = tuple(runs)
    asked = {normalize_version(v) for v in versions} if versions else None
    by_cell, spellings, unbound = _bind(runs, asked, names)
    cells: list[Cell] = []
    asks: list[EntryAsk] = []
    ask_of: dict[tuple[str, str], int] = {}  # (api, version) -> its ask (and planned entry)
    for api, version in sorted(by_cell, key=lambda k: (version_key(k[1]), k[0])):
        evidence = by_cell[(api, version)]
        if not tree.has_folder(version):
            cells += [
                _no_pages(c, tree) for c in cells_of(api, version, evidence, tree.products, None)
            ]
            continue
        hit = next(
            (h for n in [api, *spellings[api]] if (h := tree.find(n, version)) is not None), None
        )
        found = (hit[0], tree.rel(hit[0]), hit[1]) if hit is not None else None
        mine = cells_of(api, version, evidence, tree.products, found)
        cells += mine
        statuses = {c.product: bool(c.proposed) for c in mine if c.state == NEW}
        if statuses:
            checked = check_in_tree(tree, api, [version], spellings[api]).versions[0]
            name = checked.hint_api if checked.hint else api
            ask_of[(api, version)] = len(asks)
            asks.append(EntryAsk(name, version, statuses))
    planned, pages = plan_entries(tree, asks)
    done: list[Cell] = []
    for c in cells:
        k = ask_of.get((c.api, c.version)) if c.state == NEW else None
        p = planned[k] if k is not None else None
        if p is not None and p.change is None:
            c = replace(
                c,
                state=LEFT,
                why_code="not_added",
                why=f"no entry in the {c.version} pages and {mark(c.proposed)} proposed, but {p.refused}",
            )
        elif p is not None and p.change is not None:
            ch = p.change
            c = replace(
                c, why=f"{c.why}: proposed in the new entry at {ch.page}:{ch.start}-{ch.end}"
            )
        done.append(c)
    return Proposal(
        str(tree.root),
        runs,
        tuple(done),
        tuple(planned),
        tuple(pages),
        tuple(unbound),
        tuple(notes),
    )


def apply(proposal: Proposal, tree: DocsTree) -> Proposal:
    """Write the proposal's pages (clean docs folder only; every page or none)."""
    if proposal.pages:
        write(tree, proposal.pages)
    return replace(proposal, written=bool(proposal.pages))


__all__ = ["AGREES", "SCHEMA", "Names", "Proposal", "apply", "plain_names", "propose"]
