"""The public surface of the environment's torch, as the agent's ``surface`` job answers it.

The agent computes it in the environment under test by PyTorch's own rules (``agent/api/surface.py``);
this module turns the answer into frozen records. A ``SurfaceApi`` also reads as resolve's answer
for its names (query, canonical, aliases, kind, owner class, the names a page may list it under),
so coverage's alias table takes it as it takes resolve's (``coverage.spellings.assemble``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..api import AgentSession

#: seconds for the surface job (it imports every public module of torch)
SURFACE_TIMEOUT = 900.0


@dataclass(frozen=True)
class SurfaceApi:
    """One public API: PyTorch's docs name, resolve's canonical name, its other public spellings."""

    name: str
    canonical: str
    spellings: tuple[str, ...]
    kind: str
    #: the public module it is exported from (its class's, for a member)
    module: str
    #: the class it is a member of (docs name), None for a module-level name
    owner: str | None = None
    #: a member's names through other classes that reach the same object (``torch.FloatTensor.add``
    #: of ``torch.Tensor.add``): names a page may use, not spellings of its class
    also: tuple[str, ...] = ()

    # -- read as resolve's answer (coverage.environment.ResolutionLike, spellings.docs_names) --
    @property
    def query(self) -> str:
        return self.name

    @property
    def path(self) -> str:
        return self.name

    @property
    def aliases(self) -> tuple[str, ...]:
        return self.spellings

    @property
    def owner_class(self) -> str | None:
        return self.canonical.rsplit(".", 1)[0] if self.owner else None

    def doc_names(self) -> tuple[str, ...]:
        """Every name a page may list it under, PyTorch's docs name first."""
        return tuple(dict.fromkeys((self.name, *self.spellings, self.canonical, *self.also)))

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "canonical": self.canonical,
            "spellings": list(self.spellings),
            "kind": self.kind,
            "module": self.module,
            "owner": self.owner,
            "also": list(self.also),
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> SurfaceApi:
        return cls(
            name=str(doc["name"]),
            canonical=str(doc.get("canonical") or doc["name"]),
            spellings=tuple(str(s) for s in doc.get("spellings") or ()),
            kind=str(doc.get("kind", "")),
            module=str(doc.get("module") or str(doc["name"]).rsplit(".", 1)[0]),
            owner=doc.get("owner") or None,
            also=tuple(str(s) for s in doc.get("also") or ()),
        )


@dataclass(frozen=True)
class Surface:
    """What the agent found: the APIs, the modules it walked and those it could not import, and the
    API each name it was asked about reaches (its name; "" no public API; None nothing here)."""

    apis: tuple[SurfaceApi, ...]
    modules: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]
    roots: tuple[str, ...]
    torch_version: str
    python: str
    seconds: float = 0.0
    reaches: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def from_answer(cls, answer: dict[str, Any]) -> Surface:
        return cls(
            apis=tuple(SurfaceApi.from_json(e) for e in answer.get("entries") or ()),
            modules=tuple(str(m) for m in answer.get("modules") or ()),
            failed=tuple((str(m), str(why)) for m, why in answer.get("failed_modules") or ()),
            roots=tuple(str(r) for r in answer.get("roots") or ("torch",)),
            torch_version=str(answer.get("torch_version", "")),
            python=str(answer.get("python", "")),
            seconds=float(answer.get("seconds") or 0.0),
            reaches={
                str(k): (None if v is None else str(v))
                for k, v in (answer.get("names") or {}).items()
            },
        )


def read_surface(
    session: AgentSession, roots: Sequence[str] = ("torch",), names: Sequence[str] = ()
) -> Surface:
    """The public surface under ``roots`` of the interpreter ``session`` talks to, and the API each of
    ``names`` (the names a page lists) reaches there."""
    args = {"roots": list(roots), "names": list(names)}
    return Surface.from_answer(session.call("surface", args, SURFACE_TIMEOUT))
