"""The upstream docs URL of a name for the installed torch version."""

from __future__ import annotations

import re
from typing import Collection, Sequence

from .kinds import MEMBER_KINDS

DOCS_ROOT = "https://pytorch.org/docs"

#: classes whose members each get their own generated docs page (others share the class page)
OWN_PAGE_CLASSES = ("torch.Tensor", "torch.optim.Optimizer")


def docs_version(version: str) -> str:
    """``2.13`` for a release (``2.13.0+cpu``); ``main`` for a nightly or source build."""
    base = version.split("+")[0]
    if re.search(r"(a|b|rc|dev)\d*", base.split(".")[-1]) or "git" in version:
        return "main"
    m = re.match(r"(\d+)\.(\d+)", base)
    return "%s.%s" % (m.group(1), m.group(2)) if m else "stable"


def pick_docs_name(
    query_path: str | None,
    canonical: str | None,
    aliases: Sequence[str],
    public_names: Collection[str],
) -> str | None:
    if query_path in public_names:
        return query_path
    cands = [n for n in (canonical, *aliases) if n is not None and n in public_names]
    if not cands:
        return None
    return sorted(cands, key=lambda n: (n.count("."), len(n), n))[0]


def docs_url(version: str, name: str | None, kind: str, owner_docs: str | None) -> str:
    base = "%s/%s" % (DOCS_ROOT, docs_version(version))
    if name is None:
        return ""
    if kind == "module":
        page = name[len("torch.") :] if name.startswith("torch.") else name
        return "%s/%s.html" % (base, page)
    if kind == "storage-class":
        return "%s/storage.html#%s" % (base, name)
    if owner_docs and (kind in MEMBER_KINDS or kind in ("attribute", "enum-member")):
        if owner_docs in OWN_PAGE_CLASSES and kind in MEMBER_KINDS + ("attribute",):
            return "%s/generated/%s.html" % (base, name)
        return "%s/generated/%s.html#%s" % (base, owner_docs, name)
    if kind == "attribute":
        holder = name.rsplit(".", 1)[0]
        page = holder[len("torch.") :] if holder.startswith("torch.") else holder
        return "%s/%s.html#%s" % (base, page, name)
    return "%s/generated/%s.html" % (base, name)
