"""What every record shares: a schema name with a version, and a lossless JSON form.

A record is a frozen dataclass whose fields are JSON-able (str, int, float, bool,
None, tuples, dicts with str keys, other records). ``to_json`` and ``from_json``
are generic (msgspec walks the type hints), so the JSON shape *is* the field
structure and ``from_json(to_json(r)) == r`` holds for every record by
construction; the tests check it for each kind.

The store keeps records in an envelope that names the schema, the run and the
task they belong to::

    {"schema": "torchparity.coverage/2", "run": "<run uid>", "task": "torch.add", "body": {...}}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

import msgspec

R = TypeVar("R", bound="Record")


class RecordError(ValueError):
    """A JSON document that is not the record it claims to be (wrong schema, wrong types)."""


class Record:
    """Mixin for frozen dataclasses that cross a boundary between parts.

    Subclasses set ``SCHEMA`` (``torchparity.<kind>/<version>``) and ``KIND`` (the store's
    record kind); the version goes up whenever a field changes meaning or shape.
    """

    SCHEMA: ClassVar[str] = ""
    KIND: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        doc = msgspec.to_builtins(self)
        assert isinstance(doc, dict)
        return doc

    @classmethod
    def from_json(cls: type[R], doc: Mapping[str, Any]) -> R:
        try:
            return msgspec.convert(dict(doc), type=cls)
        except (msgspec.ValidationError, TypeError) as exc:
            raise RecordError(f"not a {cls.SCHEMA or cls.__name__} record: {exc}") from None

    def replace(self: R, **changes: Any) -> R:
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


def envelope(record: Record, run: str = "", task: str = "") -> dict[str, Any]:
    """The stored form: the body with the schema, run and task it belongs to."""
    return {"schema": record.SCHEMA, "run": run, "task": task, "body": record.to_json()}


def open_envelope(doc: Mapping[str, Any], cls: type[R]) -> R:
    """The record inside a stored envelope; a schema other than ``cls``'s is refused."""
    schema = doc.get("schema") if isinstance(doc, Mapping) else None
    if schema != cls.SCHEMA:
        raise RecordError(
            f"expected a {cls.SCHEMA} record, found {schema or 'a document without a schema'}"
            " (made by another torchparity version? re-run the stage)"
        )
    body = doc.get("body")
    if not isinstance(body, Mapping):
        raise RecordError(f"{cls.SCHEMA} record without a body")
    return cls.from_json(body)


__all__ = ["Record", "RecordError", "envelope", "open_envelope"]
