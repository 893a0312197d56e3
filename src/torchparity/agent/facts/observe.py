"""What a test can hold about a value: checks as (kind, expression, payload source).

``observe(value, "result")`` turns a value measured here into checks a test
repeats: ``["eq", "result.name", "\"linear\""]``, ``["tensor", "result[0]",
"torch.tensor([1.0], dtype=torch.float32)"]``, ``["type", "result",
"torch.fx.node.Node"]`` ... Values no source can hold are described by their
type, length, shape and public attributes instead.
"""

from __future__ import annotations

import enum
import inspect
import os
import re
import tempfile
import time
import types
from typing import Any, Dict, List, Optional, Tuple, cast

from ..api.objects import _named_path
from ..protocol import TorchModule
from .literal import NotLiteral, literal
from .recipes.layout import FX_CALL

MAX_CHECKS = 14
MAX_ITEMS = 6
MAX_LITERAL = 300
#: a module's own buffers observed by value: at most this many, of at most this many items each
MAX_BUFFERS = 6
MAX_BUFFER_ITEMS = 64
#: text that differs between machines: a literal holding it is not asserted
_LOCAL = [
    p for p in (os.path.expanduser("~"), tempfile.gettempdir(), os.getcwd()) if p and p != "/"
]


def type_path(cls: type) -> Optional[str]:
    """A dotted name a test can write for ``cls`` (builtins bare), or None."""
    if cls.__module__ == "builtins":
        import builtins

        return cls.__name__ if getattr(builtins, cls.__name__, None) is cls else None
    if "<" in getattr(cls, "__qualname__", "<"):
        return None
    return _named_path(cls)


def _local_text(text: str) -> bool:
    return any(p in text for p in _LOCAL) or " at 0x" in text


def _literal(value: Any, torch: TorchModule) -> Optional[str]:
    try:
        src = literal(value, torch)
    except (NotLiteral, RecursionError, ValueError, TypeError):
        return None
    if len(src) > MAX_LITERAL or _local_text(src):
        return None
    return src


def _is_iterator(value: Any) -> bool:
    return isinstance(
        value, (types.GeneratorType, type(iter(())), type(iter([])), type(iter({})))
    ) or (
        hasattr(value, "__next__")
        and getattr(value, "__iter__", None) is not None
        and not isinstance(value, (str, bytes))
    )


def is_iterator(value: Any) -> bool:
    try:
        return _is_iterator(value)
    except Exception:
        return False


