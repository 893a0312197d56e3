"""The public surface of the environment's torch, by PyTorch's own rules (the ``surface`` job).

The rules are those of PyTorch's ``test/test_public_bindings.py``:

* a module is public when no segment of its name starts with ``_``: every public module under the
  roots is imported (``pkgutil``), and no private package is entered;
* a public module's public names are its ``__all__``; in a module without one every name that does
  not start with ``_`` is public, of the callables and classes the test looks at: those of torch
  (what a module imports from the standard library or elsewhere is that package's), and the
  properties of a module object of its own class (``torch.backends.cudnn.allow_tf32``);
* a public class's public members are the names that do not start with ``_`` that a class of torch
  defines (what ``object``, ``tuple`` or ``enum.Enum`` give every class is theirs): methods,
  properties, classmethods, staticmethods and attributes (resolve's kinds), not enum members, nor
  classes a class only refers to (nor what CPython gives every struct sequence: ``n_fields``).

One API per object, as resolve's aliases are found (identity): the public spellings that reach the
same object are one entry, named by resolve's canonicalisation (``objects.canonical_name``) and by
PyTorch's docs name (``docs_links.pick_docs_name``: the shortest public spelling). A member that a
public base defines is the base's (``torch.nn.Linear.train`` is ``torch.nn.Module.train``); one that a
private base defines (``torch._C.TensorBase``) is held by the nearest public class that inherits it,
and the classes that reach the same object fold into one entry (``torch.FloatTensor.add`` is
``torch.Tensor.add``).

The names a support page lists are looked up too (``names``): each is walked to its object and
mapped to the entry of the same object (``torch.optim.AdamW.zero_grad`` is the entry
``torch.optim.Optimizer.zero_grad``; ``torch.autograd.Node`` is ``torch.autograd.graph.Node``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
import time
import types
import warnings
from typing import TYPE_CHECKING, Any, Collection, Dict, Hashable, List, Sequence, Tuple

from ..protocol import Json
from .docs_links import pick_docs_name
from .exports import judge
from .kinds import MEMBER_KINDS, _static_member, kind_of
from .lookup import _spelling_rank
from .objects import Found, canonical_name, private_segment, try_walk

if TYPE_CHECKING:
    from ..backend import Context

#: characters of an import error kept in the answer
ERROR_CHARS = 200
#: the public classes: id(class) -> (the class, its public spellings)
Classes = Dict[int, Tuple[type, List[str]]]


def _public_modules(roots: Sequence[str]) -> tuple[list[types.ModuleType], list[list[str]]]:
    """(modules imported, [(module, why it could not be imported)]): the roots and every public module
    below them, parents before children."""
    mods: list[types.ModuleType] = []
    failed: list[list[str]] = []
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop(0)
        if name in seen or private_segment(name) is not None or "__main__" in name:
            continue
        seen.add(name)
        try:
            mod = importlib.import_module(name)
        except BaseException as exc:  # noqa: B036 - a module that exits or fails on import is not walked
            if isinstance(exc, KeyboardInterrupt):
                raise
            failed.append([name, ("%s: %s" % (type(exc).__name__, exc))[:ERROR_CHARS]])
            continue
        if not isinstance(mod, types.ModuleType) or mod.__name__ != name:
            continue  # a name that another module stands in for (``torch.npu`` is the backend's)
        mods.append(mod)
        path = getattr(mod, "__path__", None)
        if path is not None:
            todo += sorted(
                "%s.%s" % (name, info.name)
                for info in pkgutil.iter_modules(path)
                if not info.name.startswith("_")
            )
    return mods, failed


def _of_packages(value: Any, packages: Collection[str]) -> bool:
    """Whether ``value`` says (``__module__``) it lives in one of ``packages`` (torch)."""
    home = getattr(value, "__module__", None)
    return isinstance(home, str) and home.split(".")[0] in packages


def _exported_names(mod: types.ModuleType, packages: Collection[str]) -> list[str]:
    names = getattr(mod, "__all__", None)
    if names is not None:
        return [n for n in names if isinstance(n, str) and not n.startswith("_")]
    space = dict(vars(mod))
    out = []
    if type(mod) is not types.ModuleType:  # a module object of its own class: its properties too
        inner = space.get("m")
        if isinstance(inner, types.ModuleType) and inner.__name__ == mod.__name__:
            space = dict(vars(inner), **space)  # torch.backends' PropModule wraps the module as m
        out += [n for n in dir(type(mod)) if not n.startswith("_") and n not in space]
    for name, value in space.items():
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        if (callable(value) or inspect.isclass(value)) and _of_packages(value, packages):
            out.append(name)
    return out


def _shared(obj: Any) -> bool:
    """Objects the interpreter shares (``None``, ints, strings): only their names tell them apart."""
    return obj is None or isinstance(obj, (bool, int, float, str, bytes))


class _Api(object):
    """One object and the public spellings that reach it: {spelling: (holder, attribute)}."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.places: dict[str, tuple[Any, str]] = {}

    def best(self) -> str:
        return sorted(self.places, key=_spelling_rank)[0]


