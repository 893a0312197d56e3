"""Public or private by PyTorch's rules, and the public spellings (aliases) of an object."""

from __future__ import annotations

import sys
import types
from typing import Any, Sequence

from .objects import Found, loaded_modules, private_segment

MAX_ALIASES = 12


def _module_prefix(path: str) -> tuple[str, str] | tuple[None, None]:
    """(module name, first segment after it) for a dotted path."""
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:i])
        if isinstance(sys.modules.get(name), types.ModuleType):
            return name, parts[i]
    return None, None


def judge(path: str, kind: str | None = None) -> tuple[bool, str]:
    """(public, reason) for one spelling, by PyTorch's rules."""
    seg = private_segment(path)
    if seg is not None:
        return False, "segment %r of %s starts with an underscore" % (seg, path)
    if kind == "module":
        return True, "no segment of %s starts with an underscore" % path
    mod_name, top = _module_prefix(path)
    if mod_name is None:
        return True, "no segment of %s starts with an underscore" % path
    names = getattr(sys.modules[mod_name], "__all__", None)
    if names is None:
        return True, "no segment starts with an underscore and %s defines no __all__" % mod_name
    if top in names:
        return True, "no segment starts with an underscore and %s is in %s.__all__" % (
            top,
            mod_name,
        )
    return False, "%s is not in %s.__all__" % (top, mod_name)


def _exported(mod: types.ModuleType, key: str, obj: Any) -> bool:
    """Whether ``mod.key`` is a spelling PyTorch counts as an export of ``obj``.

    Its rule (test_public_bindings): a module exports what lives under it; an
    ``__all__`` entry living elsewhere counts only when its home is private
    (``torch.Generator`` from ``torch._C``), not a re-export of a public home.
    """
    home = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None)
    if not isinstance(home, str):
        home = None
    if home is not None and (home == mod.__name__ or home.startswith(mod.__name__ + ".")):
        return True
    names = getattr(mod, "__all__", None)
    if names is not None and key in names:
        return home is None or private_segment(home) is not None
    return False


def _spellings(obj: Any, roots: Sequence[str]) -> list[str]:
    """Public ``module.name`` spellings exported for ``obj`` (identity, not equality)."""
    out = []
    for root in roots:
        for name, mod in loaded_modules(root):
            if private_segment(name) is not None:
                continue
            try:
                items = list(vars(mod).items())
            except TypeError:
                continue
            for key, value in items:
                if value is obj and not key.startswith("_") and _exported(mod, key, obj):
                    out.append("%s.%s" % (name, key))
    return out


def aliases_of(
    hit: Found, canonical: str, kind: str, roots: Sequence[str], query: str
) -> list[str]:
    if isinstance(hit.obj, types.ModuleType):
        spellings = []
    elif isinstance(hit.parent, type) and not isinstance(hit.obj, type):
        spellings = ["%s.%s" % (s, hit.attr) for s in _spellings(hit.parent, roots)]
    elif kind == "enum-member":
        spellings = ["%s.%s" % (s, hit.attr) for s in _spellings(hit.parent, roots)]
    elif hit.obj is None or isinstance(hit.obj, (bool, int, str, bytes)):
        spellings = []  # shared by the interpreter: ``torch.version.debug is torch.has_mkl`` is no alias
    else:
        spellings = _spellings(hit.obj, roots)
    if query != canonical and query not in spellings and hit.path == query:
        spellings.append(query)
    seen = {canonical}
    out: list[str] = []
    for s in sorted(spellings, key=lambda s: (private_segment(s) is not None, s.count("."), s)):
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out[:MAX_ALIASES]
