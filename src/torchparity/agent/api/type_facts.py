"""What calls and attributes give, read from the torch this runs in (coverage's types of names).

Four of torch's own sources, in this order of trust:

1. return annotations of Python functions, methods and properties (``inspect``);
2. the type stubs torch ships (``torch/_C/*.pyi``, ``torch/return_types.pyi``): the
   C methods of ``TensorBase`` and the C functions of ``torch``;
3. the first line of a C function's docstring (``untyped_storage() -> torch.UntypedStorage``);
4. the native functions' schemas (``torch._C._jit_get_all_schemas()``): every ATen op's
   return types, for ``torch.X``/``Tensor.X`` and ``torch.linalg``/``fft``/``special``.

Each type is spelled as ``type_names`` spells it.
``device_methods`` says what the methods a PrivateUse1 backend adds (``Tensor.npu()``)
return, read from torch's own generator in a child interpreter.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import typing
from typing import Any, Dict, Mapping

from .type_names import SELF, UNKNOWN, Types, _dotted, _lookup, union

#: a name (``torch.randn``, ``torch.Tensor.add``) -> its type string
Facts = Dict[str, str]

#: namespaces whose public functions are typed, and the prefix of their ATen ops
_FUNCTION_HOMES = (
    ("torch", ""),
    ("torch.nn.functional", ""),
    ("torch.linalg", "linalg_"),
    ("torch.fft", "fft_"),
    ("torch.special", "special_"),
    ("torch.nn.init", ""),
    ("torch.autograd", ""),
    ("torch.random", ""),
    ("torch.functional", ""),
    ("torch.utils.data", ""),
    ("torch.onnx", ""),
    ("torch.fx", ""),
    ("torch.jit", ""),
    ("torch.cuda", ""),
    ("torch.profiler", ""),
)
#: stubs read (path under torch/ -> the runtime object their top-level defs describe)
_STUBS = (
    ("_C/_VariableFunctions.pyi", "torch"),
    ("_C/__init__.pyi", "torch._C"),
    ("_C/_nn.pyi", "torch._C._nn"),
)
#: stub classes whose methods are torch.Tensor's
_TENSOR_STUB_CLASSES = ("TensorBase",)
_DOC_SIG = re.compile(r"^\s*[\w.]+\(.*\)\s*->\s*([\w.\[\], ]+?)\s*$")


# -- sources --------------------------------------------------------------------------------


def _stub_namespace(tree: ast.Module, module: str) -> dict[str, Any]:
    """The names a stub file's annotations use: its imports, its own classes, its module's names."""
    ns: dict[str, Any] = {}
    try:
        mod = importlib.import_module(module)
        ns.update(vars(mod))
    except ImportError:
        pass
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                obj = _lookup("%s.%s" % (node.module, a.name), {})
                if obj is not None:
                    ns[a.asname or a.name] = obj
        elif isinstance(node, ast.Import):
            for a in node.names:
                try:
                    ns[a.asname or a.name.split(".")[0]] = importlib.import_module(
                        a.name if a.asname else a.name.split(".")[0]
                    )
                except ImportError:
                    pass
    return ns


def _stub_defs(body: list[ast.stmt]) -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(name, [return annotation nodes]) of the defs in a stub body, overloads together."""
    out: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.setdefault(node.name, []).append(node)
    return out


def _parse_stub(path: str) -> ast.Module | None:
    try:
        with open(path, "rb") as fh:
            return ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return None


