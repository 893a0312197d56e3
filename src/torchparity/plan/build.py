"""``make_plan``: the surface of the environment's torch against one version's pages and one ref's tests.

Steps, each timed: the agent computes the surface (``surface``); the pages give each API its state
(``pages``); coverage's alias table is assembled from the surface and the index of the ref is read
or built with it; each API's direct tests and regex count are looked up (``direct``); the rows are
ranked (``rank``); the first ``families`` planned APIs get the scaffold family that would take them
(``families``, an agent job per API).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..api import AgentSession
from ..config import Config
from ..coverage.spellings import assemble
from ..docs import DocsTree
from ..docs.tree import module_of_page
from ..errors import UsageError
from ..store import Store
from .direct import ApiTests, index_ref, tests_of
from .families import families_of
from .pages import PagesView, page_states
from .rank import PlanRow, is_planned, ranked
from .surface import Surface, read_surface


@dataclass(frozen=True)
class Plan:
    """The ranked rows and what they were made from."""

    rows: tuple[PlanRow, ...]
    surface: Surface
    pages: PagesView
    repo: str
    ref: str
    commit: str
    test_roots: tuple[str, ...]
    states: tuple[str, ...]
    #: planned APIs whose family was asked for (the first N), and whether their tests were checked
    families_asked: int
    family_check: bool
    regex: bool
    backend_module: str
    emulated: str
    #: step -> seconds
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def planned(self) -> list[PlanRow]:
        return [r for r in self.rows if r.planned]


Progress = Callable[[str], None]


def _timed(timings: dict[str, float], step: str, started: float) -> float:
    now = time.perf_counter()
    timings[step] = round(now - started, 2)
    return now


def make_plan(
    session: AgentSession,
    *,
    repo: Path,
    ref: str,
    commit: str,
    version: str,
    tree: DocsTree,
    config: Config,
    store: Store,
    roots: Sequence[str] = ("torch",),
    states: Collection[str] = ("missing", "unsupported"),
    families: int = 0,
    family_check: bool = False,
    regex: bool = True,
    jobs: int = 0,
    backend_module: str = "",
    emulated: str = "",
    progress: Progress | None = None,
) -> Plan:
    """The plan for ``version``'s pages under ``tree`` and ``repo`` at ``ref`` (``commit``), with the
    surface of the interpreter ``session`` talks to."""
    say = progress or (lambda _msg: None)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    listed = list(dict.fromkeys(e.api for page in tree.pages(version) for e in page.entries))
    say("surface: the public API of the environment's torch (its public modules imported)")
    surface = read_surface(session, roots, listed)
    if not surface.apis:
        why = "; ".join(f"{m}: {err}" for m, err in surface.failed) or "it holds no public name"
        raise UsageError(
            f"no public API under {', '.join(roots)} in {surface.python or 'the environment'} "
            f"({why}); pass --module with a module of torch, e.g. torch.optim"
        )
    started = _timed(timings, "surface", started)
    say(f"pages: {len(surface.apis):,} APIs against the {version} pages")
    pages = page_states(tree, version, surface)
    started = _timed(timings, "pages", started)
    say(f"index: the tests at {ref}")
    names = [api.name for api in surface.apis]
    table = assemble(names, config, docs=tree, resolutions=surface.apis, store=store).table
    roots_at = tuple(config.test_roots)
    ix = index_ref(repo, ref, commit, roots_at, store, table, jobs)
    started = _timed(timings, "index", started)
    say(f"tests: each API's direct tests at {ref}" + (" and its regex baseline" if regex else ""))
    found = tests_of(names, ix, table, regex)
    started = _timed(timings, "tests", started)
    page_modules = {module_of_page(p.path) for p in tree.pages(version)}
    rows = ranked(
        PlanRow(
            api,
            pages.states[api.name],
            found.get(api.name, ApiTests(0, (), 0, None)),
            is_planned(pages.states[api.name], states),
            api.module in page_modules,
        )
        for api in surface.apis
    )
    asked = [r for r in rows if r.planned][: max(0, families)]
    if asked:
        say(f"families: the scaffold family of the first {len(asked)} planned APIs")
        got = families_of(session, [r.api.name for r in asked], backend_module, family_check)
        chosen = {r.api.name: got.get(r.api.name, (None, "")) for r in asked}
        rows = [
            replace(r, family=chosen[r.api.name][0], family_note=chosen[r.api.name][1])
            if r.api.name in chosen
            else replace(r, family_note=_not_asked(r, families))
            for r in rows
        ]
        started = _timed(timings, "families", started)
    else:
        rows = [replace(r, family_note=_not_asked(r, families)) for r in rows]
    return Plan(
        tuple(rows),
        surface,
        pages,
        str(repo),
        ref,
        commit,
        roots_at,
        tuple(states),
        len(asked),
        family_check,
        regex,
        backend_module,
        emulated,
        timings,
    )


def _not_asked(row: PlanRow, families: int) -> str:
    if not row.planned:
        return "not planned"
    return f"not computed: beyond the first {families} planned APIs (--families)"
