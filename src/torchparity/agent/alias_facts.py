"""The alias table coverage search reads without an environment, built from the torch it runs in.

Aliases (``torch.set_grad_enabled`` -> ``torch.autograd.grad_mode.set_grad_enabled``),
classes with their bases and the members each defines, return types for data
flow, and the public non-class names of the main modules. Every entry is read
from the running torch, so the table never names something that torch lacks.
The controller renders the answer as ``static_aliases.toml``
(``python -m torchparity.coverage.tablegen --python PY``).
"""

import importlib
import inspect
import types

#: modules whose public names are re-exported elsewhere: (where it is spelled, which classes)
_CLASS_HOMES = (
    ("torch.autograd.grad_mode", ("no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
                                  "set_multithreading_enabled")),
)
#: spellings of the grad-mode classes besides their home
_GRAD_SPELLINGS = ("torch", "torch.autograd")
#: packages whose exported classes get an alias (torch.optim.SGD -> torch.optim.sgd.SGD)
_PACKAGES = ("torch.optim", "torch.optim.lr_scheduler", "torch.nn", "torch.nn.modules",
             "torch.utils.data", "torch.autograd", "torch.cuda.amp", "torch.amp")
#: classes kept under the name users spell (their home is private)
_PLAIN_CLASSES = ("torch.Tensor", "torch.device", "torch.dtype", "torch.Generator", "torch.Size",
                  "torch.Stream", "torch.Event")
#: torch functions that return a Tensor (data flow: x = torch.randn(3); x.add_(1))
_TENSOR_FACTORIES = (
    "tensor", "as_tensor", "from_numpy", "randn", "rand", "randint", "randperm", "randn_like",
    "rand_like", "randint_like", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
    "empty_like", "full_like", "arange", "linspace", "logspace", "eye", "empty_strided", "cat",
    "stack", "where", "matmul", "mm", "bmm", "add", "sub", "mul", "div", "sum", "mean", "abs",
    "exp", "log", "sqrt", "clone", "reshape", "flatten", "squeeze", "unsqueeze", "transpose",
    "narrow", "masked_fill", "softmax",
)
#: Tensor methods that return a Tensor
_TENSOR_METHODS = (
    "clone", "detach", "detach_", "to", "cpu", "cuda", "float", "double", "half", "bfloat16",
    "int", "long", "bool", "contiguous", "view", "view_as", "reshape", "reshape_as", "t",
    "transpose", "permute", "flatten", "squeeze", "unsqueeze", "expand", "expand_as", "repeat",
    "requires_grad_", "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "sum", "mean",
    "abs", "neg", "exp", "log", "sqrt", "pow", "matmul", "mm", "fill_", "zero_", "copy_",
    "normal_", "uniform_", "type_as", "narrow", "select", "index_select", "masked_fill",
    "masked_fill_", "softmax", "relu", "sigmoid", "tanh", "max", "min", "norm", "new_zeros",
    "new_ones", "new_empty", "new_full", "new_tensor", "pin_memory", "share_memory_", "numpy",
)
#: methods that return their own instance (model.to(device).forward, ctx.clone().mode)
_SELF_RETURNING = {
    "torch.nn.modules.module.Module": ("to", "cpu", "cuda", "float", "double", "half", "bfloat16",
                                       "train", "eval", "requires_grad_", "to_empty", "apply",
                                       "type", "xpu"),
    "torch.autograd.grad_mode.set_grad_enabled": ("clone",),
    "torch.autograd.grad_mode.inference_mode": ("clone",),
    "torch.autograd.grad_mode.set_multithreading_enabled": ("clone",),
    "torch.utils._contextlib._DecoratorContextManager": ("clone",),
}
#: modules (and torch.Tensor) whose public names (functions, attributes; not classes) the table lists
_FUNCTION_HOMES = ("torch", "torch.Tensor", "torch.nn.functional", "torch.linalg", "torch.fft",
                   "torch.special", "torch.autograd", "torch.autograd.grad_mode", "torch.cuda",
                   "torch.random", "torch.nn.init", "torch.nn.utils", "torch.utils.data", "torch.amp")
_SKIP_MEMBERS = {"__doc__", "__module__", "__dict__", "__weakref__", "__annotations__",
                 "__qualname__", "__slots__", "__parameters__", "__orig_bases__", "__abstractmethods__",
                 "_abc_impl", "__firstlineno__", "__static_attributes__"}


def _name(cls):
    return "%s.%s" % (cls.__module__, cls.__qualname__)


def _members(cls):
    out = []
    for key, value in vars(cls).items():
        if key in _SKIP_MEMBERS:
            continue
        if key.startswith("_") and not (key.startswith("__") and key.endswith("__")):
            continue
        if callable(value) or isinstance(value, (property, classmethod, staticmethod)) or inspect.isdatadescriptor(value):
            out.append(key)
    return sorted(out)


def build(torch):
    """The table as plain data (the controller renders it as TOML)."""
    aliases = {}
    classes = {}

    def add_class(spelled, cls):
        canonical = spelled if spelled in _PLAIN_CLASSES else _name(cls)
        if spelled != canonical:
            aliases[spelled] = canonical
        classes[canonical] = cls

    for home, names in _CLASS_HOMES:
        mod = importlib.import_module(home)
        for n in names:
            cls = getattr(mod, n)
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
            if isinstance(obj, type) and not n.startswith("_") and obj.__module__.startswith("torch"):
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
            if name not in classes and not name.startswith("torch._C"):
                classes[name] = base
                pending.append(base)
    canon_of = {id(c): n for n, c in classes.items()}
    returns = {}
    for n in _TENSOR_FACTORIES:
        if callable(getattr(torch, n, None)):
            returns["torch.%s" % n] = "torch.Tensor"
    for n in _TENSOR_METHODS:
        if callable(getattr(torch.Tensor, n, None)):
            returns["torch.Tensor.%s" % n] = "torch.Tensor"
    for cls_name, methods in _SELF_RETURNING.items():
        for m in methods:
            if cls_name in classes and hasattr(classes[cls_name], m):
                returns["%s.%s" % (cls_name, m)] = "self"
    table = {"aliases": dict(sorted(aliases.items())), "classes": {}, "returns": returns}
    for name in sorted(classes):
        cls = classes[name]
        bases = [canon_of[id(b)] for b in cls.__bases__ if id(b) in canon_of]
        # Tensor's members live in C (TensorBase): its list is left out (unknown: it may define any)
        table["classes"][name] = {"bases": bases, "defines": None if name == "torch.Tensor" else _members(cls)}
    functions = {}
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
            if not isinstance(value, (type, types.ModuleType)) and "%s.%s" % (home, n) not in table["aliases"]:
                names.append(n)
        functions[home] = sorted(names)
    table["functions"] = functions
    table["torch_version"] = str(torch.__version__)
    return table


def op_alias_facts(ctx, args):
    """Agent job: the alias table of this torch."""
    return {"table": build(ctx.torch), "exit_code": 0}
