"""The task record: what was asked (the API, the PR's fields) and the config facts the texts state.

Written once when a run starts, so a run's texts never depend on the config or
the flags of whoever renders them later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .base import Record


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
    products: tuple[Product, ...] = ()
    #: whether a repository was used (the embedded default runs files on this machine)
    repo: bool = False
    lang: str = "zh"


__all__ = ["Product", "TaskRecord"]
