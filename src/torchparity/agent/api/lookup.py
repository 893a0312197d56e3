"""Find what a name as written means: qualified, short (``Optimizer.zero_grad``) or moved.

Everything is looked up by name at call time (``importlib`` and ``getattr``),
never from a table of one torch version's paths, so a name whose module moved
is still found: a fully qualified name that stops resolving part-way is
retried as a short form under the module it reached. Short forms are searched
in every loaded module of the torch package (and the backend's); one distinct
object maps, several are listed.
"""

from __future__ import annotations

import difflib
import re
import sys
import types
from typing import Any, Sequence

from .objects import (
    Found,
    NotFound,
    canonical_name,
    import_name,
    loaded_modules,
    private_segment,
    suggest,
    try_walk,
    walk,
)


def roots_for(backend_module: str) -> list[str]:
    roots = ["torch"]
    if backend_module and backend_module not in roots:
        roots.append(backend_module)
    return roots


def _identity(obj: Any) -> int | None:
    """The key that makes two hits one object, or None where identity is a cache's accident.

    ``None``, bools, ints and strings are shared by the interpreter (``LEVEL = 1`` in
    two modules is the same int), so only their names can tell them apart.
    """
    if obj is None or isinstance(obj, (bool, int, str, bytes)):
        return None
    return id(obj)


def _spelling_rank(path: str) -> tuple[bool, int, int, str]:
    """Public spellings first, then the shortest."""
    return (private_segment(path) is not None, path.count("."), len(path), path)


def _search(tail: str, prefixes: Sequence[str]) -> dict[str, Found]:
    """Every loaded module under ``prefixes`` holding ``tail`` -> {canonical: Found}.

    Hits are one candidate when they have one canonical name or are one object
    (``torch.inf`` and the ``inf`` that a dozen modules import from ``math``);
    the candidate keeps its public, shortest spelling.
    """
    parts = tail.split(".")
    found: dict[str, Found] = {}
    keys: dict[int, str] = {}  # identity -> canonical key of the candidate holding that object
    for prefix in prefixes:
        for name, mod in loaded_modules(prefix):
            try:
                holder = vars(mod)
            except TypeError:
                continue
            if parts[0] not in holder:
                continue
            hit = try_walk("%s.%s" % (name, tail))
            if hit is None:
                continue
            ident = _identity(hit.obj)
            key = keys.get(ident) if ident is not None else None
            if key is None:
                key = canonical_name(hit)
            if key not in found:
                found[key] = hit
            elif _spelling_rank(hit.path) < _spelling_rank(found[key].path):
                found[key] = hit
            if ident is not None:
                keys.setdefault(ident, key)
    return found


def _pick(found: dict[str, Found]) -> dict[str, Found]:
    """Prefer candidates reached through a public spelling; returns the candidates left."""
    public = dict((k, v) for k, v in found.items() if private_segment(v.path) is None)
    return public or found


def locate(name: str, backend_module: str = "") -> Found:
    """Find ``name`` (qualified, short or moved); returns Found or raises NotFound."""
    name = re.sub(
        r"\(\)$", "", name.strip().strip("`")
    )  # ``torch.Tensor.add_()`` as written in prose
    parts = [p for p in name.split(".") if p]
    if not parts:
        raise NotFound(name, "", name, [])
    name = ".".join(parts)
    roots = roots_for(backend_module)
    if parts[0] in roots or isinstance(sys.modules.get(parts[0]), types.ModuleType):
        try:
            return walk(name)
        except NotFound as exc:
            hit = _shadowed(name, exc)
            return hit if hit is not None else _moved(name, exc, roots)
    candidates = _pick(_search(name, roots))
    if len(candidates) == 1:
        hit = list(candidates.values())[0]
        hit.via = "short form found as %s" % hit.path
        return hit
    if candidates:  # listed by the spelling they were found under (public first)
        raise NotFound(name, "", parts[0], [], sorted(hit.path for hit in candidates.values()))
    for root in roots:  # a submodule not loaded yet: ``distributions.Normal``
        hit = try_walk("%s.%s" % (root, name))
        if hit is not None:
            hit.via = "short form of %s.%s" % (root, name)
            return hit
    furthest, missing, suggestions = (
        roots[0],
        parts[0],
        suggest(import_name(roots[0]), roots[0], parts[0]),
    )
    for root in roots:  # the deepest spot any root reaches
        try:
            walk("%s.%s" % (root, name))
        except NotFound as exc:
            if exc.furthest.count(".") > furthest.count("."):
                furthest, missing, suggestions = exc.furthest, exc.missing, exc.suggestions
    raise NotFound(name, furthest, missing, suggestions)


