"""Type strings, as the controller parses them, from annotations: typing objects, their text, stub AST.

A type is a class's canonical name (``torch.Tensor``, ``torch.storage.UntypedStorage``), ``self``
(the receiver's own class), ``(A,B)`` a tuple, ``[A]`` a sequence of A, ``A|B`` one of several,
``?`` unknown. ``type_facts`` reads torch's sources of types and spells them with ``Types``.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import sys
import typing
from typing import Any, Mapping

UNKNOWN = "?"
SELF = "self"

_BUILTIN_TYPES = (int, float, bool, str, bytes, complex, type(None), dict, set, frozenset)


class Types(object):
    """Converts annotations (AST nodes or typing objects) into type strings."""

    def __init__(self, torch: Any, classes: Mapping[str, type]) -> None:
        self.torch = torch
        #: id(class) -> the canonical name the alias table gives it
        self.canon = {id(c): n for n, c in classes.items()}
        #: ``max`` -> ``(torch.Tensor,torch.Tensor)``: a ``torch.return_types`` class's stub tuple base
        self.return_types: dict[str, str] = {}

    def of_class(self, cls: Any) -> str:
        if not isinstance(cls, type):
            return UNKNOWN
        name = self.canon.get(id(cls))
        if name:
            return name
        if cls in _BUILTIN_TYPES:
            return "builtins." + cls.__name__
        if cls in (list, tuple):
            return "[?]"
        mod = getattr(cls, "__module__", "") or ""
        if mod == "torch.return_types":
            return self.return_types.get(cls.__name__, UNKNOWN)
        if mod.startswith("torch"):
            qual = cls.__qualname__
            # a pybind class whose qualname is already its path (torch.jit.ScriptFunction)
            return qual if qual.startswith(mod + ".") else "%s.%s" % (mod, qual)
        return UNKNOWN

    # -- typing objects (runtime annotations) -----------------------------------------------
    def of_object(self, ann: Any, owner: type | None = None) -> str:
        if ann is None or ann is inspect.Signature.empty:
            return UNKNOWN
        if isinstance(ann, str):
            return self.of_text(ann, _namespace(owner))
        if isinstance(ann, typing.TypeVar):
            return SELF if owner is not None else UNKNOWN
        origin, args = typing.get_origin(ann), typing.get_args(ann)
        if origin is typing.Union or type(ann).__name__ == "UnionType":
            return union([self.of_object(a, owner) for a in args if a is not type(None)])
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return "[%s]" % self.of_object(args[0], owner)
            return "(%s)" % ",".join(self.of_object(a, owner) for a in args)
        if origin is not None and getattr(origin, "__name__", "") in _SEQUENCES and args:
            return "[%s]" % self.of_object(args[0], owner)
        if getattr(ann, "__name__", "") == "Self" or repr(ann).endswith(".Self"):
            return SELF
        return self.of_class(ann)

    # -- annotation text and stub AST --------------------------------------------------------
    def of_text(self, text: str, namespace: Mapping[str, Any]) -> str:
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            return UNKNOWN
        return self.of_node(node, namespace)

    def of_node(
        self, node: ast.AST, namespace: Mapping[str, Any], self_name: str | None = None
    ) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.of_text(node.value, namespace)
        if isinstance(node, ast.Constant) and node.value is None:
            return "builtins.NoneType"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            parts = [
                self.of_node(node.left, namespace, self_name),
                self.of_node(node.right, namespace, self_name),
            ]
            return union(parts)
        if isinstance(node, ast.Subscript):
            head = _dotted(node.value)
            args: Any = node.slice
            if type(args).__name__ == "Index":  # Python 3.8
                args = args.value
            elts = list(args.elts) if isinstance(args, ast.Tuple) else [args]
            leaf = (head or "").rsplit(".", 1)[-1]
            if leaf == "Optional":
                return union([self.of_node(elts[0], namespace, self_name)])
            if leaf == "Union":
                return union([self.of_node(e, namespace, self_name) for e in elts])
            if leaf in ("tuple", "Tuple"):
                if (
                    len(elts) == 2
                    and isinstance(elts[1], ast.Constant)
                    and elts[1].value is Ellipsis
                ):
                    return "[%s]" % self.of_node(elts[0], namespace, self_name)
                return "(%s)" % ",".join(self.of_node(e, namespace, self_name) for e in elts)
            if leaf in _SEQUENCES:
                return "[%s]" % self.of_node(elts[0], namespace, self_name)
            return UNKNOWN
        name = _dotted(node)
        if name is None:
            return UNKNOWN
        if name in ("Self", "typing_extensions.Self", "typing.Self") or (
            self_name and name == self_name
        ):
            return SELF
        if name == "None":
            return "builtins.NoneType"
        obj = _lookup(name, namespace)
        if isinstance(obj, typing.TypeVar):
            return SELF if self_name else UNKNOWN
        if obj is None:
            return UNKNOWN
        return self.of_object(obj) if not isinstance(obj, type) else self.of_class(obj)


_SEQUENCES = ("list", "List", "Sequence", "Iterator", "Iterable", "Generator", "MutableSequence")


def union(parts: list[str]) -> str:
    """One type for several: the same type once, else ``A|B`` (None dropped: Optional[X] is X)."""
    out: list[str] = []
    for p in parts:
        for q in p.split("|") if _top_level_bar(p) else [p]:
            if q != "builtins.NoneType" and q not in out:
                out.append(q)
    if not out:
        return "builtins.NoneType"
    return out[0] if len(out) == 1 else "|".join(out)


def _top_level_bar(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "|" and depth == 0:
            return True
    return False


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _namespace(owner: type | None) -> dict[str, Any]:
    if owner is None:
        return {}
    mod = sys.modules.get(getattr(owner, "__module__", "") or "")
    return dict(vars(mod)) if mod is not None else {}


def _lookup(name: str, namespace: Mapping[str, Any]) -> Any:
    head, _, rest = name.partition(".")
    if head in namespace:
        obj = namespace[head]
    elif hasattr(builtins, head):
        obj = getattr(builtins, head)
    else:
        try:
            obj = importlib.import_module(head)
        except ImportError:
            return None
    for part in rest.split(".") if rest else ():
        try:
            obj = getattr(obj, part)
        except Exception:
            try:
                obj = importlib.import_module("%s.%s" % (obj.__name__, part))
            except Exception:
                return None
    return obj