class Observer(object):
    def __init__(
        self, torch: TorchModule, named: Optional[Dict[int, str]] = None, wide: bool = False
    ) -> None:
        self.torch = torch
        #: every plain attribute of the top object, not the first few (a watched object: what a call changed
        #: in it may come late in the alphabet, ``profile.step_num``)
        self.wide = wide
        self.limit = MAX_CHECKS * 4 if wide else MAX_CHECKS
        #: id(object) -> variable name: a value that is one of them is checked by identity
        self.named = named or {}
        self.checks: List[List[str]] = []
        #: the storage classes this torch has (a small storage is held by its bytes)
        self.storages = tuple(
            c
            for c in (
                getattr(torch, "UntypedStorage", None),
                getattr(getattr(torch, "storage", None), "TypedStorage", None),
            )
            if c
        )

    def add(self, kind: str, expr: str, payload: str) -> None:
        if len(self.checks) < self.limit:
            self.checks.append([kind, expr, payload])

    def observe(self, value: Any, expr: str, depth: int = 0) -> None:
        """Checks of ``value`` (spelled ``expr``); a part that cannot be read here (a lazy parameter's
        shape, a frozen module's state) is left out rather than ending the whole observation."""
        try:
            self._observe(value, expr, depth)
        except Exception:
            self._type(value, expr)

    def _observe(self, value: Any, expr: str, depth: int) -> None:
        torch = self.torch
        if id(value) in self.named and not isinstance(value, (bool, int, float, str, type(None))):
            self.add("same", expr, self.named[id(value)])
            return
        if value is None or isinstance(value, bool):
            self.add("is", expr, repr(value))
            return
        if isinstance(value, float):
            src = _literal(value, torch)
            if src is not None:
                self.add("float", expr, src)
            return
        if isinstance(value, torch.Tensor) and callable(getattr(value, "full_tensor", None)):
            self._type(
                value, expr
            )  # a DTensor: its type, its placements and the whole tensor it stands for
            placements = _literal([str(p) for p in value.placements], torch)
            if placements is not None:
                self.add("eq", "[str(p) for p in %s.placements]" % expr, placements)
            self._tensor(value.full_tensor(), "%s.full_tensor()" % expr)
            return
        if isinstance(value, torch.Tensor):
            self._tensor(value, expr)
            return
        if isinstance(value, torch.nn.Module):
            self._module(value, expr)
            return
        if depth < 2 and self._awaited(value, expr, depth):
            return
        if depth == 0 and self._typing(value, expr):
            return
        if (
            isinstance(value, (list, tuple))
            and type(value) in (list, tuple)
            and self._has_tensor_or_float(value)
        ):
            self.add("eq", "len(%s)" % expr, str(len(value)))
            for i, item in enumerate(value[:MAX_ITEMS]):
                self.observe(item, "%s[%d]" % (expr, i), depth + 1)
            return
        if self.storages and isinstance(value, self.storages) and value.nbytes() <= 64:
            self._type(value, expr)  # a small storage: its device and its values
            self.add("eq", "%s.device.type" % expr, repr(value.device.type))
            src = _literal(value.cpu().tolist(), torch)
            if src is not None:
                self.add("eq", "%s.cpu().tolist()" % expr, src)
            return
        if isinstance(
            value, enum.Enum
        ):  # before its text or number: a member is held by class and name
            self._structure(value, expr, depth)
            return
        src = _literal(value, torch)
        if src is not None:
            self.add("eq", expr, src)
            return
        if depth == 0 and self._program(value, expr):
            return
        if isinstance(value, str):
            self.add("type", expr, "str")
            return
        if depth >= 2 or _opaque(value):
            self._type(value, expr)
            return
        self._structure(value, expr, depth)

    def _awaited(self, value: Any, expr: str, depth: int) -> bool:
        """A future by its type and the value it completes with (``rpc_async``'s); an RPC reference by its type
        and the value it holds (``remote``'s ``to_here()``)."""
        future: Any = getattr(self.torch._C, "Future", ())
        if isinstance(value, future):  # torch.futures.Future and rpc_async's
            for _ in range(
                50
            ):  # a blocking wait would outlast the probe's timer (it runs without the GIL)
                if value.done():
                    break
                time.sleep(0.1)
            else:
                return False
            got = value.wait()
            member = "wait"
        elif type(value).__name__ in ("PyRRef", "RRef") and callable(
            getattr(value, "to_here", None)
        ):
            got = value.to_here(timeout=10.0)
            member = "to_here"
        else:
            return False
        self._type(value, expr)
        self.observe(got, "%s.%s()" % (expr, member), depth + 1)
        return True

    @staticmethod
    def _has_tensor_or_float(value: Any) -> bool:
        import torch

        return any(isinstance(v, (torch.Tensor, float)) for v in value)

    def _module(self, value: Any, expr: str) -> None:
        """A module's type, its graph's node ops, its state_dict keys and training flag: each part that
        reads here (a frozen ScriptModule has no state_dict hooks, a lazy one no shapes)."""
        torch = self.torch
        self._type(value, expr)
        try:
            graph = getattr(value, "graph", None)
            if graph is not None and hasattr(graph, "nodes") and not callable(graph.nodes):
                ops = [str(n.op) for n in graph.nodes]
                self.add(
                    "eq", "[n.op for n in %s.graph.nodes]" % expr, _literal(ops, torch) or "[]"
                )
                if len(ops) <= 16:  # their names in order: a node moved among nodes of one op shows
                    names = [str(n.name) for n in graph.nodes]
                    self.add(
                        "eq",
                        "[n.name for n in %s.graph.nodes]" % expr,
                        _literal(names, torch) or "[]",
                    )
        except Exception:
            pass
        try:
            keys = list(value.state_dict())
        except Exception:
            keys = None
        if keys is not None:
            self.add("eq", "list(%s.state_dict())" % expr, _literal(keys, torch) or "[]")
        training = getattr(value, "training", None)
        if isinstance(training, bool):
            self.add("is", "%s.training" % expr, repr(training))
        self._module_buffers(value, expr)

    def _module_buffers(self, value: Any, expr: str) -> None:
        """The values of a small module's own buffers (running statistics, an observer's minimum and
        maximum, a pruning mask): the state a member call moves."""
        try:
            buffers = list(value.named_buffers(recurse=False))
        except Exception:
            return
        if len(buffers) > MAX_BUFFERS:
            return
        for name, buf in buffers:
            if (
                isinstance(buf, self.torch.Tensor)
                and buf.numel() <= MAX_BUFFER_ITEMS
                and re.match(r"^\w+$", name)
            ):
                self._tensor(buf, "%s.get_buffer(%r)" % (expr, name))

    def _typing(self, value: Any, expr: str) -> bool:
        """A typing Protocol (its members, the parameters of its ``__call__``) or a typing alias (its origin
        and its arguments): the shape the type promises, which a stand-in does not have."""
        torch = self.torch
        if isinstance(value, type) and getattr(value, "_is_protocol", False):
            self.add("is", "%s._is_protocol" % expr, "True")
            members = _literal(
                sorted(n for n in vars(value) if n == "__call__" or not n.startswith("_")), torch
            )
            if members is not None:
                self.add(
                    "eq",
                    'sorted(n for n in vars(%s) if n == "__call__" or not n.startswith("_"))'
                    % expr,
                    members,
                )
            code = getattr(vars(value).get("__call__"), "__code__", None)
            if code is not None:
                names = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
                src = _literal(names, torch)
                if src is not None:
                    self.add(
                        "eq",
                        "list(%s.__call__.__code__.co_varnames[:%d])" % (expr, len(names)),
                        src,
                    )
            return True
        origin, args = getattr(value, "__origin__", None), getattr(value, "__args__", None)
        if (
            origin is None
            or not isinstance(args, tuple)
            or isinstance(value, type)
            or type(value).__module__ != "typing"
        ):
            return False
        self.add(
            "eq", "repr(%s.__origin__)" % expr, _literal(repr(origin), torch) or repr(repr(origin))
        )
        arg_names = _literal([getattr(a, "__name__", None) or repr(a) for a in args], torch)
        if arg_names is not None:  # too long or local to this machine: not asserted
            self.add(
                "eq",
                '[getattr(a, "__name__", None) or repr(a) for a in %s.__args__]' % expr,
                arg_names,
            )
        return True

    def _program(self, value: Any, expr: str) -> bool:
        """An exported program: its type, the ATen operators of its graph and what its module gives for a
        tensor (an exported ``relu``: ``[1, 0, 3]``)."""
        torch = self.torch
        if type(value).__name__ != "ExportedProgram" or not callable(
            getattr(value, "module", None)
        ):
            return False
        self._type(value, expr)
        try:
            targets = [str(n.target) for n in value.graph.nodes if n.op == FX_CALL]
            self.add(
                "eq",
                '[str(n.target) for n in %s.graph.nodes if n.op == "%s"]' % (expr, FX_CALL),
                _literal(targets, torch) or "[]",
            )
        except Exception:
            pass
        arg = "torch.tensor([1.0, -2.0, 3.0], device=DEVICE)"
        try:
            got = value.module()(torch.tensor([1.0, -2.0, 3.0]))
        except Exception:
            return True
        if isinstance(got, torch.Tensor):
            self._tensor(got, "%s.module()(%s)" % (expr, arg))
        return True

    def _type(self, value: Any, expr: str) -> None:
        path = type_path(type(value))
        if path:
            self.add("type", expr, path)

    def _tensor(self, value: Any, expr: str) -> None:
        torch = self.torch
        if _uninitialized(value, torch):  # a lazy module's parameter: no shape, dtype or values yet
            self._type(value, expr)
            return
        src = _literal(value, torch)
        if value.requires_grad and value.is_leaf:
            grad = value.grad
            if grad is None:
                self.add("is", "%s.grad" % expr, "None")
            else:
                self._tensor(grad, "%s.grad" % expr)
        if src is not None:
            self.add("tensor", expr, src)
            return
        self.add("eq", "%s.shape" % expr, _literal(value.shape, torch) or "None")
        dtype = _literal(value.dtype, torch)
        if dtype:
            self.add("eq", "%s.dtype" % expr, dtype)
        if (
            value.layout == torch.strided
            and not value.is_meta
            and value.numel()
            and (
                value.dtype.is_floating_point
                or value.dtype in (torch.int32, torch.int64, torch.int16)
            )
        ):
            total = float(value.detach().double().sum().cpu())
            # (a float always has a literal: literal.float_src)
            self.add("float", "%s.double().sum().item()" % expr, cast(str, _literal(total, torch)))

    def _structure(self, value: Any, expr: str, depth: int) -> None:
        self._type(value, expr)
        enum_name = getattr(value, "name", None)
        members = getattr(
            type(value), "__members__", None
        )  # a pybind11 enum's dict, an Enum's mapping proxy
        if isinstance(members, (dict, types.MappingProxyType)) and isinstance(enum_name, str):
            self.add("eq", "%s.name" % expr, _literal(enum_name, self.torch) or repr(enum_name))
            return
        if isinstance(value, dict):
            keys = list(value)[: MAX_ITEMS + 4]
            ksrc = _literal(keys, self.torch)
            self.add("eq", "len(%s)" % expr, str(len(value)))
            if ksrc is not None:  # the first keys only, of a larger dict
                keys_expr = (
                    "list(%s)" % expr
                    if len(keys) == len(value)
                    else "list(%s)[:%d]" % (expr, len(keys))
                )
                self.add("eq", keys_expr, ksrc)
                for key in keys[:MAX_ITEMS]:
                    self.observe(
                        value[key], "%s[%s]" % (expr, _literal(key, self.torch)), depth + 1
                    )
            return
        if isinstance(value, (list, tuple)):
            self.add("eq", "len(%s)" % expr, str(len(value)))
            for i, item in enumerate(list(value)[:MAX_ITEMS]):
                self.observe(item, "%s[%d]" % (expr, i), depth + 1)
            return
        if isinstance(value, (type({}.keys()), type({}.values()), type({}.items()))):
            self.observe(list(value), "list(%s)" % expr, depth + 1)
            return
        if isinstance(value, (set, frozenset)):
            self.add("eq", "len(%s)" % expr, str(len(value)))
            return
        try:
            size = len(value)
        except Exception:
            size = None
        if isinstance(size, int):
            self.add("eq", "len(%s)" % expr, str(size))
        attrs = _public_attrs(value)
        if depth >= 1:  # below the top, only what a literal holds
            attrs = [(n, a) for n, a in attrs if _literal(a, self.torch) is not None]
        plain = [(n, a) for n, a in attrs if _literal(a, self.torch) is not None]
        rest = [(n, a) for n, a in attrs if (n, a) not in plain]
        shown = (plain + rest)[:MAX_ITEMS]
        if self.wide and depth == 0:
            shown = plain + rest[: max(0, MAX_ITEMS - len(plain))]
        for name, attr in shown:
            self.observe(attr, "%s.%s" % (expr, name), depth + 1)


