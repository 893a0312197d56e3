"""Resolve an API name inside the environment under test: object, kind, source, public rules, docs.

Everything is looked up by name at call time (``importlib`` and ``getattr``),
never from a table of one torch version's paths, so a name whose module moved
is still found: a fully qualified name that stops resolving part-way is
retried as a short form under the module it reached. Short forms
(``Optimizer.zero_grad``) are searched in every loaded module of the torch
package (and the backend's); one distinct object maps, several are listed.
"""

import ast
import difflib
import enum
import importlib
import inspect
import os
import re
import sys
import types

KINDS = (
    "module", "function", "builtin", "class", "context-manager", "method", "classmethod",
    "staticmethod", "property", "attribute", "storage-class", "enum-member",
)
MEMBER_KINDS = ("method", "classmethod", "staticmethod", "property")
C_EXTENSION = "C extension"
DOCS_ROOT = "https://pytorch.org/docs"
#: classes whose members each get their own generated docs page (others share the class page)
OWN_PAGE_CLASSES = ("torch.Tensor", "torch.optim.Optimizer")
MAX_SUGGESTIONS = 5
MAX_ALIASES = 12


class NotFound(Exception):
    """The name does not resolve; ``furthest`` is the deepest module/object reached."""

    def __init__(self, name, furthest, missing, suggestions, candidates=()):
        Exception.__init__(self, name)
        self.name = name
        self.furthest = furthest
        self.missing = missing
        self.suggestions = list(suggestions)
        self.candidates = list(candidates)


class Found(object):
    """A resolved path: the object, where it was read from, and how it was found."""

    def __init__(self, path, obj, parent, attr, via=""):
        self.path = path
        self.obj = obj
        self.parent = parent
        self.attr = attr
        self.via = via


# -- lookups ---------------------------------------------------------------------------

def _import(name):
    mod = sys.modules.get(name)
    if isinstance(mod, types.ModuleType):
        return mod
    try:
        return importlib.import_module(name)
    except Exception:
        return None


def _is_dunder(segment):
    return segment.startswith("__") and segment.endswith("__") and len(segment) > 4


def _getattr(obj, name):
    """(found, value): getattr that also imports a submodule of a module."""
    try:
        return True, getattr(obj, name)
    except Exception:
        pass
    if isinstance(obj, types.ModuleType):
        sub = _import("%s.%s" % (obj.__name__, name))
        if sub is not None:
            return True, sub
    return False, None


def walk(path):
    """Resolve a fully qualified dotted ``path``; raises NotFound with the furthest point."""
    parts = path.split(".")
    root = _import(parts[0])
    if root is None:
        raise NotFound(path, "", parts[0], [])
    obj, parent, attr = root, None, parts[0]
    reached = parts[0]
    for i, part in enumerate(parts[1:], 1):
        ok, value = _getattr(obj, part)
        if not ok:
            raise NotFound(path, reached, part, _suggest(obj, reached, part), ())
        parent, attr, obj = obj, part, value
        reached = ".".join(parts[:i + 1])
    return Found(path, obj, parent, attr)


def _try_walk(path):
    try:
        return walk(path)
    except NotFound:
        return None


def _suggest(obj, reached, missing):
    try:
        names = dir(obj)
    except Exception:
        names = []
    if not missing.startswith("_"):
        names = [n for n in names if not n.startswith("_")]
    close = difflib.get_close_matches(missing, names, n=MAX_SUGGESTIONS, cutoff=0.6)
    if not close:
        low = missing.lower()
        close = [n for n in names if low in n.lower() or n.lower() in low][:MAX_SUGGESTIONS]
    return ["%s.%s" % (reached, n) for n in close]


def _roots(backend_module):
    roots = ["torch"]
    if backend_module and backend_module not in roots:
        roots.append(backend_module)
    return roots


def _loaded_modules(prefix):
    """Loaded modules named ``prefix`` or under it, public ones first, then by name length."""
    out = []
    for name, mod in list(sys.modules.items()):
        if not isinstance(mod, types.ModuleType):
            continue
        if name == prefix or name.startswith(prefix + "."):
            out.append((name, mod))
    out.sort(key=lambda item: (_private_segment(item[0]) is not None, len(item[0]), item[0]))
    return out


