"""The docs stage's records: an API's entry per version page, and the entries added."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .base import Record


@dataclass(frozen=True)
class ProductSupport:
    name: str  # as configured ("Atlas A2 训练系列产品"), else as the page writes it
    status: str  # 支持 / 不支持 / the page's own words
    supported: bool | None  # None: the status word is not understood


@dataclass(frozen=True)
class VersionEntry:
    """One version's answer: present or not, where, with which product statuses."""

    version: str
    folder: str
    present: bool
    page: str | None = None
    line: int | None = None
    kind: str | None = None
    #: product code -> support, in the configured products' order
    products: dict[str, ProductSupport] | None = None
    restrictions: str = ""
    link: str | None = None
    link_ok: bool = False
    link_problem: str = ""
    #: the name the page writes the entry under, when it is another spelling of the API
    found_as: str | None = None


@dataclass(frozen=True)
class DocsCheckRecord(Record):
    SCHEMA: ClassVar[str] = "torchparity.docs-check/2"
    KIND: ClassVar[str] = "docs-check"

    api: str
    docs_dir: str
    versions: tuple[VersionEntry, ...]
    #: where the pages were read when the folder is in a git repository: the folder relative to the
    #: repository, its branch and commit, and whether the folder has changes not committed there
    repo_path: str = ""
    branch: str = ""
    commit: str = ""
    modified: bool | None = None

    @property
    def missing_versions(self) -> list[str]:
        return [v.version for v in self.versions if not v.present]


@dataclass(frozen=True)
class AddedEntry:
    version: str
    folder: str
    page: str
    action: str  # added | present | ...
    api: str
    start: int | None = None
    end: int | None = None
    parent: str | None = None


@dataclass(frozen=True)
class DocsAddRecord(Record):
    SCHEMA: ClassVar[str] = "torchparity.docs-add/2"
    KIND: ClassVar[str] = "docs-add"

    api: str
    docs_dir: str
    changes: tuple[AddedEntry, ...]
    #: the docs PR, when the user states it (--docs-pr)
    pr: str | None = None

    @property
    def added(self) -> list[AddedEntry]:
        return [c for c in self.changes if c.action == "added"]


__all__ = ["AddedEntry", "DocsAddRecord", "DocsCheckRecord", "ProductSupport", "VersionEntry"]
