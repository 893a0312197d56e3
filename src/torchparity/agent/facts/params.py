"""Parameter lists of a callable: from its signature, an operator's schema, a signature's text, an
error message that lists them, a docstring's first line; and the argument source of one call.

A parameter is ``{name, kind, has_default, default_bool, annotation}``: ``kind`` is "positional",
"keyword", "posonly", "var" (``*args``, ``**kwargs``) or "vararg" (``*primals`` given one value);
``annotation`` is its annotation's text. These are the type annotations and defaults of the value chain
(``names.py``).
"""

from __future__ import annotations

import inspect
import itertools
import re
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

Param = Dict[str, Any]


def schema_params(obj: Any) -> Optional[List[Param]]:
    """An ATen operator overload's parameters, from its schema (``torch.ops.aten.sub.Tensor``)."""
    schema = getattr(obj, "_schema", None)
    arguments = getattr(schema, "arguments", None)
    if arguments is None:
        return None
    out = []
    for a in arguments:
        text = str(a.type)
        ann = (
            "List[Tensor]"
            if text.startswith("Tensor[]") or text.startswith("List[Tensor")
            else "Tensor"
            if text.startswith("Tensor")
            else "Size"
            if text.startswith("int[")
            else "float"
            if text.startswith(("Scalar", "float", "number"))
            else _torch_type(text.rstrip("?"))
        )
        out.append(
            {
                "name": a.name,
                "kind": "keyword" if a.kwarg_only else "positional",
                "has_default": a.default_value is not None or text.endswith("?"),
                "default_bool": isinstance(a.default_value, bool),
                "annotation": ann,
            }
        )
    return out


def packet_params(obj: Any, limit: int = 4) -> List[List[Param]]:
    """Parameter lists of an operator packet's overloads (``torch.ops.aten._add_relu``), ``default``
    first; [] for anything else."""
    if (
        getattr(obj, "_schema", None) is not None
        or not callable(getattr(obj, "overloads", None))
        or not type(obj).__name__.endswith("OpOverloadPacket")
    ):
        return []
    try:
        names = list(obj.overloads())
    except Exception:
        return []
    names.sort(key=lambda n: (n != "default", n.startswith("out") or n.endswith("_out"), n))
    out = []
    for name in names[:limit]:
        try:
            params = schema_params(getattr(obj, name))
        except Exception:
            continue
        if params is not None and params not in out:
            out.append(params)
    return out


def _resolved_names(text: Any, obj: Any) -> str:
    """`` module.Class`` for capitalised names a string annotation uses, looked up where ``obj`` lives."""
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    if module is None or not isinstance(text, str):
        return ""
    out = []
    for name in re.findall(r"\b([A-Z][A-Za-z0-9_]*)\b", text):
        cls = getattr(module, name, None)
        if isinstance(cls, type) and cls.__module__ not in ("builtins", "typing"):
            out.append(" %s.%s" % (cls.__module__, cls.__qualname__))
    return "".join(out)


def param_list(obj: Any, signature_text: str) -> Optional[List[Param]]:
    """[{name, kind, has_default, default_bool, annotation}] from the object or its signature text."""
    params = schema_params(obj)
    if params is not None:
        return params
    try:
        sig = inspect.signature(obj)
        params = []
        for p in sig.parameters.values():
            ann = p.annotation
            ann_text = "" if ann is p.empty else (ann if isinstance(ann, str) else str(ann))
            kinds: Dict[Any, str] = {
                p.VAR_POSITIONAL: "var",
                p.VAR_KEYWORD: "var",
                p.KEYWORD_ONLY: "keyword",
                p.POSITIONAL_ONLY: "posonly",
            }
            kind = kinds.get(p.kind, "positional")
            params.append(
                {
                    "name": p.name,
                    "kind": kind,
                    "has_default": p.default is not p.empty,
                    "default_bool": isinstance(p.default, bool),
                    "annotation": ann_text + _annotation_classes(ann) + _resolved_names(ann, obj),
                }
            )
            if p.kind == p.VAR_POSITIONAL:
                params[-1]["star"] = 1
    except (TypeError, ValueError):
        pass
    if params is None and signature_text:
        params = params_from_text(signature_text)
    return params