def _identity(obj):
    """The key that makes two hits one object, or None where identity is a cache's accident.

    ``None``, bools, ints and strings are shared by the interpreter (``LEVEL = 1`` in
    two modules is the same int), so only their names can tell them apart.
    """
    if obj is None or isinstance(obj, (bool, int, str, bytes)):
        return None
    return id(obj)


def _spelling_rank(path):
    """Public spellings first, then the shortest."""
    return (_private_segment(path) is not None, path.count("."), len(path), path)


def _search(tail, prefixes):
    """Every loaded module under ``prefixes`` holding ``tail`` -> {canonical: Found}.

    Hits are one candidate when they have one canonical name or are one object
    (``torch.inf`` and the ``inf`` that a dozen modules import from ``math``);
    the candidate keeps its public, shortest spelling.
    """
    parts = tail.split(".")
    found = {}
    keys = {}  # identity -> canonical key of the candidate holding that object
    for prefix in prefixes:
        for name, mod in _loaded_modules(prefix):
            try:
                holder = vars(mod)
            except TypeError:
                continue
            if parts[0] not in holder:
                continue
            hit = _try_walk("%s.%s" % (name, tail))
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


def _pick(found):
    """Prefer candidates reached through a public spelling; returns the candidates left."""
    public = dict((k, v) for k, v in found.items() if _private_segment(v.path) is None)
    return public or found


def locate(name, backend_module=""):
    """Find ``name`` (qualified, short or moved); returns Found or raises NotFound."""
    name = re.sub(r"\(\)$", "", name.strip().strip("`"))  # ``torch.Tensor.add_()`` as written in prose
    parts = [p for p in name.split(".") if p]
    if not parts:
        raise NotFound(name, "", name, [])
    name = ".".join(parts)
    roots = _roots(backend_module)
    if parts[0] in roots or isinstance(sys.modules.get(parts[0]), types.ModuleType):
        try:
            return walk(name)
        except NotFound as exc:
            return _moved(name, exc, roots)
    candidates = _pick(_search(name, roots))
    if len(candidates) == 1:
        hit = list(candidates.values())[0]
        hit.via = "short form found as %s" % hit.path
        return hit
    if candidates:  # listed by the spelling they were found under (public first)
        raise NotFound(name, "", parts[0], [], sorted(hit.path for hit in candidates.values()))
    for root in roots:  # a submodule not loaded yet: ``distributions.Normal``
        hit = _try_walk("%s.%s" % (root, name))
        if hit is not None:
            hit.via = "short form of %s.%s" % (root, name)
            return hit
    furthest, missing, suggestions = roots[0], parts[0], _suggest(_import(roots[0]), roots[0], parts[0])
    for root in roots:  # the deepest spot any root reaches
        try:
            walk("%s.%s" % (root, name))
        except NotFound as exc:
            if exc.furthest.count(".") > furthest.count("."):
                furthest, missing, suggestions = exc.furthest, exc.missing, exc.suggestions
    raise NotFound(name, furthest, missing, suggestions)


#: a missing segment this close to a name that exists is a typo, never a moved module
TYPO_CUTOFF = 0.8


def _looks_like_typo(exc):
    """Whether the segment that failed is a misspelling of a name its scope has."""
    if not exc.furthest or not exc.missing:
        return False
    short = [s.rsplit(".", 1)[-1] for s in exc.suggestions]
    return bool(difflib.get_close_matches(exc.missing, short, n=1, cutoff=TYPO_CUTOFF))


def _moved(name, exc, roots):
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


# -- what the object is ----------------------------------------------------------------

def _static_member(cls, attr):
    """(raw descriptor, defining class) as stored in the MRO, or (None, None)."""
    try:
        mro = inspect.getmro(cls)
    except Exception:
        mro = (cls,)
    for klass in mro:
        try:
            d = vars(klass)
        except TypeError:
            continue
        if attr in d:
            return d[attr], klass
    meta = type(cls)
    for klass in inspect.getmro(meta):
        d = vars(klass)
        if attr in d:
            return d[attr], klass
    return None, None


def _is_enum_member(obj):
    if isinstance(obj, enum.Enum):
        return True
    members = getattr(type(obj), "__members__", None)  # pybind11 enums
    if isinstance(members, dict) and not isinstance(obj, type):
        try:
            return any(v is obj or v == obj for v in members.values())
        except Exception:
            return False
    return False


