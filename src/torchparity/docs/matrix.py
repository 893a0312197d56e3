"""Every API x version x product status under a native_api folder, as JSON, CSV rows or a compact grid."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model import Products
from .tree import DocsTree


@dataclass(frozen=True)
class Cell:
    """One API in one version."""

    page: str
    line: int
    kind: str
    #: product code -> (status, supported)
    statuses: dict[str, tuple[str, bool | None]]
    restrictions: str = ""


@dataclass(frozen=True)
class Matrix:
    docs_dir: str
    versions: tuple[str, ...]
    #: the columns: the configured product codes in order (with none configured: the codes the pages use)
    products: tuple[str, ...]
    names: dict[str, str]
    #: APIs in the order they first appear (oldest version first, page by page)
    apis: tuple[str, ...]
    kinds: dict[str, str]
    cells: dict[tuple[str, str], Cell]
    #: products the pages name that are not configured (as written) -> every ``page:line`` naming one;
    #: their statuses are left out of the cells (``docs lint`` reports them as ``product-unknown``)
    unknown: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def cell(self, api: str, version: str) -> Cell | None:
        return self.cells.get((api, version))

    def missing(self, version: str) -> list[str]:
        return [a for a in self.apis if (a, version) not in self.cells]

    def to_json(self) -> dict[str, Any]:
        apis = []
        for api in self.apis:
            per: dict[str, Any] = {}
            for v in self.versions:
                c = self.cells.get((api, v))
                per[v] = (
                    None
                    if c is None
                    else {
                        "page": c.page,
                        "line": c.line,
                        "kind": c.kind,
                        "products": {
                            code: {"status": s, "supported": ok}
                            for code, (s, ok) in c.statuses.items()
                        },
                        "restrictions": c.restrictions,
                    }
                )
            apis.append({"api": api, "kind": self.kinds[api], "versions": per})
        return {
            "docs_dir": self.docs_dir,
            "versions": list(self.versions),
            "products": [{"code": c, "name": self.names.get(c, c)} for c in self.products],
            "apis": apis,
            "unknown_products": [
                {"product": name, "places": list(places)} for name, places in self.unknown.items()
            ],
        }

    def rows(self) -> Iterable[list[str]]:
        """Long rows: api, kind, version, product, status, supported, present, page, line."""
        yield [
            "api",
            "kind",
            "version",
            "product",
            "status",
            "supported",
            "present",
            "page",
            "line",
        ]
        for api in self.apis:
            for v in self.versions:
                c = self.cells.get((api, v))
                for code in self.products:
                    if c is None:
                        yield [api, self.kinds[api], v, code, "", "", "false", "", ""]
                        continue
                    status, ok = c.statuses.get(code, ("", None))
                    shown = "" if ok is None else str(ok).lower()
                    yield [api, c.kind, v, code, status, shown, "true", c.page, str(c.line)]

    def to_csv(self) -> str:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(self.rows())
        return buf.getvalue()


def build_matrix(
    docs_dir: str | Path | None = None,
    versions: Iterable[str] | None = None,
    products: Iterable[Any] = (),
    root_hint: str = "",
    tree: DocsTree | None = None,
) -> Matrix:
    if tree is None:
        if docs_dir is None:
            raise ValueError("build_matrix needs docs_dir or tree")
        tree = DocsTree(docs_dir, products, root_hint)
    prods: Products = tree.products
    picked = tree.pick_versions(versions)
    codes = list(prods.codes)
    names = {p.code: p.name for p in prods}
    apis: dict[str, str] = {}
    cells: dict[tuple[str, str], Cell] = {}
    unknown: dict[str, list[str]] = {}
    for v in picked:
        for page in tree.pages(v):
            rel = tree.rel(page)
            for e in page.entries:
                apis.setdefault(e.api, e.kind)
                if (e.api, v) in cells:
                    continue
                statuses: dict[str, tuple[str, bool | None]] = {}
                for p in e.products:
                    if prods and not p.known:
                        unknown.setdefault(p.code, []).append(f"{rel}:{p.line}")
                        continue
                    statuses.setdefault(p.code, (p.status, p.supported))
                    if p.code not in codes:  # only with no product configured: the pages' own codes
                        codes.append(p.code)
                        names.setdefault(p.code, p.name)
                cells[(e.api, v)] = Cell(rel, e.start, e.kind, statuses, e.restrictions)
    return Matrix(
        str(tree.root),
        tuple(picked),
        tuple(codes),
        names,
        tuple(apis),
        apis,
        cells,
        {name: tuple(places) for name, places in unknown.items()},
    )