def _module_names(
    mods: Sequence[types.ModuleType], packages: Collection[str]
) -> dict[Hashable, _Api]:
    """{key: _Api} of every public name of ``mods`` (submodules are walked, not listed)."""
    apis: dict[Hashable, _Api] = {}
    for mod in mods:
        for name in _exported_names(mod, packages):
            try:
                value = getattr(mod, name)
            except Exception:
                continue
            if isinstance(value, types.ModuleType):
                continue
            path = "%s.%s" % (mod.__name__, name)
            key: Hashable = ("path", path) if _shared(value) else ("id", id(value))
            api = apis.get(key)
            if api is None:
                api = apis[key] = _Api(value)
            api.places.setdefault(path, (mod, name))
    return apis


#: what CPython gives every struct sequence (``torch.return_types.max``), as ``tuple`` gives ``count``
_STRUCTSEQ = ("n_fields", "n_sequence_fields", "n_unnamed_fields")


def _members(classes: Classes, packages: Collection[str]) -> dict[Hashable, _Api]:
    """{key: _Api} of the public members of ``classes`` ({id: (class, its spellings)})."""
    apis: dict[Hashable, _Api] = {}
    for cls, _ in classes.values():
        try:
            names = dir(cls)
            mro = inspect.getmro(cls)
        except Exception:
            continue
        for name in names:
            if name.startswith("_") or (name in _STRUCTSEQ and issubclass(cls, tuple)):
                continue
            raw, definer = _static_member(cls, name)
            if raw is None or isinstance(raw, type) or not _of_packages(definer, packages):
                continue
            holder = _holder(cls, mro, definer, classes)
            key = _member_key(raw, holder, name)
            api = apis.get(key)
            if api is None:
                api = apis[key] = _Api(raw)
            for spelled in classes[id(holder)][1]:
                api.places.setdefault("%s.%s" % (spelled, name), (holder, name))
    return apis


def _holder(cls: type, mro: Sequence[type], definer: Any, classes: Classes) -> type:
    """The public class a member of ``cls`` that ``definer`` defines belongs to: the definer when it is
    public, else (a private base) the public class nearest to it in ``cls``'s MRO."""
    if id(definer) in classes:
        return definer
    before = mro[: mro.index(definer)] if definer in mro else (cls,)
    return [k for k in before if id(k) in classes][-1]


def _member_key(raw: Any, holder: type, name: str) -> Hashable:
    """One member object, one key (a shared value, ``False`` or ``1``, is its holder's own)."""
    return ("member", id(holder), name) if _shared(raw) else ("member", id(raw))


