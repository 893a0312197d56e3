"""Resolve an API name inside the environment under test: the one record ``resolve`` answers with.

Assembled from the parts, each its own module: ``lookup`` (what the name means),
``kinds`` (what the object is), ``exports`` (public by PyTorch's rules, aliases),
``sources`` (file and line, signature) and ``docs_links`` (the upstream page).
"""

from __future__ import annotations

import sys
from typing import Sequence

from ..protocol import Json
from .docs_links import docs_url, pick_docs_name
from .exports import aliases_of, judge
from .kinds import MEMBER_KINDS, is_context_manager, kind_of
from .lookup import locate, roots_for
from .objects import NotFound, canonical_name, holder_name, import_name, qualified_name
from .sources import defining_module, signature_of, source_of


def resolve(name: str, backend_module: str = "") -> Json:
    """The resolution record for one name (raises NotFound)."""
    torch = sys.modules.get("torch") or import_name("torch")
    hit = locate(name, backend_module)
    kind, detail, raw, definer = kind_of(hit)
    canonical = canonical_name(hit)
    roots = roots_for(backend_module)
    aliases = aliases_of(hit, canonical, kind, roots, name)
    public, reason = judge(canonical, kind)
    public_names = set([canonical] if public else [])
    if not public:
        for alias in aliases:
            ok, why = judge(alias, kind)
            if ok:
                public = True
                reason = "defined privately (%s); exported publicly as %s (%s)" % (
                    reason,
                    alias,
                    why,
                )
                break
    for alias in aliases:
        if judge(alias, kind)[0]:
            public_names.add(alias)
    owner = None
    owner_docs = None
    if kind in MEMBER_KINDS or (
        isinstance(hit.parent, type) and kind in ("attribute", "enum-member")
    ):
        owner = holder_name(hit.parent)
        owner_docs = pick_docs_name(
            hit.path.rsplit(".", 1)[0],
            owner,
            [a.rsplit(".", 1)[0] for a in aliases],
            set(n.rsplit(".", 1)[0] for n in public_names),
        )
    version = str(getattr(torch, "__version__", "")) if torch is not None else ""
    docs_name = pick_docs_name(hit.path, canonical, aliases, public_names) if public else None
    defined_in = qualified_name(definer) if definer is not None else None
    return {
        "query": name,
        "path": hit.path,
        "resolved_via": hit.via,
        "canonical": canonical,
        "aliases": aliases,
        "kind": kind,
        "kind_detail": detail,
        "signature": signature_of(hit, kind, raw),
        "module": defining_module(hit, kind, definer),
        "source": source_of(hit, kind, raw),
        "public": bool(public),
        "public_reason": reason,
        "docs_name": docs_name or "",
        "docs_url": docs_url(version, docs_name, kind, owner_docs) if docs_name else "",
        "owner_class": owner,
        "owner_kind": (
            ("context-manager" if is_context_manager(hit.parent) else "class") if owner else None
        ),
        "defined_in": defined_in if defined_in and defined_in != owner else None,
        "torch_version": version,
    }


def unresolved(name: str, exc: NotFound) -> Json:
    """The record of a name that did not resolve (``exc``: the NotFound it raised)."""
    return {
        "status": "ambiguous" if exc.candidates else "unknown",
        "query": name,
        "furthest": exc.furthest,
        "missing": exc.missing,
        "suggestions": exc.suggestions,
        "candidates": exc.candidates,
    }


def resolve_many(names: Sequence[str], backend_module: str = "") -> list[Json]:
    out: list[Json] = []
    for name in names:
        try:
            out.append({"status": "ok", "resolution": resolve(name, backend_module)})
        except NotFound as exc:
            out.append(unresolved(name, exc))
    return out