def _storage_bases():
    torch = sys.modules.get("torch")
    bases = []
    for path in ("storage.TypedStorage", "storage.UntypedStorage", "storage._StorageBase",
                 "UntypedStorage", "TypedStorage", "_C.StorageBase"):
        obj = torch
        for part in path.split("."):
            obj = getattr(obj, part, None)
        if isinstance(obj, type):
            bases.append(obj)
    return tuple(bases)


def _is_context_manager(cls):
    return hasattr(cls, "__enter__") and hasattr(cls, "__exit__")


def _is_op_packet(obj):
    mod = type(obj).__module__ or ""
    return mod.startswith("torch._ops") and type(obj).__name__ in ("OpOverloadPacket", "OpOverload")


def kind_of(hit):
    """(kind, detail, raw descriptor, defining class)."""
    obj, parent, attr = hit.obj, hit.parent, hit.attr
    if isinstance(obj, types.ModuleType):
        return "module", "package" if hasattr(obj, "__path__") else "module", None, None
    if _is_enum_member(obj):
        return "enum-member", "member of %s" % _qualname(type(obj)), None, None
    raw, definer = (None, None)
    if isinstance(parent, type):
        raw, definer = _static_member(parent, attr)
    if raw is not None and not isinstance(raw, type):
        tname = type(raw).__name__
        if isinstance(raw, staticmethod):
            lang = "C" if inspect.isbuiltin(raw.__func__) else "Python"
            return "staticmethod", "%s staticmethod" % lang, raw, definer
        if isinstance(raw, classmethod):
            return "classmethod", "Python classmethod", raw, definer
        if tname == "classmethod_descriptor":
            return "classmethod", "C classmethod", raw, definer
        if isinstance(raw, property):
            return "property", "Python property", raw, definer
        if inspect.isgetsetdescriptor(raw):
            return "property", "C getset descriptor", raw, definer
        if tname == "cached_property":
            return "property", "functools.cached_property", raw, definer
        if inspect.ismemberdescriptor(raw):
            return "attribute", "slot (member descriptor)", raw, definer
        if inspect.isfunction(raw):
            return "method", "Python method", raw, definer
        if inspect.ismethoddescriptor(raw) or inspect.isbuiltin(raw) or tname == "wrapper_descriptor":
            return "method", "C method (%s)" % tname, raw, definer
        if callable(raw) and hasattr(raw, "__get__"):
            return "method", "callable descriptor (%s)" % tname, raw, definer
    if isinstance(obj, type):
        storage = _storage_bases()
        if storage and issubclass(obj, storage):
            return "storage-class", "storage class", raw, definer
        if _is_context_manager(obj):
            deco = "__call__" in _class_attrs(obj)
            return ("context-manager", "context manager and decorator" if deco else "context manager",
                    raw, definer)
        python = _class_source(obj) is not None
        return "class", "Python class" if python else "C extension class", raw, definer
    if inspect.isfunction(inspect.unwrap(obj)) if callable(obj) else False:
        return "function", "Python function", raw, definer
    if inspect.isbuiltin(obj):
        return "builtin", "C builtin", raw, definer
    if _is_op_packet(obj):
        return "builtin", "ATen operator (%s)" % type(obj).__name__, raw, definer
    if inspect.ismethod(obj) or (callable(obj) and not isinstance(parent, types.ModuleType)
                                 and parent is not None and not isinstance(parent, type)):
        return "method", "bound method", raw, definer
    return "attribute", "instance of %s" % _qualname(type(obj)), raw, definer


def _class_attrs(cls):
    names = set()
    for klass in inspect.getmro(cls):
        if klass is object:
            continue
        try:
            names.update(vars(klass))
        except TypeError:
            pass
    return names


def _qualname(obj):
    mod = getattr(obj, "__module__", None) or ""
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", "?")
    return "%s.%s" % (mod, qual) if mod and mod != "builtins" else qual


# -- names -----------------------------------------------------------------------------

def _same(a, b):
    if a is b:
        return True
    try:  # bound methods compare by function and self
        return inspect.ismethod(a) and inspect.ismethod(b) and a == b
    except Exception:
        return False