def stub_facts(torch: Any, types: Types) -> tuple[Facts, Facts]:
    """Returns and attributes from torch's stubs: {"torch.randn": "torch.Tensor", ...}."""
    base = os.path.dirname(torch.__file__)
    returns: Facts = {}
    attrs: Facts = {}
    rt = _parse_stub(os.path.join(base, "return_types.pyi"))
    if rt is not None:
        ns = _stub_namespace(rt, "torch.return_types")
        for node in rt.body:
            if isinstance(node, ast.ClassDef) and node.bases:
                types.return_types[node.name] = types.of_node(node.bases[0], ns)
    for rel, module in _STUBS:
        tree = _parse_stub(os.path.join(base, rel))
        if tree is None:
            continue
        ns = _stub_namespace(tree, module)
        if module == "torch":  # _VariableFunctions: torch's own functions
            for name, defs in _stub_defs(tree.body).items():
                returns["torch." + name] = union(
                    [types.of_node(d.returns, ns) for d in defs if d.returns]
                )
            continue
        if module == "torch._C._nn":
            for name, defs in _stub_defs(tree.body).items():
                returns["torch._C._nn." + name] = union(
                    [types.of_node(d.returns, ns) for d in defs if d.returns]
                )
            continue
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            if node.name in _TENSOR_STUB_CLASSES:
                owner = "torch.Tensor"
            else:
                obj = getattr(torch._C, node.name, None)
                owner = types.of_class(obj) if isinstance(obj, type) else UNKNOWN
                if owner == UNKNOWN:
                    continue
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    attrs["%s.%s" % (owner, item.target.id)] = union(
                        [types.of_node(item.annotation, ns, node.name)]
                    )
            for name, defs in _stub_defs(node.body).items():
                props = [d for d in defs if any(_dotted(x) == "property" for x in d.decorator_list)]
                value = union([types.of_node(d.returns, ns, node.name) for d in defs if d.returns])
                (attrs if props else returns)["%s.%s" % (owner, name)] = value
    return returns, attrs


def _doc_type(obj: Any, types: Types) -> str:
    doc = getattr(obj, "__doc__", None) or ""
    for line in doc.strip().splitlines()[:3]:
        m = _DOC_SIG.match(line)
        if m:
            return types.of_text(
                m.group(1).strip(), {"torch": types.torch, "Tensor": types.torch.Tensor}
            )
    return UNKNOWN


def schema_facts(torch: Any) -> Facts:
    """ATen op -> the types its overloads return (one type, or one of several)."""
    try:
        schemas = torch._C._jit_get_all_schemas()
    except Exception:
        return {}
    seen: dict[str, list[str]] = {}
    for s in schemas:
        if not s.name.startswith("aten::"):
            continue
        name = s.name[6:]
        rets = [_schema_type(str(r.type)) for r in s.returns]
        if not any("Tensor" in str(a.type) for a in s.arguments) and "torch.Tensor" not in "".join(
            rets
        ):
            continue  # TorchScript's scalar overloads (add.int): no Python call of torch or a Tensor takes them
        value = (
            "builtins.NoneType"
            if not rets
            else rets[0]
            if len(rets) == 1
            else "(%s)" % ",".join(rets)
        )
        seen.setdefault(name, []).append(value)
    return {name: union(values) for name, values in seen.items()}


def _schema_type(text: str) -> str:
    text = text.replace(" ", "")
    if text.endswith("?"):
        text = text[:-1]
    if text.startswith("Optional[") and text.endswith("]"):
        text = text[9:-1]
    if text.startswith("Tensor"):
        return "torch.Tensor"
    if text in ("List[Tensor]", "Tensor[]"):
        return "[torch.Tensor]"
    return {
        "int": "builtins.int",
        "float": "builtins.float",
        "bool": "builtins.bool",
        "str": "builtins.str",
        "SymInt": "builtins.int",
    }.get(text, UNKNOWN)


