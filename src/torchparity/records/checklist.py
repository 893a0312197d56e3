"""The checklist stage's record: each item pass / fail / n.a. with its reason in both languages."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from .base import Record, RecordError

PASS, FAIL, NA = "pass", "fail", "n.a."


@dataclass(frozen=True)
class ChecklistItem:
    id: str
    title_zh: str
    title_en: str
    status: str  # pass | fail | n.a.
    reason: str  # English
    reason_zh: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Checklist(Record):
    """The evaluated checklist; ``counts`` and ``passed`` in the JSON are derived, not read back."""

    SCHEMA: ClassVar[str] = "torchparity.checklist/2"
    KIND: ClassVar[str] = "checklist"

    items: tuple[ChecklistItem, ...]
    api: str | None = None
    repo: str | None = None
    range: str | None = None
    files: tuple[str, ...] = ()
    head: str | None = None

    @property
    def failed(self) -> list[ChecklistItem]:
        return [i for i in self.items if i.status == FAIL]

    @property
    def passed(self) -> bool:
        return not self.failed

    @property
    def counts(self) -> dict[str, int]:
        return {s: sum(1 for i in self.items if i.status == s) for s in (PASS, FAIL, NA)}

    def item(self, item_id: str) -> ChecklistItem:
        for i in self.items:
            if i.id == item_id:
                return i
        raise KeyError(item_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "items": [i.to_json() for i in self.items],
            "api": self.api,
            "repo": self.repo,
            "range": self.range,
            "head": self.head,
            "files": list(self.files),
            "counts": self.counts,
            "passed": self.passed,
        }

    @classmethod
    def from_json(cls, doc: Any) -> Checklist:
        if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
            raise RecordError("not a checklist record: no list of items")
        items = tuple(
            ChecklistItem(
                id=str(d["id"]),
                title_zh=str(d.get("title_zh", "")),
                title_en=str(d.get("title_en", "")),
                status=str(d.get("status", NA)),
                reason=str(d.get("reason", "")),
                reason_zh=str(d.get("reason_zh") or ""),
            )
            for d in doc.get("items", []) or []
        )
        return cls(
            items,
            api=doc.get("api"),
            repo=doc.get("repo"),
            range=doc.get("range"),
            files=tuple(doc.get("files") or ()),
            head=doc.get("head"),
        )


ChecklistRecord = Checklist

__all__ = ["FAIL", "NA", "PASS", "Checklist", "ChecklistItem", "ChecklistRecord"]