def _named_path(obj):
    """``module.qualname`` (or ``module.name``) when that path leads back to ``obj``."""
    mod = getattr(obj, "__module__", None)
    if not isinstance(mod, str) or not mod:
        return None
    for leaf in (getattr(obj, "__qualname__", None), getattr(obj, "__name__", None)):
        if not isinstance(leaf, str) or "<" in leaf:
            continue
        path = "%s.%s" % (mod, leaf)
        hit = _try_walk(path)
        if hit is not None and _same(hit.obj, obj):
            return path
    return None


def _holder_name(parent):
    if isinstance(parent, types.ModuleType):
        return parent.__name__
    if isinstance(parent, type):
        return _named_path(parent) or _qualname(parent)
    return None


def canonical_name(hit):
    obj = hit.obj
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if isinstance(hit.parent, type) and not isinstance(obj, type):
        return "%s.%s" % (_holder_name(hit.parent), hit.attr)
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)) or callable(obj):
        named = _named_path(obj)
        if named:
            return named
    holder = _holder_name(hit.parent)
    if holder:
        return "%s.%s" % (holder, hit.attr)
    return hit.path


def _private_segment(path):
    for seg in path.split("."):
        if seg.startswith("_") and not _is_dunder(seg):
            return seg
    return None


def _module_prefix(path):
    """(module name, first segment after it) for a dotted path."""
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:i])
        if isinstance(sys.modules.get(name), types.ModuleType):
            return name, parts[i]
    return None, None


def judge(path, kind=None):
    """(public, reason) for one spelling, by PyTorch's rules."""
    seg = _private_segment(path)
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
        return True, "no segment starts with an underscore and %s is in %s.__all__" % (top, mod_name)
    return False, "%s is not in %s.__all__" % (top, mod_name)


def _exported(mod, key, obj):
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
        return home is None or _private_segment(home) is not None
    return False


def _spellings(obj, roots):
    """Public ``module.name`` spellings exported for ``obj`` (identity, not equality)."""
    out = []
    for root in roots:
        for name, mod in _loaded_modules(root):
            if _private_segment(name) is not None:
                continue
            try:
                items = list(vars(mod).items())
            except TypeError:
                continue
            for key, value in items:
                if value is obj and not key.startswith("_") and _exported(mod, key, obj):
                    out.append("%s.%s" % (name, key))
    return out


def aliases_of(hit, canonical, kind, roots, query):
    if isinstance(hit.obj, types.ModuleType):
        spellings = []
    elif isinstance(hit.parent, type) and not isinstance(hit.obj, type):
        spellings = ["%s.%s" % (s, hit.attr) for s in _spellings(hit.parent, roots)]
    elif kind == "enum-member":
        spellings = ["%s.%s" % (s, hit.attr) for s in _spellings(hit.parent, roots)]
    else:
        spellings = _spellings(hit.obj, roots)
    if query != canonical and query not in spellings and hit.path == query:
        spellings.append(query)
    seen, out = set([canonical]), []
    for s in sorted(spellings, key=lambda s: (_private_segment(s) is not None, s.count("."), s)):
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out[:MAX_ALIASES]


# -- source, signature, docs -----------------------------------------------------------

_AST_CACHE = {}


def _relpath(path):
    """``torch/autograd/grad_mode.py`` for a file under a sys.path entry, else the path."""
    real = os.path.realpath(path)
    best = None
    for entry in sys.path:
        if not entry:
            continue
        base = os.path.realpath(entry)
        if real.startswith(base.rstrip(os.sep) + os.sep):
            rel = os.path.relpath(real, base)
            if best is None or len(rel) < len(best):
                best = rel
    return (best or path).replace(os.sep, "/")


def _python_file(path):
    return bool(path) and path.endswith(".py") and os.path.exists(path)


def _python_source(obj):
    try:
        return _python_file(inspect.getsourcefile(obj))
    except (TypeError, OSError):
        return False


def _def_line(fn):
    """Line of the ``def`` (decorators skipped)."""
    lines, start = inspect.getsourcelines(fn)
    for i, text in enumerate(lines):
        if re.match(r"\s*(async\s+)?def\s", text):
            return start + i
    return start


