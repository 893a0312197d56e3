"""The task record: what was asked (the API, the PR's fields) and the config facts the texts state.

Written once when a run starts, so a run's texts never depend on the config or
the flags of whoever renders them later.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from ..errors import UsageError
from .base import Record

#: the fields a text states on one line of its own (a title, a link, a branch): a newline or a control
#: character in one would write lines of its own into the PR text
ONE_LINE_FIELDS = (
    "title",
    "task_issue",
    "result_issue",
    "task_title",
    "result_title",
    "source_branch",
    "target_branch",
    "docs_pr",
)

#: newlines, C0/C1 controls, DEL, Unicode line/paragraph separators and bidi controls
_NOT_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def check_one_line(value: str | None, what: str) -> str | None:
    """``value`` when it is one line of text; bad input (exit 2, naming ``what``) otherwise."""
    if value is None:
        return None
    m = _NOT_ONE_LINE.search(value)
    if m is not None:
        raise UsageError(
            f"{what}: {value[: m.start()][-40:]!r} is followed by the control character "
            f"{m.group(0)!r}; give it on one line, without control characters"
        )
    return value


@dataclass(frozen=True)
class Product:
    code: str
    name: str


@dataclass(frozen=True)
class TaskRecord(Record):
    SCHEMA: ClassVar[str] = "torchparity.task/1"
    KIND: ClassVar[str] = "task"

    api: str | None
    #: PR fields: the template's merge-source checkboxes and links
    title: str | None = None
    source_types: tuple[str, ...] = ()
    task_issue: str | None = None
    result_issue: str | None = None
    task_title: str | None = None
    result_title: str | None = None
    source_branch: str | None = None
    target_branch: str | None = None
    interface_change: str | None = None
    upstream_patch: str | None = None
    upstream_note: str | None = None
    #: the documentation PR that adds missing support-page entries (--docs-pr)
    docs_pr: str | None = None
    #: the torchparity that started the run (texts name it, whatever version renders them)
    torchparity_version: str = ""
    #: config facts at the time of the run
    preset: str = ""
    backend_module: str = ""
    active_branches: tuple[str, ...] = ()
    maintenance_branches: tuple[str, ...] = ()
    maintenance_reason: str | None = None
    maintenance_reason_zh: str | None = None
    products: tuple[Product, ...] = ()
    #: whether a repository was used (the embedded default runs files on this machine)
    repo: bool = False
    lang: str = "zh"


def check_fields(rec: TaskRecord, where: str) -> TaskRecord:
    """``rec`` when each of its one-line fields is one line (bad input naming the field otherwise)."""
    for name in ONE_LINE_FIELDS:
        check_one_line(getattr(rec, name), f"{where}{name}")
    return rec


__all__ = ["ONE_LINE_FIELDS", "Product", "TaskRecord", "check_fields", "check_one_line"]
