"""The verify record: the verdict of one task over its targets, and what blocks it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .base import Record


@dataclass(frozen=True)
class TargetVerdict:
    label: str
    result: str  # PASS | FAIL | ERROR | INCOMPLETE


@dataclass(frozen=True)
class VerifyRecord(Record):
    SCHEMA: ClassVar[str] = "torchparity.verify/1"
    KIND: ClassVar[str] = "verify"

    api: str
    canonical: str
    #: the name PyTorch documents (torch.cuda.Event for torch.cuda.streams.Event)
    doc_name: str
    kind: str
    category: str
    result: str  # PASS | FAIL | ERROR | INCOMPLETE
    targets: tuple[TargetVerdict, ...] = ()
    #: what blocks the verdict and what the user should know, as the terminal says them (English);
    #: the reports state their facts from the stages' records, not from these lines
    blockers: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: the stages that ran, in order (resolve, coverage, scaffold, collect, docs, checklist)
    stages: tuple[str, ...] = ()


__all__ = ["TargetVerdict", "VerifyRecord"]