def _class_line(path, qualname):
    tree = _AST_CACHE.get(path)
    if tree is None:
        try:
            with open(path, "rb") as fh:
                tree = ast.parse(fh.read())
        except (OSError, SyntaxError, ValueError):
            return None
        _AST_CACHE[path] = tree
    nodes = [tree]
    found = None
    for part in qualname.split("."):
        found = None
        for node in nodes:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.ClassDef, ast.FunctionDef)) and child.name == part:
                    found = child
                    break
            if found is not None:
                break
        if found is None:
            return None
        nodes = [found]
    return getattr(found, "lineno", None)


def _class_source(cls):
    """(file, line) of a Python class, even when its ``__module__`` was rewritten."""
    files = []
    try:
        f = inspect.getsourcefile(cls)
        if f:
            files.append(f)
    except (TypeError, OSError):
        pass
    for value in vars(cls).values():
        target = getattr(value, "__func__", None) or getattr(value, "fget", None) or value
        code = getattr(inspect.unwrap(target) if callable(target) else target, "__code__", None)
        if code is not None and code.co_filename not in files:
            files.append(code.co_filename)
    qual = getattr(cls, "__qualname__", cls.__name__)
    for f in files:
        if _python_file(f):
            line = _class_line(f, qual)
            if line:
                return f, line
    return None


def _module_source(mod):
    f = getattr(mod, "__file__", None)
    if _python_file(f):
        return _relpath(f)
    return C_EXTENSION


def _function_source(fn):
    target = inspect.unwrap(fn)
    try:
        f = inspect.getsourcefile(target)
    except (TypeError, OSError):
        return None
    if not _python_file(f):
        return None
    try:
        return "%s:%d" % (_relpath(f), _def_line(target))
    except (OSError, TypeError, IndexError):
        return _relpath(f)


def source_of(hit, kind, raw):
    obj = hit.obj
    if kind == "module":
        return _module_source(obj)
    if kind == "enum-member":
        cls = type(obj)
        where = _class_source(cls) if _python_source(cls) or isinstance(obj, enum.Enum) else None
        return "%s:%d" % (_relpath(where[0]), where[1]) if where else C_EXTENSION
    if kind in ("staticmethod", "classmethod") and hasattr(raw, "__func__"):
        return _function_source(raw.__func__) or C_EXTENSION
    if kind == "property":
        fget = getattr(raw, "fget", None) or getattr(raw, "func", None)
        return (_function_source(fget) if fget is not None else None) or C_EXTENSION
    if isinstance(obj, type):
        where = _class_source(obj)
        return "%s:%d" % (_relpath(where[0]), where[1]) if where else C_EXTENSION
    if kind in ("function", "method"):
        fn = raw if inspect.isfunction(raw) else obj
        return _function_source(getattr(fn, "__func__", fn)) or C_EXTENSION
    if kind == "builtin":
        return C_EXTENSION
    # attribute: the value's own type is C -> C extension; else the holder's file
    vtype = type(obj)
    if vtype.__module__ != "builtins" and not _python_source(vtype) and not isinstance(obj, type):
        return C_EXTENSION
    holder = hit.parent
    if isinstance(holder, types.ModuleType):
        return _module_source(holder)
    if isinstance(holder, type):
        where = _class_source(holder)
        return "%s:%d" % (_relpath(where[0]), where[1]) if where else C_EXTENSION
    return C_EXTENSION


def defining_module(hit, kind, definer):
    obj = hit.obj
    if kind == "module":
        return obj.__name__
    if kind == "enum-member":
        return getattr(type(obj), "__module__", "") or ""
    if definer is not None:
        return getattr(definer, "__module__", "") or ""
    if kind in ("function", "class", "context-manager", "storage-class", "builtin"):
        mod = getattr(inspect.unwrap(obj) if callable(obj) else obj, "__module__", None)
        if isinstance(mod, str) and mod:
            return mod
    holder = hit.parent
    if isinstance(holder, types.ModuleType):
        return holder.__name__
    return getattr(holder, "__module__", "") or ""


def _doc_signature(obj, leaf):
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str):
        return None
    for line in doc.strip().splitlines()[:3]:
        line = line.strip()
        if line.startswith(leaf + "(") and ")" in line:
            return line[len(leaf):]
    return None