def _annotation(obj: Any, owner: type | None, types: Types) -> str:
    """The return annotation of a Python callable, or UNKNOWN."""
    fn = getattr(obj, "__func__", obj)
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)):
        return UNKNOWN
    ann = getattr(fn, "__annotations__", {}).get("return", inspect.Signature.empty)
    if ann is inspect.Signature.empty:
        overloads: list[Any] = getattr(typing, "get_overloads", lambda f: [])(fn)
        if overloads:
            return union([_annotation(o, owner, types) for o in overloads])
        return UNKNOWN
    if isinstance(ann, str):
        ns = dict(getattr(fn, "__globals__", {}))
        return types.of_text(ann, ns) if owner is None else _self_aware(types, ann, ns, owner)
    if isinstance(ann, typing.TypeVar) and owner is not None:
        return SELF
    return types.of_object(ann, owner)


def _self_aware(types: Types, text: str, ns: Mapping[str, Any], owner: type) -> str:
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return UNKNOWN
    return types.of_node(node, ns, owner.__name__)


def python_facts(
    torch: Any, classes: Mapping[str, type], types: Types
) -> tuple[Facts, Facts, Facts]:
    """Returns and attributes of Python functions, methods and properties (their annotations)."""
    returns: Facts = {}
    attrs: Facts = {}
    docs: Facts = {}
    for home, _ in _FUNCTION_HOMES:
        try:
            mod = importlib.import_module(home)
        except ImportError:
            continue
        for n in dir(mod):
            if n.startswith("__"):
                continue
            try:
                obj = getattr(mod, n)
            except Exception:
                continue
            if isinstance(obj, type) or not callable(obj):
                continue
            t = _annotation(obj, None, types)
            if t != UNKNOWN:
                returns["%s.%s" % (home, n)] = t
            else:
                _keep(docs, "%s.%s" % (home, n), _doc_type(obj, types))
    for name, cls in classes.items():
        owned = list(vars(cls).items())
        if (
            name == "torch.Tensor"
        ):  # its C methods (TensorBase) answer through the stubs and docstrings
            owned += [(k, v) for k, v in vars(torch._C.TensorBase).items() if k not in vars(cls)]
        for key, value in owned:
            if key.startswith("__") and key not in _DUNDERS:
                continue
            full = "%s.%s" % (name, key)
            if isinstance(value, property):
                t = _annotation(value.fget, cls, types) if value.fget else UNKNOWN
                if t != UNKNOWN:
                    attrs[full] = t
                continue
            t = _annotation(value, cls, types)
            if t == UNKNOWN and key == "__enter__":
                t = _enter_type(value)
            if t != UNKNOWN:
                returns[full] = t
            elif callable(value):
                _keep(docs, full, _doc_type(value, types))
    return returns, attrs, docs


def _keep(table: Facts, key: str, value: str) -> None:
    if value != UNKNOWN:
        table[key] = value


_DUNDERS = (
    "__enter__",
    "__getitem__",
    "__iter__",
    "__next__",
    "__call__",
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__floordiv__",
    "__rfloordiv__",
    "__mod__",
    "__rmod__",
    "__pow__",
    "__rpow__",
    "__matmul__",
    "__rmatmul__",
    "__neg__",
    "__pos__",
    "__abs__",
    "__invert__",
    "__and__",
    "__rand__",
    "__or__",
    "__ror__",
    "__xor__",
    "__rxor__",
    "__lshift__",
    "__rshift__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__deepcopy__",
)


