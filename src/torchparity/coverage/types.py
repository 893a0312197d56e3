"""Types of values, as the type facts spell them: what a call or an attribute of torch gives.

A type string (written by the agent's ``type_facts`` and the static table) is one of::

    torch.Tensor                a class's canonical name (builtins.int for Python's own)
    self                        the receiver's own class (Module.to, set_grad_enabled.clone)
    (A,B)                       a tuple of A and B
    [A]                         a sequence of A (a list, an iterator)
    A|B                         one of several (overloads that differ): nothing is guessed from it
    ?                           unknown

``parse`` turns one into a ``Type`` (memoised); ``TypeFacts`` holds a torch's facts
(static, or read through the agent in the environment under test and cached per torch version).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

SELF = "self"
UNKNOWN = "?"

#: device names a PrivateUse1 backend registers methods under (``Tensor.npu()``), besides the config's
KNOWN_DEVICES = ("npu",)


@dataclass(frozen=True, slots=True)
class Type:
    """A parsed type: ``kind`` c (class ``name``), t (tuple of ``items``), s (sequence of ``items[0]``),
    u (one of ``items``)."""

    kind: str
    name: str = ""
    items: tuple[Type | None, ...] = ()

    def __str__(self) -> str:
        if self.kind == "c":
            return self.name
        inner = [str(i) if i is not None else UNKNOWN for i in self.items]
        if self.kind == "t":
            return f"({','.join(inner)})"
        if self.kind == "s":
            return f"[{inner[0]}]"
        return "|".join(inner)

    @property
    def short(self) -> str:
        """For people: ``Tensor``, ``UntypedStorage``, ``tuple``."""
        if self.kind == "c":
            return self.name.rsplit(".", 1)[-1]
        return {"t": "tuple", "s": "sequence", "u": "one of several"}[self.kind]


def cls(name: str) -> Type:
    return _class(name)


@cache
def _class(name: str) -> Type:
    return Type("c", name)


@cache
def parse(text: str) -> Type | None:
    """A type string -> ``Type`` (None for unknown); ``self`` stays a class named ``self``."""
    text = text.strip()
    if not text or text == UNKNOWN:
        return None
    parts = _split(text, "|")
    if len(parts) > 1:
        items = tuple(dict.fromkeys(parse(p) for p in parts))
        return items[0] if len(items) == 1 else Type("u", items=items)
    if text.startswith("(") and text.endswith(")"):
        inner = text[1:-1]
        return Type("t", items=tuple(parse(p) for p in _split(inner, ",")) if inner else ())
    if text.startswith("[") and text.endswith("]"):
        return Type("s", items=(parse(text[1:-1]),))
    return _class(text)


def _split(text: str, sep: str) -> list[str]:
    out: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


_NONE = Type("c", "builtins.NoneType")


def join(types: list[Type | None]) -> Type | None:
    """The type of a name bound differently on different paths: the known ones must agree
    (None aside: ``x = None`` on one path, a Tensor on the other, is a Tensor where it is used)."""
    known = {t for t in types if t is not None}
    if len(known) > 1:
        known.discard(_NONE)
    return known.pop() if len(known) == 1 else None


@dataclass(frozen=True)
class TypeFacts:
    """What callables and attributes give, for one torch (``source`` says which)."""

    returns: Mapping[str, str] = field(default_factory=dict)
    attributes: Mapping[str, str] = field(default_factory=dict)
    #: class -> what the method a PrivateUse1 backend adds to it returns (``Tensor.npu()``)
    device_methods: Mapping[str, str] = field(default_factory=dict)
    torch_version: str = ""
    source: str = "static"

    def for_devices(self, devices: tuple[str, ...]) -> dict[str, str]:
        """The device methods as returns, one per device name (``torch.Tensor.npu``)."""
        out: dict[str, str] = {}
        for owner, ret in self.device_methods.items():
            if ret == UNKNOWN:
                continue
            for d in devices:
                out.setdefault(f"{owner}.{d}", ret)
        return out

    def merged(self, over: TypeFacts) -> TypeFacts:
        return TypeFacts(
            {**self.returns, **over.returns},
            {**self.attributes, **over.attributes},
            {**self.device_methods, **over.device_methods},
            over.torch_version or self.torch_version,
            f"{self.source}+{over.source}",
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "returns": dict(self.returns),
            "attributes": dict(self.attributes),
            "device_methods": dict(self.device_methods),
            "torch_version": self.torch_version,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any], source: str = "") -> TypeFacts:
        return cls(
            dict(doc.get("returns", {})),
            dict(doc.get("attributes", {})),
            dict(doc.get("device_methods", {})),
            str(doc.get("torch_version", "")),
            source or str(doc.get("source", "environment")),
        )


@cache
def static_types() -> TypeFacts:
    """The type facts shipped with torchparity (``static_types.toml``, generated by ``tablegen``)."""
    from .shipped import shipped_toml

    data = shipped_toml("static_types.toml")
    return TypeFacts(
        dict(data.get("returns", {})),
        dict(data.get("attributes", {})),
        dict(data.get("device_methods", {})),
        str(data.get("torch_version", "")),
        "static",
    )
