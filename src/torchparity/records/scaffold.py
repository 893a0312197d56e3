"""The scaffold stage's record: the test written for the API, where, and what it still needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .base import Record


@dataclass(frozen=True)
class ScaffoldRecord(Record):
    SCHEMA: ClassVar[str] = "torchparity.scaffold/2"
    KIND: ClassVar[str] = "scaffold"

    api: str
    family: str
    #: where the file goes: repo-relative with a repo, else the work folder's file
    path: str
    content: str
    methods: tuple[str, ...]
    created: bool
    class_name: str
    device_type: str
    torch_version: str
    spelling: str
    summary: str
    #: why some tests fail on purpose (what to fill in); empty when every test is complete
    fill_in: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: the refs the file was written for (``local`` without a repo)
    refs: tuple[str, ...] = ()
    #: True when the file is not part of a repository (the embedded default's work folder)
    outside_repo: bool = False

    @property
    def complete(self) -> bool:
        return not self.fill_in


__all__ = ["ScaffoldRecord"]