def _enter_type(fn: Any) -> str:
    """``__enter__`` whose every return is ``return self``: the instance itself."""
    fn = getattr(fn, "__func__", fn)
    if not inspect.isfunction(fn):
        return UNKNOWN
    try:
        tree = ast.parse(_dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return UNKNOWN
    rets = [n for n in ast.walk(tree) if isinstance(n, ast.Return)]
    if rets and all(isinstance(r.value, ast.Name) and r.value.id == "self" for r in rets):
        return SELF
    return UNKNOWN


def _dedent(src: str) -> str:
    lines = src.splitlines()
    indent = min((len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()), default=0)
    return "\n".join(ln[indent:] for ln in lines)


def apply_schemas(torch: Any, schemas: Facts, returns: Facts) -> None:
    """ATen ops for callables no annotation, stub or docstring typed: torch.X, Tensor.X, linalg.X..."""
    for home, prefix in _FUNCTION_HOMES:
        try:
            mod = importlib.import_module(home)
        except ImportError:
            continue
        for n in dir(mod):
            key = "%s.%s" % (home, n)
            op = schemas.get(prefix + n) if prefix or home == "torch" else None
            if op is None or key in returns:
                continue
            obj = getattr(mod, n, None)
            if callable(obj) and not isinstance(obj, type):
                returns[key] = op
    for n in dir(torch.Tensor):
        key = "torch.Tensor." + n
        if key not in returns and n in schemas and callable(getattr(torch.Tensor, n, None)):
            returns[key] = schemas[n]


_DEVICE_PROBE = r"""
import json, typing, torch
name = torch._C._get_privateuse1_backend_name()
before = {}
owners = {"torch.Tensor": torch.Tensor, "torch.nn.modules.module.Module": torch.nn.Module,
          "torch.storage._StorageBase": torch.storage._StorageBase, "torch.storage.TypedStorage": torch.TypedStorage,
          "torch.nn.utils.rnn.PackedSequence": torch.nn.utils.rnn.PackedSequence}
for k, c in owners.items():
    before[k] = hasattr(c, name)
torch.utils.generate_methods_for_privateuse1_backend(for_storage=True)
out = {}
for k, c in owners.items():
    fn = getattr(c, name, None)
    if fn is None or before[k]:
        continue
    ann = getattr(fn, "__annotations__", {}).get("return")
    out[k] = repr(ann) if not isinstance(ann, str) else ann
print(json.dumps({"name": name, "methods": out}))
"""


def device_methods(timeout: float = 180) -> Facts:
    """What the methods torch generates for a PrivateUse1 backend return, per class (a child run)."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _DEVICE_PROBE],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=timeout,
        )
        data = json.loads(proc.stdout.decode("utf-8").strip().splitlines()[-1])
    except Exception:
        return {}
    out: Facts = {}
    for owner, ann in data.get("methods", {}).items():
        text = ann.replace("<class '", "").replace("'>", "")
        if text.endswith(".T") or text.startswith("~"):  # a TypeVar bound to the class
            out[owner] = SELF
        elif text in ("torch.Tensor",):
            out[owner] = "torch.Tensor"
        else:
            out[owner] = UNKNOWN
    return out


def build(torch: Any, classes: Mapping[str, type], devices: bool = True) -> dict[str, Any]:
    """Every type fact, as plain data: returns, attributes, device methods, where each came from."""
    types = Types(torch, classes)
    stub_returns, stub_attrs = stub_facts(torch, types)
    py_returns, py_attrs, doc_returns = python_facts(torch, classes, types)
    returns: Facts = {}
    sources: dict[str, int] = {}
    for src, table in (
        ("annotation", py_returns),
        ("stub", stub_returns),
        ("docstring", doc_returns),
    ):
        for k, v in table.items():
            if k not in returns and v != UNKNOWN:
                returns[k] = v
                sources[src] = sources.get(src, 0) + 1
    # torch.nn.functional's C builtins are torch._C._nn's
    for k, v in list(returns.items()):
        if k.startswith("torch._C._nn."):
            alias = "torch.nn.functional." + k[len("torch._C._nn.") :]
            returns.pop(k)
            returns.setdefault(alias, v)
    schemas = schema_facts(torch)
    n = len(returns)
    apply_schemas(torch, schemas, returns)
    sources["schema"] = len(returns) - n
    attrs = dict(stub_attrs)
    attrs.update(py_attrs)
    attrs = {k: v for k, v in attrs.items() if v != UNKNOWN}
    return {
        "returns": dict(sorted(returns.items())),
        "attributes": dict(sorted(attrs.items())),
        "device_methods": device_methods() if devices else {},
        "sources": sources,
        "torch_version": str(torch.__version__),
    }
