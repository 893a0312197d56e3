"""Choices as enums, so ``--help`` lists them and Typer refuses anything else (exit 2)."""

from __future__ import annotations

from enum import Enum


class Kind(str, Enum):
    """A report kind (``report --kind``)."""

    pr = "pr"
    comment = "comment"
    json = "json"
    junit = "junit"
    markdown_summary = "markdown-summary"


class SourceType(str, Enum):
    """A merge-source checkbox of the PR template (``--source-type``)."""

    requirement = "requirement"
    bug = "bug"
    issue = "issue"
    refactor = "refactor"
    docs = "docs"


class EntryKind(str, Enum):
    """How a new docs entry is written (``docs add --kind``)."""

    auto = "auto"
    function = "function"
    sub_method = "sub-method"


class Lang(str, Enum):
    """The language of a text (zh is the community's)."""

    zh = "zh"
    en = "en"