def signature_of(hit, kind, raw):
    if kind in ("module", "attribute", "enum-member", "property") or _is_op_packet(hit.obj):
        return None
    target = hit.obj
    if kind in ("staticmethod", "classmethod") and hasattr(raw, "__func__"):
        target = raw.__func__
    try:
        return str(inspect.signature(target))
    except (TypeError, ValueError):
        pass
    text = getattr(target, "__text_signature__", None)
    if isinstance(text, str) and text:
        return text.replace("$", "")
    return _doc_signature(hit.obj, hit.attr)


def docs_version(version):
    """``2.13`` for a release (``2.13.0+cpu``); ``main`` for a nightly or source build."""
    base = version.split("+")[0]
    if re.search(r"(a|b|rc|dev)\d*", base.split(".")[-1]) or "git" in version:
        return "main"
    m = re.match(r"(\d+)\.(\d+)", base)
    return "%s.%s" % (m.group(1), m.group(2)) if m else "stable"


def _docs_name(query_path, canonical, aliases, public_names):
    if query_path in public_names:
        return query_path
    cands = [n for n in [canonical] + aliases if n in public_names]
    if not cands:
        return None
    return sorted(cands, key=lambda n: (n.count("."), len(n), n))[0]


def docs_url(version, name, kind, owner_docs):
    base = "%s/%s" % (DOCS_ROOT, docs_version(version))
    if name is None:
        return ""
    if kind == "module":
        page = name[len("torch."):] if name.startswith("torch.") else name
        return "%s/%s.html" % (base, page)
    if kind == "storage-class":
        return "%s/storage.html#%s" % (base, name)
    if owner_docs and (kind in MEMBER_KINDS or kind in ("attribute", "enum-member")):
        if owner_docs in OWN_PAGE_CLASSES and kind in MEMBER_KINDS + ("attribute",):
            return "%s/generated/%s.html" % (base, name)
        return "%s/generated/%s.html#%s" % (base, owner_docs, name)
    if kind == "attribute":
        holder = name.rsplit(".", 1)[0]
        page = holder[len("torch."):] if holder.startswith("torch.") else holder
        return "%s/%s.html#%s" % (base, page, name)
    return "%s/generated/%s.html" % (base, name)


# -- the answer ------------------------------------------------------------------------

def resolve(name, backend_module=""):
    """The resolution record for one name (raises NotFound)."""
    torch = sys.modules.get("torch") or _import("torch")
    hit = locate(name, backend_module)
    kind, detail, raw, definer = kind_of(hit)
    canonical = canonical_name(hit)
    roots = _roots(backend_module)
    aliases = aliases_of(hit, canonical, kind, roots, name)
    public, reason = judge(canonical, kind)
    public_names = set([canonical] if public else [])
    if not public:
        for alias in aliases:
            ok, why = judge(alias, kind)
            if ok:
                public = True
                reason = "defined privately (%s); exported publicly as %s (%s)" % (reason, alias, why)
                break
    for alias in aliases:
        if judge(alias, kind)[0]:
            public_names.add(alias)
    owner = None
    owner_docs = None
    if kind in MEMBER_KINDS or (isinstance(hit.parent, type) and kind in ("attribute", "enum-member")):
        owner = _holder_name(hit.parent)
        owner_docs = _docs_name(hit.path.rsplit(".", 1)[0], owner, [a.rsplit(".", 1)[0] for a in aliases],
                                set(n.rsplit(".", 1)[0] for n in public_names))
    version = str(getattr(torch, "__version__", "")) if torch is not None else ""
    docs_name = _docs_name(hit.path, canonical, aliases, public_names) if public else None
    defined_in = _qualname(definer) if definer is not None else None
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
        "owner_kind": (("context-manager" if _is_context_manager(hit.parent) else "class")
                       if owner else None),
        "defined_in": defined_in if defined_in and defined_in != owner else None,
        "torch_version": version,
    }


def unresolved(name, exc):
    """The record of a name that did not resolve (``exc``: the NotFound it raised)."""
    return {"status": "ambiguous" if exc.candidates else "unknown", "query": name,
            "furthest": exc.furthest, "missing": exc.missing, "suggestions": exc.suggestions,
            "candidates": exc.candidates}


def resolve_many(names, backend_module=""):
    out = []
    for name in names:
        try:
            out.append({"status": "ok", "resolution": resolve(name, backend_module)})
        except NotFound as exc:
            out.append(unresolved(name, exc))
    return out