def _key_of(name: str, classes: Classes) -> Hashable | None:
    """The key of the object ``name`` reaches (as the surface keys it), or None where it reaches none."""
    hit = try_walk(name)
    if hit is None or isinstance(hit.obj, types.ModuleType):
        return None
    cls = hit.parent
    if isinstance(cls, type) and not isinstance(hit.obj, type):
        raw, definer = _static_member(cls, hit.attr)
        if raw is None:
            return None
        if not _shared(raw):
            return ("member", id(raw))
        if id(cls) not in classes:
            return None  # a value of a class that is no public API
        return _member_key(raw, _holder(cls, inspect.getmro(cls), definer, classes), hit.attr)
    return ("path", hit.path) if _shared(hit.obj) else ("id", id(hit.obj))


#: member kinds that are an API (enum members are values of their class, not APIs of it)
_MEMBER_API_KINDS = MEMBER_KINDS + ("attribute",)


def _entry(api: _Api, member: bool) -> Json | None:
    """The answer's record of one API, or None when it is no API (a member that is data)."""
    best = api.best()
    holder, attr = api.places[best]
    try:
        hit = Found(best, getattr(holder, attr), holder, attr)
        kind = kind_of(hit)[0]
        canonical = canonical_name(hit)
    except Exception:
        return None
    if member and kind not in _MEMBER_API_KINDS:
        return None
    # a member's spellings are its class's (as resolve's aliases); other classes that reach the same
    # object (``torch.FloatTensor.add``) are names of it too, and no spelling of its class
    spellings: list[str] = []
    others: list[str] = []
    for spelled in sorted(api.places, key=_spelling_rank):
        same = not member or api.places[spelled][0] is holder
        (spellings if same else others).append(spelled)
    public = set(s for s in spellings if judge(s, kind)[0])
    name = pick_docs_name(None, canonical, spellings, public) or best
    owner = name.rsplit(".", 1)[0] if member else None
    return {
        "name": name,
        "canonical": canonical,
        "spellings": [s for s in spellings if s != name],
        "also": others,
        "kind": kind,
        "module": owner.rsplit(".", 1)[0] if owner else name.rsplit(".", 1)[0],
        "owner": owner,
    }


def surface(
    roots: Sequence[str],
) -> tuple[list[Json], list[str], list[list[str]], dict[Hashable, str], Classes]:
    """(entries sorted by name, modules walked, modules that failed to import, {key: entry name}, the
    public classes {id: (class, spellings)})."""
    packages = set(r.split(".")[0] for r in roots)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mods, failed = _public_modules(roots)
        names = _module_names(mods, packages)
        classes: Classes = {}
        for api in names.values():
            if isinstance(api.obj, type):
                classes[id(api.obj)] = (api.obj, sorted(api.places, key=_spelling_rank))
        members = _members(classes, packages)
        entries: dict[str, Json] = {}
        keys: dict[Hashable, str] = {}
        for apis, member in ((names, False), (members, True)):
            for key, api in apis.items():
                entry = _entry(api, member)
                if entry is None:
                    continue
                entries.setdefault(entry["name"], entry)
                keys[key] = entry["name"]
    ordered = [entries[n] for n in sorted(entries)]
    return ordered, [m.__name__ for m in mods], failed, keys, classes


def op_surface(ctx: Context, args: Json) -> Json:
    """Every public API of the roots (``args["roots"]``, default torch) in this environment, and the
    entry each of ``args["names"]`` (a page's names) reaches: its name, "" when the name reaches an
    object that is no public API, None when it reaches nothing here."""
    started = time.time()
    roots = list(args.get("roots") or ["torch"])
    entries, mods, failed, keys, classes = surface(roots)
    names: dict[str, str | None] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.get("names") or ():
            try:
                key = _key_of(name, classes)
            except Exception:
                key = None
            names[name] = None if key is None else keys.get(key, "")
    return {
        "entries": entries,
        "names": names,
        "modules": mods,
        "failed_modules": failed,
        "roots": roots,
        "torch_version": str(ctx.torch.__version__),
        "python": sys.executable,
        "seconds": round(time.time() - started, 3),
        "exit_code": 0,
    }
