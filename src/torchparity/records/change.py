"""The change stage's record: the PR's commits and files, read from git once (``--range BASE..HEAD``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .base import Record


@dataclass(frozen=True)
class CommitFact:
    commit: str
    title: str | None = None
    ref: str | None = None


@dataclass(frozen=True)
class FileCheck:
    """One convention check of a changed file (copyright header, docstring naming the API)."""

    status: str  # pass | fail | n.a.
    reason: str
    reason_zh: str


@dataclass(frozen=True)
class FileFact:
    path: str
    status: str | None  # A | M | D | ... (None: not from git)
    sha256: str | None
    copyright: FileCheck | None = None
    docstring: FileCheck | None = None


@dataclass(frozen=True)
class ChangeRecord(Record):
    """``source`` says where the facts come from: ``git`` (a range was read) or ``runs`` (the files
    the targets ran, no range given)."""

    SCHEMA: ClassVar[str] = "torchparity.change/1"
    KIND: ClassVar[str] = "change"

    source: str  # git | runs
    repo: str | None = None
    range: str | None = None
    base: str | None = None
    head: str | None = None
    head_title: str | None = None
    source_branch: str | None = None
    commits: tuple[CommitFact, ...] = ()
    files: tuple[FileFact, ...] = ()
    #: every changed file is under the test roots or the docs root (None: not from git)
    only_tests: bool | None = None
    #: changed files outside the test and docs roots
    other_files: tuple[str, ...] = ()
    #: changed files under a vendored upstream test folder (test_upstream/)
    upstream_files: tuple[str, ...] = ()


__all__ = ["ChangeRecord", "CommitFact", "FileCheck", "FileFact"]