def _shadowed(name: str, exc: NotFound) -> Found | None:
    """A module its parent hides behind an object of the same name: ``torch.autograd.gradcheck`` is the
    function, and the module ``torch.autograd.gradcheck`` holds ``gradcheck.gradcheck``. Found where the
    name reaches the hiding object itself, spelled by the path that reaches it (a path through the hidden
    module cannot be written in a test), or where it reaches an object the parent exports under the same
    last name (``gradcheck.gradgradcheck`` is ``torch.autograd.gradgradcheck``); None otherwise."""
    mod = sys.modules.get(exc.furthest)
    if not isinstance(mod, types.ModuleType) or not name.startswith(exc.furthest + "."):
        return None
    hiding = try_walk(exc.furthest)
    if hiding is None or hiding.obj is mod:
        return None
    obj = mod
    for part in name[len(exc.furthest) + 1 :].split("."):
        try:
            obj = getattr(obj, part)
        except Exception:
            return None
    if obj is not hiding.obj:  # a sibling the parent exports too (``torch.autograd.gradgradcheck``)
        parent, leaf = exc.furthest.rsplit(".", 1)[0], name.rsplit(".", 1)[-1]
        alt = try_walk("%s.%s" % (parent, leaf)) if "." in exc.furthest else None
        if alt is None or alt.obj is not obj:
            return None
        alt.via = "%s is hidden by the object of its name; %s is %s" % (
            exc.furthest,
            name,
            alt.path,
        )
        return alt
    hiding.via = "%s is hidden by the object of its name, which is %s" % (exc.furthest, name)
    return hiding


#: a missing segment this close to a name that exists is a typo, never a moved module
TYPO_CUTOFF = 0.8


def _looks_like_typo(exc: NotFound) -> bool:
    """Whether the segment that failed is a misspelling of a name its scope has."""
    if not exc.furthest or not exc.missing:
        return False
    short = [s.rsplit(".", 1)[-1] for s in exc.suggestions]
    return bool(difflib.get_close_matches(exc.missing, short, n=1, cutoff=TYPO_CUTOFF))


def _moved(name: str, exc: NotFound, roots: Sequence[str]) -> Found:
    """A qualified name that stopped resolving: look for its tail where the module moved.

    Not when the failing segment is a near-miss of an existing name
    (``torch.set_grad_enabld.clone``): that is a typo, answered with suggestions.
    """
    if _looks_like_typo(exc):
        raise exc
    parts = name.split(".")
    depth = exc.furthest.count(".") + 1 if exc.furthest else 0
    scopes = [exc.furthest] if exc.furthest else []
    scopes += [r for r in roots if r not in scopes]
    for start in range(depth, len(parts)):
        tail = ".".join(parts[start:])
        for scope in scopes:
            if scope in roots and scope != exc.furthest and start == len(parts) - 1:
                continue  # a bare leaf anywhere in torch is too loose to call "moved"
            candidates = _pick(_search(tail, [scope]))
            if len(candidates) == 1:
                hit = list(candidates.values())[0]
                hit.via = "%s not found; moved here: found as %s" % (name, hit.path)
                return hit
    raise exc