def inspectable(obj: Any) -> bool:
    """Whether ``obj``'s parameters come from itself (a Python signature or an operator schema), not text."""
    if schema_params(obj) is not None:
        return True
    try:
        inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return True


def open_signature(obj: Any) -> bool:
    """Whether ``obj``'s own signature may not list every parameter: none inspectable, or one taking
    ``*args``/``**kwargs`` (``TypedStorage.from_buffer(cls, *args, **kwargs)``)."""
    if schema_params(obj) is not None:
        return False
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def _annotation_classes(ann: Any) -> str:
    """`` module.Class`` for each class an annotation names (``Optional[X]`` included), for the pools."""
    out = []
    for arg in [ann] + list(getattr(ann, "__args__", ()) or ()):
        if isinstance(arg, type) and arg.__module__ not in ("builtins", "typing"):
            out.append(" %s.%s" % (arg.__module__, arg.__qualname__))
    return "".join(out)


def _split_top(text: str) -> List[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def params_from_text(text: str) -> List[Param]:
    inner = text.strip()
    if "->" in inner:
        inner = inner[: inner.rindex("->")].strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    out: List[Param] = []
    keyword = False
    for part in _split_top(inner):
        part = part.strip()
        if part == "/":
            for prev in out:
                prev["kind"] = "posonly"
            continue
        if part == "*":
            keyword = True
            continue
        if part.startswith("*"):
            out.append(
                {
                    "name": part.lstrip("*").split(":")[0],
                    "kind": "var",
                    "has_default": True,
                    "default_bool": False,
                    "annotation": "",
                }
            )
            continue
        head, _, default = part.partition("=")
        name, _, ann = head.partition(":")
        default = default.strip()
        out.append(
            {
                "name": name.strip(),
                "kind": "keyword" if keyword else "positional",
                "has_default": bool(default),
                "default_bool": default in ("True", "False"),
                "annotation": ann.strip(),
            }
        )
    return out


_TORCH_TYPES = (
    (r"^(Tensor\?|Tensor)$", "Tensor"),
    (r"tuple of Tensors|TensorList|Tensor\[\]", "List[Tensor]"),
    (r"^(int|SymInt)\??$", "int"),
    (r"tuple of (ints|SymInts)|IntArrayRef|SymIntArrayRef", "Size"),
    (r"^(float|Number|Scalar|double)\??$", "float"),
    (r"^bool\??$", "bool"),
    (r"^(ScalarType|dtype)\??$", "dtype"),
    (r"^(Device|device)\??$", "device"),
    (r"^(str|c10::string_view)\??$", "str"),
)


def _torch_type(text: str) -> str:
    for pattern, name in _TORCH_TYPES:
        if re.search(pattern, text.strip()):
            return name
    return text


def params_from_error(message: str) -> List[List[Param]]:
    """Parameter lists (one per overload) an error message lists; [] when it lists none."""
    out: List[List[Param]] = []
    for row in re.finditer(r"^\s*\* \((.*)\)\s*$", message, re.M):  # torch's argument parser
        params: List[Param] = []
        keyword = False
        for part in _split_top(row.group(1)):
            part = part.strip()
            if part == "*":
                keyword = True
                continue
            head, _, default = part.partition("=")
            words = head.split()
            if len(words) < 2:
                continue
            params.append(
                {
                    "name": words[-1],
                    "kind": "keyword" if keyword else "positional",
                    "has_default": bool(default.strip()),
                    "default_bool": default.strip() in ("True", "False"),
                    "annotation": _torch_type(" ".join(words[:-1])),
                }
            )
        out.append(params)
    for row in re.finditer(r"^\s*\d+\. [^(]*(\(.*\))(?: -> .*)?$", message, re.M):  # pybind11
        params = [p for p in params_from_text(row.group(1)) if p["name"] != "self"]
        out.append(params)
    m = re.search(r"missing \d+ required positional arguments?: (.*)$", message, re.M)
    if m and not out:
        names = re.findall(r"[\"']([A-Za-z_][A-Za-z0-9_]*)[\"']", m.group(1))
        out.append(
            [
                {
                    "name": n,
                    "kind": "positional",
                    "has_default": False,
                    "default_bool": False,
                    "annotation": "",
                    "missing": True,
                }
                for n in names
            ]
        )  # the receiver is bound already
    m = re.search(r"missing required argument '([A-Za-z_][A-Za-z0-9_]*)'", message)
    if m and not out:
        out.append(
            [
                {
                    "name": m.group(1),
                    "kind": "positional",
                    "has_default": False,
                    "default_bool": False,
                    "annotation": "",
                }
            ]
        )
    m = re.search(r"takes exactly one argument \(0 given\)", message)
    if m and not out:
        out.append(
            [
                {
                    "name": "arg",
                    "kind": "positional",
                    "has_default": False,
                    "default_bool": False,
                    "annotation": "",
                }
            ]
        )
    m = re.search(
        r"(?:[Rr]equires|[Ee]xpect(?:s|ed)|takes) (?:exactly )?(one|two|three|four|[1-4]) (?:positional )?"
        r"arguments?,? (?:but )?(?:got 0|\(?0 given|0 were given)",
        message,
    )
    if m and not out:
        n = {"one": 1, "two": 2, "three": 3, "four": 4}.get(m.group(1)) or int(m.group(1))
        out.append(
            [
                {
                    "name": "arg%d" % i,
                    "kind": "positional",
                    "has_default": False,
                    "default_bool": False,
                    "annotation": "",
                }
                for i in range(n)
            ]
        )
    return out[:3]


def doc_types(doc: Any) -> Dict[str, str]:
    out: Dict[str, str] = {}
    if not isinstance(doc, str):
        return out
    for m in re.finditer(r"^\s*\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)\)\s*:", doc, re.M):
        out.setdefault(m.group(1), m.group(2))
    return out


def vararg(param: Param) -> Param:
    """``*primals`` as an optional parameter given one value where a call asks for it (``func.vjp(f, x)``)."""
    return {
        "name": param["name"],
        "kind": "vararg",
        "has_default": True,
        "default_bool": False,
        "annotation": param.get("annotation", ""),
    }


def args_src(params: Sequence[Param], values: Sequence[Optional[str]]) -> str:
    pos: List[str] = []
    kw: List[str] = []
    omitted = False
    for i, p in enumerate(params):
        v = values[i]
        if v is None:
            omitted = True
            continue
        if (
            p["kind"] == "vararg"
        ):  # one value, in place; where an earlier one was left out it cannot be
            if not omitted and not kw:
                pos.append(v)
            continue
        if p["kind"] == "keyword" or (
            p["kind"] == "positional" and (omitted or kw or p["has_default"])
        ):
            kw.append("%s=%s" % (p["name"], v))
        else:
            pos.append(v)
    return ", ".join(pos + kw)


def ordered_product(lists: Sequence[Sequence[Any]], limit: int) -> List[Tuple[Any, ...]]:
    """Combinations of the lists' items, those made of earlier items first."""
    if not lists:
        return [()]
    combos = list(itertools.islice(itertools.product(*[range(len(x)) for x in lists]), 5000))
    combos.sort(key=lambda c: (sum(c), c))
    return [tuple(lists[i][j] for i, j in enumerate(c)) for c in combos[:limit]]


def doc_signature(fn: Any) -> str:
    doc = getattr(fn, "__doc__", None)
    if not isinstance(doc, str):
        return ""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    m = re.match(r"^[A-Za-z_.]+(\(.*\))", first)
    if not m:
        return ""
    text = m.group(1)
    text = re.sub(r"\[,\s*([A-Za-z_]+)\]", r", \1=None", text)
    return text
