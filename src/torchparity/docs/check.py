"""Check that an API has an entry in each version's pages: where, which statuses, whether its link fits."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..records.docs import DocsCheckRecord, ProductSupport, VersionEntry
from .model import Entry, Page, Products, ProductStatus
from .tree import DocsTree
from .versions import folder_name, link_problem

#: the example a bad API name is answered with
API_EXAMPLE = "torch.autograd.grad_mode.set_grad_enabled.clone"


def api_name_problem(name: str) -> str:
    """Why ``name`` is not an API name the pages could list ("" when it is): a fully qualified, dotted
    Python name (two or more identifiers joined by dots, nothing around them)."""
    parts = name.split(".")
    if len(parts) >= 2 and all(p.isidentifier() for p in parts):
        return ""
    return (
        f"API name {name!r} is not a dotted Python name; write the fully qualified name, "
        f"like {API_EXAMPLE}"
    )


@dataclass(frozen=True)
class VersionCheck:
    """One version's answer for one API."""

    version: str
    folder: str
    present: bool
    page: str | None = None
    line: int | None = None
    kind: str | None = None
    format: str | None = None
    products: tuple[ProductStatus, ...] = ()
    restrictions: str = ""
    link: str | None = None
    link_ok: bool = False
    link_problem: str = ""
    #: for a missing entry: where its parent or closest relative is, to add it next to
    hint: str = ""
    #: the name the page writes the entry under, when it is another spelling of the API
    found_as: str | None = None
    #: the spelling ``hint`` is about (the name to add next to that relative)
    hint_api: str = ""

    def to_json(self, products: Products | None = None) -> dict[str, Any]:
        prods: dict[str, Any] = {}
        for p in self.products:
            known = products.by_code(p.code) if products else None
            prods[p.code] = {
                "name": known.name if known is not None else p.name,
                "status": p.status,
                "supported": p.supported,
            }
        return {
            "version": self.version,
            "folder": self.folder,
            "present": self.present,
            "page": self.page,
            "line": self.line,
            "kind": self.kind,
            "products": prods,
            "restrictions": self.restrictions,
            "link": self.link,
            "link_ok": self.link_ok,
            "link_problem": self.link_problem,
            "found_as": self.found_as,
        }


@dataclass(frozen=True)
class CheckResult:
    """Every requested version's answer for one API (``to_json`` is the stored record)."""

    api: str
    docs_dir: str
    versions: tuple[VersionCheck, ...]
    products: Products | None = None

    @property
    def missing_versions(self) -> list[str]:
        return [v.version for v in self.versions if not v.present]

    @property
    def ok(self) -> bool:
        return not self.missing_versions

    def to_json(self) -> dict[str, Any]:
        return {
            "api": self.api,
            "docs_dir": self.docs_dir,
            "versions": [v.to_json(self.products) for v in self.versions],
            "missing_versions": self.missing_versions,
        }

    def to_record(self) -> DocsCheckRecord:
        """The docs stage's record of this check (product names as configured)."""
        versions = []
        for v in self.versions:
            d = v.to_json(self.products)
            versions.append(
                VersionEntry(
                    version=v.version,
                    folder=v.folder,
                    present=v.present,
                    page=v.page,
                    line=v.line,
                    kind=v.kind,
                    products={
                        c: ProductSupport(p["name"], p["status"], p["supported"])
                        for c, p in d["products"].items()
                    },
                    restrictions=v.restrictions,
                    link=v.link,
                    link_ok=v.link_ok,
                    link_problem=v.link_problem,
                    found_as=v.found_as,
                )
            )
        return DocsCheckRecord(api=self.api, docs_dir=self.docs_dir, versions=tuple(versions))


def _hint(tree: DocsTree, api: str, version: str) -> str:
    """Where the closest enclosing API has an entry in this version (for ``docs add``)."""
    parts = api.split(".")
    for k in range(len(parts) - 1, 0, -1):
        found = tree.find(".".join(parts[:k]), version)
        if found is not None:
            page, entry = found
            return f"{entry.api} is at {tree.rel(page)}:{entry.start}"
    return ""


def _present(tree: DocsTree, version: str, page: Page, entry: Entry, api: str) -> VersionCheck:
    problem = link_problem(entry.link, entry.api, version, entry.kind)
    return VersionCheck(
        version=version,
        folder=folder_name(version),
        present=True,
        page=tree.rel(page),
        line=entry.start,
        kind=entry.kind,
        format=entry.format,
        products=entry.products,
        restrictions=entry.restrictions,
        link=entry.link,
        link_ok=not problem,
        link_problem=problem,
        found_as=entry.api if entry.api != api else None,
    )


def check_in_tree(
    tree: DocsTree, api: str, versions: Iterable[str] | None = None, spellings: Iterable[str] = ()
) -> CheckResult:
    """``check_api`` over an already opened tree (pages are parsed once for many APIs)."""
    names = list(dict.fromkeys([api, *(s for s in spellings if s)]))
    out = []
    for version in tree.pick_versions(versions):
        found = next((hit for name in names if (hit := tree.find(name, version)) is not None), None)
        if found is not None:
            out.append(_present(tree, version, *found, api))
            continue
        hint, hint_api = "", api
        for name in names:
            hint = _hint(tree, name, version)
            if hint:
                hint_api = name
                break
        out.append(
            VersionCheck(
                version=version,
                folder=folder_name(version),
                present=False,
                hint=hint,
                hint_api=hint_api,
            )
        )
    return CheckResult(
        api=api, docs_dir=str(tree.root.resolve()), versions=tuple(out), products=tree.products
    )


def check_api(
    api: str,
    docs_dir: str | Path,
    versions: Iterable[str] | None = None,
    products: Iterable[Any] = (),
    root_hint: str = "",
    spellings: Iterable[str] = (),
) -> CheckResult:
    """Whether ``api`` has an entry in each version under ``docs_dir`` (all versions found if None).

    ``products`` are the configured products (objects with code, name, aliases);
    ``root_hint`` lets ``docs_dir`` be a backend repository (e.g. ``docs/zh/api/native_api``);
    ``spellings`` are other names of the same API (its canonical name, aliases): a page
    that writes the entry under one of them has it (``found_as`` says which). A version
    asked for without its folder is a ``UsageError``.
    """
    return check_in_tree(DocsTree(docs_dir, products, root_hint), api, versions, spellings)
