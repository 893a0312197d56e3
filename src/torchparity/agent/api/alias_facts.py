"""The alias table coverage search reads without an environment, built from the torch it runs in.

Aliases (``torch.set_grad_enabled`` -> ``torch.autograd.grad_mode.set_grad_enabled``),
classes with their bases and the members each defines, and the public non-class
names of the main modules; with ``types``, what calls return (``type_facts``). Every entry is read
from the running torch, so the table never names something that torch lacks.
The controller renders the answer as ``static_aliases.toml``
(``python -m torchparity.coverage.tablegen --python PY``).
"""

from __future__ import annotations

import importlib
import inspect
import types
from typing import TYPE_CHECKING, Any

from ..protocol import Json

if TYPE_CHECKING:
    from ..backend import Context

#: modules whose public names are re-exported elsewhere: (where it is spelled, which classes)
_CLASS_HOMES = (
    (
        "torch.autograd.grad_mode",
        (
            "no_grad",
            "enable_grad",
            "set_grad_enabled",
            "inference_mode",
            "set_multithreading_enabled",
        ),
    ),
)
#: spellings of the grad-mode classes besides their home
_GRAD_SPELLINGS = ("torch", "torch.autograd")
#: packages whose exported classes get an alias (torch.optim.SGD -> torch.optim.sgd.SGD)
_PACKAGES = (
    "torch",
    "torch.cuda",
    "torch.profiler",
    "torch.autograd.profiler",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.nn",
    "torch.nn.modules",
    "torch.utils.data",
    "torch.onnx",
    "torch.fx",
    "torch.jit",
    "torch.autograd",
    "torch.cuda.amp",
    "torch.amp",
)
#: classes kept under the name users spell (their home is private)
_PLAIN_CLASSES = (
    "torch.Tensor",
    "torch.device",
    "torch.dtype",
    "torch.Generator",
    "torch.Size",
    "torch.Stream",
    "torch.Event",
)
#: modules (and torch.Tensor) whose public names (functions, attributes; not classes) the table lists
_FUNCTION_HOMES = (
    "torch",
    "torch.Tensor",
    "torch.nn.functional",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "torch.autograd",
    "torch.autograd.grad_mode",
    "torch.cuda",
    "torch.random",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.utils.data",
    "torch.amp",
)
_SKIP_MEMBERS = {
    "__doc__",
    "__module__",
    "__dict__",
    "__weakref__",
    "__annotations__",
    "__qualname__",
    "__slots__",
    "__parameters__",
    "__orig_bases__",
    "__abstractmethods__",
    "_abc_impl",
    "__firstlineno__",
    "__static_attributes__",
}


def _name(cls: type) -> str:
    return "%s.%s" % (cls.__module__, cls.__qualname__)


def _reachable(cls: type) -> bool:
    """Whether the class is where its module and qualname say (some C classes claim a home they lack)."""
    try:
        obj: Any = importlib.import_module(cls.__module__)
        for part in cls.__qualname__.split("."):
            obj = getattr(obj, part)
    except Exception:
        return False
    return obj is cls


def _members(cls: type) -> list[str]:
    out = []
    for key, value in vars(cls).items():
        if key in _SKIP_MEMBERS:
            continue
        if key.startswith("_") and not (key.startswith("__") and key.endswith("__")):
            continue
        if (
            callable(value)
            or isinstance(value, (property, classmethod, staticmethod))
            or inspect.isdatadescriptor(value)
        ):
            out.append(key)
    return sorted(out)


def collect_classes(torch: Any) -> tuple[dict[str, str], dict[str, type]]:
    """(aliases, classes): spelled -> canonical names, canonical name -> class (with torch bases)."""
    aliases: dict[str, str] = {}
    classes: dict[str, type] = {}

    def add_class(spelled: str, cls: type) -> None:
        canonical = spelled if spelled in _PLAIN_CLASSES else _name(cls)
        if spelled != canonical:
            aliases[spelled] = canonical
        classes[canonical] = cls

    for home, names in _CLASS_HOMES:
        mod = importlib.import_module(home)
        for n in names:
            cls: type = getattr(mod, n)
            for where in (*_GRAD_SPELLINGS, home):
                try:
                    owner = importlib.import_module(where)
                except ImportError:
                    continue
                if getattr(owner, n, None) is cls:
                    add_class("%s.%s" % (where, n), cls)
    for pkg in _PACKAGES:
        try:
            mod = importlib.import_module(pkg)
        except ImportError:
            continue
        for n in sorted(getattr(mod, "__all__", None) or dir(mod)):
            obj = getattr(mod, n, None)
            if (
                isinstance(obj, type)
                and not n.startswith("_")
                and obj.__module__.startswith("torch")
            ):
                if n.endswith("Tensor") and n != "Tensor":
                    continue  # the legacy tensor types (torch.FloatTensor): not classes tests call
                if not _reachable(obj):
                    continue
                add_class("%s.%s" % (pkg, n), obj)
    for spelled in _PLAIN_CLASSES:
        mod_name, _, n = spelled.rpartition(".")
        add_class(spelled, getattr(importlib.import_module(mod_name), n))
    # bases: every torch class on the way up, so inherited members find their owner
    pending = list(classes.values())
    while pending:
        cls = pending.pop()
        for base in cls.__mro__[1:]:
            if base is object or not base.__module__.startswith("torch"):
                continue
            name = _name(base)
            if name not in classes and not name.startswith("torch._C") and _reachable(base):
                classes[name] = base
                pending.append(base)
    return aliases, classes


def build(torch: Any) -> Json:
    """The table as plain data (the controller renders it as TOML)."""
    aliases, classes = collect_classes(torch)
    canon_of = {id(c): n for n, c in classes.items()}
    table: Json = {"aliases": dict(sorted(aliases.items())), "classes": {}}
    for name in sorted(classes):
        cls = classes[name]
        bases = [canon_of[id(b)] for b in cls.__bases__ if id(b) in canon_of]
        # Tensor's members live in C (TensorBase): its list is left out (unknown: it may define any)
        table["classes"][name] = {
            "bases": bases,
            "defines": None if name == "torch.Tensor" else _members(cls),
        }
    functions: dict[str, list[str]] = {}
    for home in _FUNCTION_HOMES:
        try:
            owner = torch.Tensor if home == "torch.Tensor" else importlib.import_module(home)
        except ImportError:
            continue
        names = []
        for n in dir(owner):
            if n.startswith("_"):
                continue
            try:
                value = getattr(owner, n)
            except Exception:  # some attributes raise on access
                continue
            if (
                not isinstance(value, (type, types.ModuleType))
                and "%s.%s" % (home, n) not in table["aliases"]
            ):
                names.append(n)
        functions[home] = sorted(names)
    table["functions"] = functions
    table["torch_version"] = str(torch.__version__)
    return table


def op_alias_facts(ctx: Context, args: Json) -> Json:
    """Agent job: the alias table of this torch (``table``), what its calls return (``types``),
    or both. ``devices``: also read what a PrivateUse1 backend's generated methods return
    (a child interpreter; the static table's generator asks for it)."""
    out: Json = {"exit_code": 0, "torch_version": str(ctx.torch.__version__)}
    if args.get("table", True):
        out["table"] = build(ctx.torch)
    if args.get("types"):
        from . import type_facts

        _, classes = collect_classes(ctx.torch)
        out["types"] = type_facts.build(ctx.torch, classes, devices=bool(args.get("devices")))
        mod = ctx.backend_mod
        out["backend_version"] = str(getattr(mod, "__version__", "")) if mod is not None else ""
    return out
