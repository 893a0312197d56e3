"""Typed reads of JSON documents: a wrong type is a ``ShapeError`` naming where, never a KeyError later."""

from __future__ import annotations

from typing import Any

from .blobs import is_sha256


class ShapeError(ValueError):
    """A JSON document does not have the shape its reader expects (the message says where)."""


def obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ShapeError(f"{where} must be an object, not {_kind(value)}")
    return value


def text(d: dict[str, Any], key: str, where: str, *, optional: bool = False) -> Any:
    value = _get(d, key, where, optional)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ShapeError(f"{where}.{key} must be text, not {_kind(value)}")
    return value


def integer(d: dict[str, Any], key: str, where: str) -> int:
    value = _get(d, key, where, False)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ShapeError(f"{where}.{key} must be a whole number, not {_kind(value)}")
    return value


def number(d: dict[str, Any], key: str, where: str, *, optional: bool = False) -> Any:
    value = _get(d, key, where, optional)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ShapeError(f"{where}.{key} must be a number, not {_kind(value)}")
    return float(value)


def texts(d: dict[str, Any], key: str, where: str) -> list[str]:
    value = _get(d, key, where, False)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ShapeError(f"{where}.{key} must be a list of text, not {_kind(value)}")
    return list(value)


def objects(d: dict[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    value = _get(d, key, where, False)
    if not isinstance(value, list):
        raise ShapeError(f"{where}.{key} must be a list, not {_kind(value)}")
    return [obj(v, f"{where}.{key}[{i}]") for i, v in enumerate(value)]


def sha(d: dict[str, Any], key: str, where: str) -> str:
    value = text(d, key, where)
    if not is_sha256(value):
        raise ShapeError(
            f"{where}.{key} must be a SHA-256 (64 lowercase hex digits), not {value[:80]!r}"
        )
    return str(value)


def _get(d: dict[str, Any], key: str, where: str, optional: bool) -> Any:
    if key not in d:
        if optional:
            return None
        raise ShapeError(f"{where}.{key} is missing")
    return d[key]


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "true/false",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)
