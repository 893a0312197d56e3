"""The order tasks are planned in, and the rows it orders.

The rule (README, docs/plan.md):

1. planned APIs first: missing from the pages, or on them with a product marked ✘ (``--state``);
2. then those that have direct tests at the ref (verify runs them; no test has to be written);
3. then ✘ before missing (the entry is there; only its cells change), and ✘ on more products first;
4. then an API whose own module has a page in that version (its entry goes beside its relatives);
5. then more direct tests, then more lines of the community's regex baseline (used more);
6. then by name.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from typing import Any

from .direct import ApiTests
from .pages import DOCUMENTED, MISSING, UNSUPPORTED, PageState
from .surface import SurfaceApi

#: the states planned unless ``--state`` says otherwise
PLANNED = (MISSING, UNSUPPORTED)
_STATE_ORDER = {UNSUPPORTED: 0, MISSING: 1, DOCUMENTED: 2}

RULE = (
    "planned (missing, or ✘ on a product) first; then with direct tests at the ref; then ✘ before "
    "missing (✘ on more products first); then an API whose module has its own page; then more direct "
    "tests; then more regex baseline lines; then by name"
)


@dataclass(frozen=True)
class PlanRow:
    """One API of the surface: its state on the pages, its tests at the ref, the family that takes it."""

    api: SurfaceApi
    page: PageState
    tests: ApiTests
    planned: bool
    #: the module the API is exported from has a page of its own in the version
    module_page: bool
    rank: int = 0
    family: str | None = None
    #: why ``family`` is None (not computed for this rank, the name did not resolve, ...)
    family_note: str = ""

    @property
    def task(self) -> str:
        """The name a task takes: as the page writes it, else PyTorch's docs name."""
        return self.page.entry or self.api.name

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "api": self.task,
            "planned": self.planned,
            **self.api.to_json(),
            **self.page.to_json(),
            "module_page": self.module_page,
            **self.tests.to_json(),
            "family": self.family,
            "family_note": self.family_note,
        }


def sort_key(row: PlanRow) -> tuple[Any, ...]:
    return (
        not row.planned,
        row.tests.direct == 0,
        _STATE_ORDER.get(row.page.state, 3),
        -len(row.page.unsupported_on),
        not row.module_page,
        -row.tests.direct,
        -(row.tests.regex or 0),
        row.task,
    )


def ranked(rows: Iterable[PlanRow]) -> list[PlanRow]:
    """``rows`` in the rule's order, each with its rank (1 = first)."""
    return [replace(r, rank=i) for i, r in enumerate(sorted(rows, key=sort_key), 1)]


def is_planned(page: PageState, states: Collection[str]) -> bool:
    return page.state in states
