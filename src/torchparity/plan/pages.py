"""Each API of the surface against one version's support pages: documented, ✘, or missing.

An API is found on the pages under any of its spellings (PyTorch's docs name, its other public
spellings, resolve's canonical name, a backend spelling an entry states), as ``docs check`` finds
one. Its state is ``documented`` when its entry marks every product it names supported,
``unsupported`` when the entry marks one or more products ✘ (the products are listed), and
``missing`` when no page has an entry for it. Entries of the pages that no API of the surface
reaches are listed apart (a removed or private API, or one spelled in a way torch does not export).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..docs import DocsTree
from ..docs.model import Entry, Page
from .surface import Surface

DOCUMENTED = "documented"
UNSUPPORTED = "unsupported"
MISSING = "missing"
#: the states, in the order they are counted and listed
STATES = (MISSING, UNSUPPORTED, DOCUMENTED)


@dataclass(frozen=True)
class PageState:
    """Where the pages list an API (if they do) and what its entry says per product."""

    state: str
    page: str | None = None
    line: int | None = None
    #: the name the entry is written under
    entry: str | None = None
    #: product code -> (status as written, supported: True / False / None when not understood)
    products: dict[str, tuple[str, bool | None]] = field(default_factory=dict)

    @property
    def unsupported_on(self) -> tuple[str, ...]:
        """The products the entry marks ✘."""
        return tuple(code for code, (_, ok) in self.products.items() if ok is False)

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "page": self.page,
            "line": self.line,
            "entry": self.entry,
            "products": {
                code: {"status": status, "supported": ok}
                for code, (status, ok) in self.products.items()
            },
            "unsupported_on": list(self.unsupported_on),
        }


#: why an entry of the pages reaches no API of the surface
NOTHING_HERE = "its name reaches nothing in this torch"
NOT_PUBLIC = "its name reaches an object that is no public API"
NOT_ASKED = "its name was not looked up in the environment"


@dataclass(frozen=True)
class PagesView:
    """Every API's state on one version's pages, and the pages' entries no API reached (with why)."""

    version: str
    folder: str
    states: dict[str, PageState]
    unmatched: tuple[tuple[str, str], ...]
    #: product codes in the order the config (or the pages) names them, with their names
    products: tuple[tuple[str, str], ...]
    entries: int


def _state(found: tuple[Page, Entry] | None, tree: DocsTree) -> PageState:
    if found is None:
        return PageState(MISSING)
    page, entry = found
    statuses: dict[str, tuple[str, bool | None]] = {}
    for p in entry.products:
        if tree.products and not p.known:
            continue  # a product that is not configured (docs lint reports it)
        statuses.setdefault(p.code, (p.status, p.supported))
    state = UNSUPPORTED if any(ok is False for _, ok in statuses.values()) else DOCUMENTED
    return PageState(state, tree.rel(page), entry.start, entry.api, statuses)


def page_states(tree: DocsTree, version: str, surface: Surface) -> PagesView:
    """The state of each API of ``surface`` (by name) on the pages of ``version`` under ``tree``.

    An API's entry is the one a page writes under one of its names (docs name first), else one whose
    name the environment found to reach the same object (``surface.reaches``)."""
    pages = tree.pages(version)
    mapped: dict[str, list[tuple[Page, Entry]]] = {}
    for page in pages:
        for e in page.entries:
            target = surface.reaches.get(e.api)
            if target:
                mapped.setdefault(target, []).append((page, e))
    states: dict[str, PageState] = {}
    spelled: set[str] = set()
    for api in surface.apis:
        names = api.doc_names()
        spelled.update(names)
        found = next((hit for n in names if (hit := tree.find(n, version)) is not None), None)
        if found is None and api.name in mapped:
            found = mapped[api.name][0]
        states[api.name] = _state(found, tree)
    reached = {s.entry for s in states.values() if s.entry} | spelled
    unmatched: dict[str, str] = {}
    for page in pages:
        for e in page.entries:
            if e.api in reached or surface.reaches.get(e.api):
                continue
            why = surface.reaches.get(e.api, "?")
            unmatched[e.api] = (
                NOT_ASKED if why == "?" else NOTHING_HERE if why is None else NOT_PUBLIC
            )
    codes: dict[str, str] = {p.code: p.name for p in tree.products}
    if not tree.products:  # none configured: the pages' own products
        for page in pages:
            for e in page.entries:
                for p in e.products:
                    codes.setdefault(p.code, p.name)
    return PagesView(
        version,
        tree.folder(version).name,
        states,
        tuple(sorted(unmatched.items())),
        tuple(codes.items()),
        len({e.api for page in pages for e in page.entries}),
    )