def _uninitialized(value: Any, torch: TorchModule) -> bool:
    mixin = getattr(
        getattr(getattr(torch, "nn", None), "parameter", None), "UninitializedTensorMixin", None
    )
    return mixin is not None and isinstance(value, mixin)


def _opaque(value: Any) -> bool:
    """A context manager, generator, coroutine, code object or frame: its attributes are machinery (a code
    object's file is where the measurement compiled it), not results."""
    if isinstance(
        value, (types.GeneratorType, types.CoroutineType, types.CodeType, types.FrameType)
    ):
        return True
    return (
        hasattr(type(value), "__enter__")
        and hasattr(type(value), "__exit__")
        and type(value).__module__ in ("contextlib", "builtins")
    )


def _descriptor_attrs(value: Any) -> List[Tuple[str, Any]]:
    """(name, value) of the public data descriptors (properties, C getters, slots) of its type."""
    items: List[Tuple[str, Any]] = []
    for name in dir(type(value)):
        if name.startswith("_"):
            continue
        raw = inspect.getattr_static(type(value), name, None)
        if (
            isinstance(raw, property)
            or inspect.isdatadescriptor(raw)
            or inspect.ismemberdescriptor(raw)
        ):
            try:
                items.append((name, getattr(value, name)))
            except Exception:
                continue
    return items


def _public_attrs(value: Any) -> List[Tuple[str, Any]]:
    """(name, value) of an object's own public data attributes, by name."""
    try:
        items = sorted(vars(value).items())
    except TypeError:
        items = []
    if not [n for n, _ in items if not n.startswith("_")]:
        items = _descriptor_attrs(value)
    out: List[Tuple[str, Any]] = []
    for name, attr in items:
        if (
            name.startswith("_")
            or inspect.isroutine(attr)
            or isinstance(attr, (types.ModuleType, type))
        ):
            continue
        out.append((name, attr))
    return out


def observe(
    torch: TorchModule,
    value: Any,
    expr: str,
    named: Optional[Dict[int, str]] = None,
    wide: bool = False,
) -> List[List[str]]:
    obs = Observer(torch, named, wide)
    obs.observe(value, expr)
    return obs.checks
