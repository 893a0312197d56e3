"""Each cell of the pages (API x version x product): what the evidence proposes, against what the page says.

A cell's evidence is every target bound to it (see ``propose_evidence``). The targets that decide
propose ✔ (all PASS) or ✘ (all FAIL); PASS beside FAIL is left to a person, and so is a cell no
target decides (each non-deciding target says why) or one no target ran on. The proposal is then
held against the page:

``agrees``         the page says what the evidence says
``contradiction``  the page says ✔ and the API's tests fail there, or ✘ and they pass
``new``            the version has no entry for the API: the cell goes into a proposed new entry
``left``           left to a person, with why (no evidence, results differ, emulated, NONE_RAN,
                   the entry has no line for the product, the page's word is no status ...)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from .model import Entry, Page, Products
from .propose_evidence import Evidence

AGREES, CONTRADICTION, NEW, LEFT = "agrees", "contradiction", "new", "left"
STATES = (AGREES, CONTRADICTION, NEW, LEFT)


def mark(supported: bool | None) -> str:
    return "?" if supported is None else "✔" if supported else "✘"


@dataclass(frozen=True)
class PageStatus:
    """What the page says for the cell: its entry (as the page names it), where, and the status."""

    page: str
    line: int
    entry: str
    #: the status as written (支持, ✔, 是 ...), "" when the entry has no line for the product
    raw: str
    #: True / False; None when the word is no status, or there is no line for the product
    supported: bool | None
    has_line: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "line": self.line,
            "entry": self.entry,
            "raw": self.raw if self.has_line else None,
            "supported": self.supported,
        }


@dataclass(frozen=True)
class Cell:
    api: str
    version: str
    product: str
    product_name: str
    evidence: tuple[Evidence, ...]
    #: what the evidence proposes: True (✔), False (✘), None (nothing)
    proposed: bool | None
    #: the page's entry and status for the product; None when the version has no entry for the API
    page: PageStatus | None
    state: str
    why_code: str = ""
    why: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "api": self.api,
            "version": self.version,
            "product": self.product,
            "product_name": self.product_name,
            "proposed": self.proposed,
            "page": self.page.to_json() if self.page is not None else None,
            "state": self.state,
            "why_code": self.why_code or None,
            "why": self.why or None,
            "evidence": [e.to_json() for e in self.evidence],
        }


def _tests(e: Evidence) -> str:
    if e.total:
        return (
            f"{e.passed} of {e.total} passed"
            if e.result == "PASS"
            else f"{e.failed} of {e.total} failed"
        )
    return e.result


def proposal(evidence: Iterable[Evidence], product_name: str) -> tuple[bool | None, str, str]:
    """(proposed, why_code, why) of a cell from its evidence."""
    ev = list(evidence)
    deciding = [e for e in ev if e.decides]
    if not ev:
        return None, "no_evidence", f"the API's tests never ran on {product_name} in the runs read"
    if not deciding:
        codes = list(dict.fromkeys(e.why_code for e in ev))
        why = "; ".join(f"{e.where()}: {e.why}" for e in ev)
        return None, codes[0] if len(codes) == 1 else "not_decided", f"nothing decides it: {why}"
    results = {e.result for e in deciding}
    if len(results) > 1:
        said = "; ".join(f"{e.result} in {e.where()}" for e in deciding)
        return None, "results_differ", f"results differ between runs: {said}"
    return results.pop() == "PASS", "", ""


def page_status(page: Page, rel: str, entry: Entry, code: str) -> PageStatus:
    ps = entry.status(code)
    if ps is None:
        return PageStatus(rel, entry.start, entry.api, "", None, False)
    return PageStatus(rel, ps.line, entry.api, ps.raw or ps.status, ps.supported, True)


def against_page(cell: Cell) -> Cell:
    """``cell`` (its proposal made) with its state and why, held against its page status."""
    page, proposed, name = cell.page, cell.proposed, cell.product_name
    if proposed is None:
        return replace(cell, state=LEFT)
    deciding = [e for e in cell.evidence if e.decides]
    said = "; ".join(f"{e.where()}: {_tests(e)}" for e in deciding)
    if page is None:
        return replace(cell, state=NEW, why=f"no entry in the {cell.version} pages")
    at = f"{page.page}:{page.line}"
    if not page.has_line:
        return replace(
            cell,
            state=LEFT,
            why_code="no_product_line",
            why=(
                f"the entry {page.entry} at {at} has no status for {name} (proposed: {mark(proposed)}); "
                "docs add writes whole entries only: add the line by hand"
            ),
        )
    if page.supported is None:
        return replace(
            cell,
            state=LEFT,
            why_code="page_status_unclear",
            why=f"the page's status {page.raw!r} at {at} is not 支持/不支持 (proposed: {mark(proposed)})",
        )
    written = f"{mark(page.supported)}" + (
        f" ({page.raw})" if page.raw and page.raw != mark(page.supported) else ""
    )
    if page.supported == proposed:
        return replace(cell, state=AGREES, why=f"the page says {written}, as the evidence")
    verb = "fail" if page.supported else "pass"
    return replace(
        cell,
        state=CONTRADICTION,
        why_code="contradiction",
        why=f"the page says {written} at {at}, but the API's tests {verb} on {name} ({said})",
    )


def cells_of(
    api: str,
    version: str,
    evidence: Iterable[Evidence],
    products: Products,
    found: tuple[Page, str, Entry] | None,
) -> list[Cell]:
    """Every product's cell of ``api`` in ``version`` (``found``: its entry, with the page's relative path)."""
    ev = list(evidence)
    out = []
    for p in products:
        mine = tuple(e for e in ev if e.product == p.code)
        proposed, code, why = proposal(mine, p.name)
        status = page_status(found[0], found[1], found[2], p.code) if found is not None else None
        cell = Cell(api, version, p.code, p.name, mine, proposed, status, LEFT, code, why)
        out.append(against_page(cell))
    return out


__all__ = [
    "AGREES",
    "CONTRADICTION",
    "LEFT",
    "NEW",
    "STATES",
    "Cell",
    "PageStatus",
    "against_page",
    "cells_of",
    "mark",
    "proposal",
]
