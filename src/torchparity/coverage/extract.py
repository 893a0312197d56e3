"""One AST walk per test file: which names each test function and helper references, and through what.

The result depends on the file's bytes only (never on the alias table or the
other files), so it is cached per git blob id and shared by every branch and
run. Names are resolved through the file's own imports; values are followed
through locals, ``self`` attributes set in setUp, loop and ``with`` targets,
tuple unpacking, subscripts, arithmetic, helpers' return values and annotated
parameters, and written as chains (grammar in ``chains.py``). What the chains
*mean* (aliases, classes, which calls return a Tensor) is decided later, with a
table; what other files define (helpers, base classes) when a ref is indexed.

Facts (compact JSON, lists rather than objects)::

    {"v": VERSION, "err": null | "why the file was skipped",
     "s": ["", strings...],              the file's chains and vias, each once ("" first)
     "f": [[qualname, line, end_line, is_test, refs, calls, weak, ret, params], ...],
     "c": [[qualname, line, end_line, [base...], [test methods...]], ...],
     "m": [[dotted name, line], ...]}   mentions in the module's and classes' docstrings

    refs    [chain, kind, line, via, ...]: four ints a use, chain and via index "s";
            ``decode_refs`` gives [[chain, kind, line, via], ...]
    kind    KINDS[k]: "c" call | "w" with | "d" decorator | "a" attribute (named, not called)
    via     comma-joined tags: "l:x#3=torch.randn(...).npu()" local x (the first 3 parts of
            the chain are its value, shown as written) | "s:opt#2=..." self attribute |
            "i:sge" import alias | "m:X" module name | "h:f" returned by helper f |
            "f:ctx" pytest fixture | "q:assertTrue(callable(…))" an attribute use that is an
            argument of this assertion (``assertIsInstance(x, C)``, ``assert callable(C)``)
    calls   [[callee, [arg chain...], {keyword: chain}, line], ...]: helpers this function calls,
            with the chains of their arguments ("s" indexes; 0 unknown); callee is a qualname
            of this file, or "@dotted.name" of an imported function (resolved per ref)
    weak    dotted names mentioned in strings and docstrings
    ret     the chain (index into "s") the function returns, 0 when unknown; a helper's
            parameters appear in it (and in its refs) as $name
    params  the helper's parameter names (a method's without self), for its callers' arguments
    base    "=Qualname" a class of this file, or a chain (an imported class)
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Any

from .. import pyast

#: bump when the facts change shape or meaning: cached facts of another version are re-made
VERSION = 8
#: kind codes in the facts' refs
KINDS = "cwda"

#: names files use without importing (star imports from test helpers), by convention
CONVENTIONAL = {
    "torch": "torch",
    "F": "torch.nn.functional",
    "nn": "torch.nn",
    "optim": "torch.optim",
}

#: methods that run before each test: what they set on ``self`` every test can use
SETUP_METHODS = ("setUp", "setUpClass", "__init__", "setup_method", "setup_class")

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_MAX_WEAK = 200
#: alternatives kept for a name bound on several paths
_MAX_ALTS = 4
#: a chain longer than this is not followed further (generated code, huge literals)
_MAX_CHAIN = 600
#: a display with more elements than this is a sequence of their joined type
_MAX_DISPLAY = 6
#: nested functions inlined at their calls, this deep
_MAX_INLINE = 2

_BINOPS = {
    ast.Add: ("__add__", "__radd__"),
    ast.Sub: ("__sub__", "__rsub__"),
    ast.Mult: ("__mul__", "__rmul__"),
    ast.Div: ("__truediv__", "__rtruediv__"),
    ast.FloorDiv: ("__floordiv__", "__rfloordiv__"),
    ast.Mod: ("__mod__", "__rmod__"),
    ast.Pow: ("__pow__", "__rpow__"),
    ast.MatMult: ("__matmul__", "__rmatmul__"),
    ast.BitAnd: ("__and__", "__rand__"),
    ast.BitOr: ("__or__", "__ror__"),
    ast.BitXor: ("__xor__", "__rxor__"),
    ast.LShift: ("__lshift__", "__rlshift__"),
    ast.RShift: ("__rshift__", "__rrshift__"),
}
_COMPARE = {
    ast.Eq: ("__eq__", "__eq__"),
    ast.NotEq: ("__ne__", "__ne__"),
    ast.Lt: ("__lt__", "__gt__"),
    ast.LtE: ("__le__", "__ge__"),
    ast.Gt: ("__gt__", "__lt__"),
    ast.GtE: ("__ge__", "__le__"),
}
_UNARY = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__"}
_LITERALS = {
    bool: "builtins.bool",
    int: "builtins.int",
    float: "builtins.float",
    str: "builtins.str",
    bytes: "builtins.bytes",
    complex: "builtins.complex",
    type(None): "builtins.NoneType",
}
#: predicates whose argument(s) an assertion checks: which positions are the thing checked
_PREDICATES = {"isinstance": (1,), "issubclass": (0, 1), "callable": (0,), "hasattr": (0,)}
#: builtins that keep the element type of what they are given
_SEQ_OF_ELEMENTS = ("list", "tuple", "sorted", "reversed", "set", "frozenset")

# an environment entry: (chain, via) or None when the name is bound to something unknown
_Binding = tuple[str, str] | None


def _join_via(a: str, b: str) -> str:
    if not a:
        return b
    if not b or b == a:
        return a
    return f"{a},{b}"


_PREFIX = re.compile(r"#\d+=")


def _opaque(via: str) -> str:
    """The vias of a value that is no longer a prefix of the chain (an operand, an element): their
    names are kept, what they held is not said (``#0``)."""
    return _PREFIX.sub("#0=", via) if "#" in via else via


def _alts(values: list[_Binding], sep: str) -> _Binding:
    """Several bindings as one: ``{A|B}`` (agree) or ``{A?B}`` (first known); unknown ones left out."""
    known = [v for v in values if v is not None]
    chains = list(dict.fromkeys(v[0] for v in known))[:_MAX_ALTS]
    if not chains:
        return None
    if len(chains) == 1:
        return known[0]
    return ("{" + sep.join(chains) + "}", _opaque(known[0][1]))


_LAST_TAG = re.compile(r"^(?:(.*),)?([ls]):([^#,]*)#\d+=(.*)$")


def _joined(values: list[_Binding]) -> _Binding:
    """A name bound on several paths: the join, its via naming the name once with each path's source."""
    value = _alts(values, "|")
    if value is None or not value[0].startswith("{"):
        return value
    srcs: list[str] = []
    head = ""
    for v in values:
        m = _LAST_TAG.match(v[1]) if v is not None else None
        if m is None:
            continue
        head = f"{m.group(2)}:{m.group(3)}"
        if m.group(4) not in srcs:
            srcs.append(m.group(4))
    if not head:
        return value
    return (value[0], f"{head}#1={' or '.join(srcs)}")


def _parts(chain: str) -> int:
    """How many parts (atom, members) a chain has: the prefix of a longer chain it is."""
    depth = 0
    quoted = ""
    n = 1
    for ch in chain:
        if quoted:
            if ch == quoted:
                quoted = ""
        elif ch in "!#":
            quoted = ch
        elif ch in "{<([":
            depth += 1
        elif ch in "}>)]":
            depth -= 1
        elif ch == "." and depth == 0:
            n += 1
    return n


def show(node: ast.AST | None, limit: int = 60) -> str:
    """An expression as a person reads it, arguments elided: ``torch.randn(...).npu()``.

    Never a comma or a colon (the vias are comma-joined, their tags colon-split)."""
    text = _show(node)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _show(node: ast.AST | None) -> str:
    t = type(node)
    if t is ast.Name:
        return node.id  # type: ignore[union-attr]
    if t is ast.Attribute:
        return f"{_show(node.value)}.{node.attr}"  # type: ignore[union-attr]
    if t is ast.Call:
        has_args = bool(node.args or node.keywords)  # type: ignore[union-attr]
        return f"{_show(node.func)}({'...' if has_args else ''})"  # type: ignore[union-attr]
    if t is ast.Subscript:
        s = node.slice  # type: ignore[union-attr]
        inner = str(s.value) if isinstance(s, ast.Constant) and isinstance(s.value, int) else "..."
        return f"{_show(node.value)}[{inner}]"  # type: ignore[union-attr]
    if t is ast.Constant:
        v = node.value  # type: ignore[union-attr]
        text = repr(v)
        return text if len(text) < 20 and "," not in text and ":" not in text else type(v).__name__
    if t is ast.BinOp:
        return f"{_show(node.left)} {_OPSIGN.get(type(node.op), '?')} {_show(node.right)}"  # type: ignore[union-attr]
    if t is ast.UnaryOp:
        return f"-{_show(node.operand)}" if isinstance(node.op, ast.USub) else _show(node.operand)  # type: ignore[union-attr]
    if t in (ast.Tuple, ast.List):
        return "(...)" if t is ast.Tuple else "[...]"
    return "…"


_OPSIGN = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.MatMult: "@",
    ast.Pow: "**",
    ast.FloorDiv: "//",
    ast.Mod: "%",
}


class _Func:
    """What one function (test or helper) references, while it is being walked."""

    __slots__ = (
        "qual",
        "line",
        "end",
        "is_test",
        "refs",
        "seen",
        "calls",
        "weak",
        "rets",
        "params",
        "yields",
        "loaded",
        "pending",
    )

    def __init__(self, qual: str, line: int, end: int, is_test: bool) -> None:
        self.qual = qual
        self.line = line
        self.end = end
        self.is_test = is_test
        self.refs: list[list[Any]] = []
        self.seen: set[tuple[str, str, str]] = set()
        self.calls: list[tuple[str, list[str], dict[str, str], int]] = []
        self.weak: list[str] = []
        self.rets: list[_Binding] = []
        self.yields: list[_Binding] = []
        self.params: list[str] = []
        #: names read in the function (a nested def nobody names is dead code)
        self.loaded: set[str] = set()
        #: nested defs not (yet) named: their uses join the function once a read names them
        self.pending: list[tuple[str, _Func]] = []

    def absorb(self, other: _Func) -> None:
        for ref in other.refs:
            self.add(*ref)
        for callee, args, kws, line in other.calls:
            self.call(callee, args, kws, line)
        for w in other.weak:
            if w not in self.weak:
                self.weak.append(w)

    def settle(self) -> None:
        """Take in the uses of the nested defs the function names (calls them, passes them on)."""
        changed = True
        while changed and self.pending:
            changed = False
            for item in list(self.pending):
                if item[0] in self.loaded:
                    self.pending.remove(item)
                    self.absorb(item[1])
                    self.loaded |= item[1].loaded
                    changed = True

    def add(self, chain: str, kind: str, line: int, via: str) -> None:
        key = (chain, kind, via)
        if key not in self.seen:
            self.seen.add(key)
            self.refs.append([chain, kind, line, via])

    def call(self, callee: str, args: list[str], kws: dict[str, str], line: int = 0) -> None:
        if callee == self.qual or any(c[:3] == (callee, args, kws) for c in self.calls):
            return
        self.calls.append((callee, args, kws, line))

    @property
    def ret(self) -> str | None:
        """What the function returns (yields, for a generator): every path's value, joined."""
        value = _alts(self.yields if self.yields else self.rets, "|")
        return value[0] if value else None

    def facts(self, strings: dict[str, int]) -> list[Any]:
        def s(text: str) -> int:
            return strings.setdefault(text, len(strings))

        flat: list[int] = []
        for chain, kind, line, via in self.refs:
            flat += (s(chain), KINDS.index(kind), line, s(via))
        calls = [
            [c, [s(a) if a else 0 for a in args], {k: s(v) for k, v in kws.items() if v}, line]
            for c, args, kws, line in self.calls
        ]
        ret = self.ret
        return [
            self.qual,
            self.line,
            self.end,
            1 if self.is_test else 0,
            flat,
            calls,
            self.weak,
            s(ret) if ret else 0,
            self.params,
        ]


class _Class:
    __slots__ = ("qual", "node", "bases", "methods", "attrs", "base_specs")

    def __init__(self, qual: str, node: ast.ClassDef) -> None:
        self.qual = qual
        self.node = node
        self.bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
        self.methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        #: ``self.X`` set by setUp-like methods: X -> binding
        self.attrs: dict[str, _Binding] = {}
        self.base_specs: list[str] = []


class _Walker:
    """Walks one module. ``scopes`` is a stack: module, then function(s)."""

    def __init__(self) -> None:
        self.module: dict[str, _Binding] = {}
        self.scopes: list[dict[str, _Binding]] = [self.module]
        self.helpers: dict[str, str] = {}  # module-level function name -> qualname
        self.returns: dict[str, str | None] = {}  # helper qualname -> returned chain
        self.params: dict[str, list[str]] = {}  # helper qualname -> parameter names
        self.classes: dict[str, _Class] = {}  # simple name -> class (module level or nested)
        self.imported: set[str] = set()  # names bound by imports (module level)
        self.cls: _Class | None = None
        self.func: _Func | None = None
        self.out: list[_Func] = []
        #: nested defs visible in the current function(s): name -> node
        self.local_defs: list[dict[str, ast.FunctionDef | ast.AsyncFunctionDef]] = [{}]
        self.inlining = 0
        #: names (and dotted names) that are an argument of an assertion: node id -> the assertion
        self.asserted: dict[int, str] = {}

    # -- names -----------------------------------------------------------------------
    def lookup(self, name: str) -> _Binding:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in CONVENTIONAL:
            return (CONVENTIONAL[name], "")
        return None

    def bound_anywhere(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes) or name in CONVENTIONAL

    def bind(self, name: str, value: _Binding) -> None:
        self.scopes[-1][name] = value

    def bind_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    self.bind(
                        a.asname,
                        (a.name, f"i:{a.asname}" if a.asname != a.name.rsplit(".", 1)[-1] else ""),
                    )
                    self.imported.add(a.asname)
                else:
                    head = a.name.split(".", 1)[0]
                    self.bind(head, (head, ""))
                    self.imported.add(head)
            return
        if node.level:  # relative: __rel1__.module.name, resolved against the file's folder per ref
            module = f"__rel{node.level}__" + (f".{node.module}" if node.module else "")
        elif node.module:
            module = node.module
        else:
            return
        for a in node.names:
            if a.name == "*":
                continue
            full = f"{module}.{a.name}"
            local = a.asname or a.name
            self.imported.add(local)
            if a.asname and a.asname != a.name:
                self.bind(a.asname, (full, f"i:{a.asname}"))
            else:
                self.bind(a.name, (full, ""))

    # -- expressions -----------------------------------------------------------------
    def use(self, node: ast.AST | None, kind: str = "a") -> _Binding:
        """Record what ``node`` references (its longest chain) and return its value."""
        if node is None:
            return None
        t = type(node)
        if t in _CHAIN_NODES:
            value = self.eval(node)
            if value is not None and self.func is not None:
                chain, via = value
                # a helper's call is not a use of what it returns: its own uses come with it (calls)
                if _recordable(chain) and not (t is ast.Call and self.called_function(node.func)):  # type: ignore[attr-defined]
                    if t is ast.Call and kind == "a":
                        kind = "c"
                    elif kind == "a" and id(node) in self.asserted:
                        via = _join_via(via, f"q:{self.asserted[id(node)]}")
                    self.func.add(chain, kind, node.lineno, via)  # type: ignore[attr-defined]
            return value
        if t is ast.Constant:
            if isinstance(node.value, str) and self.func is not None:  # type: ignore[attr-defined]
                self.mention(node.value)  # type: ignore[attr-defined]
            return self.eval(node)
        if t is ast.Lambda:
            self.use(node.body)  # type: ignore[attr-defined]
            return None
        if t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            return self.comprehension(node)
        if t is ast.NamedExpr:
            value = self.use(node.value)  # type: ignore[attr-defined]
            self.assign(node.target, value, node.value)  # type: ignore[attr-defined]
            return value
        if t in (ast.Tuple, ast.List):
            elems = [self.use(e) for e in node.elts]  # type: ignore[attr-defined]
            return self.display(node, elems)
        if t is ast.IfExp:
            self.use(node.test)  # type: ignore[attr-defined]
            return _alts([self.use(node.body), self.use(node.orelse)], "|")  # type: ignore[attr-defined]
        if t is ast.BoolOp:
            return _alts([self.use(v) for v in node.values], "|")  # type: ignore[attr-defined]
        if t is ast.JoinedStr:
            for child in ast.iter_child_nodes(node):
                self.use(child)
            return ("#builtins.str#", "")
        if t in (ast.Dict, ast.Set):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.use(child)
            return ("#builtins.dict#" if t is ast.Dict else "#builtins.set#", "")
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.use(child)
        return None

    def display(self, node: ast.AST, elems: list[_Binding]) -> _Binding:
        """``(a, b)`` / ``[a, b]``: a tuple of what each element is; a sequence of one kind when every
        element is the same (``[torch.int8, torch.int16]`` stays short) or when there are many."""
        if any(isinstance(e, ast.Starred) for e in node.elts):  # type: ignore[attr-defined]
            return None
        chains = [e[0] if e is not None else "~" for e in elems]
        distinct = list(dict.fromkeys(chains))
        if len(chains) > 1 and (len(distinct) == 1 or len(chains) > _MAX_DISPLAY):
            joined = (
                _alts([e for e in elems if e is not None], "|") if "~" not in distinct else None
            )
            return (
                (f"[{joined[0]}]", "")
                if joined is not None and len(joined[0]) <= _MAX_CHAIN
                else None
            )
        text = "<" + ",".join(chains) + ">"
        return (text, "") if len(text) <= _MAX_CHAIN else None

    def comprehension(self, node: ast.AST) -> _Binding:
        self.scopes.append({})
        try:
            for gen in node.generators:  # type: ignore[attr-defined]
                it = self.use(gen.iter)
                self.assign(gen.target, self.element(it), None)
                for cond in gen.ifs:
                    self.use(cond)
            if type(node) is ast.DictComp:
                self.use(node.key)
                self.use(node.value)
                return ("#builtins.dict#", "")
            elt = self.use(node.elt)  # type: ignore[attr-defined]
        finally:
            self.scopes.pop()
        return (f"[{elt[0]}]", _opaque(elt[1])) if elt is not None else None

    def element(self, value: _Binding) -> _Binding:
        """What iterating ``value`` gives."""
        if value is None:
            return None
        return (f"{value[0]}[]", value[1])

    def eval(self, node: ast.AST) -> _Binding:
        """The chain ``node`` evaluates to, visiting the arguments of its calls."""
        t = type(node)
        if t is ast.Name:
            if self.func is not None:
                self.func.loaded.add(node.id)  # type: ignore[attr-defined]
            return self.lookup(node.id)  # type: ignore[attr-defined]
        if t is ast.Attribute:
            base = node.value  # type: ignore[attr-defined]
            attr = node.attr  # type: ignore[attr-defined]
            if type(base) is ast.Name and base.id in ("self", "cls"):
                return self.self_attr(attr)
            value = self.eval(base)
            if value is None:
                return None
            return _extend(value, f".{attr}")
        if t is ast.Call:
            return self.call(node)  # type: ignore[arg-type]
        if t is ast.Subscript:
            value = self.eval(node.value)  # type: ignore[attr-defined]
            index = self.index(node.slice)  # type: ignore[attr-defined]
            return None if value is None else _extend(value, index)
        if t is ast.BinOp:
            op = _BINOPS.get(type(node.op))  # type: ignore[attr-defined]
            left, right = self.use(node.left), self.use(node.right)  # type: ignore[attr-defined]
            return self.operator(left, right, op) if op else None
        if t is ast.Compare:
            left = self.use(node.left)  # type: ignore[attr-defined]
            rights = [self.use(c) for c in node.comparators]  # type: ignore[attr-defined]
            op = _COMPARE.get(type(node.ops[0])) if len(node.ops) == 1 else None  # type: ignore[attr-defined]
            if op is None:
                return ("#builtins.bool#", "")
            return self.operator(left, rights[0], op)
        if t is ast.UnaryOp:
            value = self.use(node.operand)  # type: ignore[attr-defined]
            if isinstance(node.op, ast.Not):  # type: ignore[attr-defined]
                return ("#builtins.bool#", "")
            dunder = _UNARY.get(type(node.op))  # type: ignore[attr-defined]
            return None if value is None or dunder is None else _extend(value, f".{dunder}()")
        if t is ast.Constant:
            lit = _LITERALS.get(type(node.value))  # type: ignore[attr-defined]
            return (f"#{lit}#", "") if lit else None
        return self.use(node)

    def operator(self, left: _Binding, right: _Binding, op: tuple[str, str]) -> _Binding:
        forward = _extend(left, f".{op[0]}()") if left is not None else None
        backward = _extend(right, f".{op[1]}()") if right is not None else None
        return _alts([forward, backward], "?")

    def index(self, node: ast.AST) -> str:
        self.use(node)
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int)
            and not isinstance(node.value, bool)
        ):
            return f"[{node.value}]" if node.value >= 0 else "[]"
        return "[]"

    def mark_assertion(self, args: list[ast.expr], form: str) -> None:
        """The names an assertion checks: its plain arguments (``assertIsInstance(x, C)``: x and C) and
        what a predicate in it checks (``assertTrue(callable(C) or hasattr(C, "a"))``). Not a name in a
        display or a comparison (``assertIsInstance(x, (A, B))``, ``assertTrue(t == C)``)."""
        for arg in args:
            t = type(arg)
            if t is ast.Name or t is ast.Attribute:
                self.asserted.setdefault(id(arg), f"{form}(…)" if form != "assert" else "assert …")
            elif t is ast.BoolOp:
                self.mark_assertion(arg.values, form)  # type: ignore[attr-defined]
            elif t is ast.UnaryOp and type(arg.op) is ast.Not:  # type: ignore[attr-defined]
                self.mark_assertion([arg.operand], form)  # type: ignore[attr-defined]
            elif (
                t is ast.Call
                and type(arg.func) is ast.Name  # type: ignore[attr-defined]
                and arg.func.id in _PREDICATES  # type: ignore[attr-defined]
                and not self.bound_anywhere(arg.func.id)  # type: ignore[attr-defined]
            ):
                pred = arg.func.id  # type: ignore[attr-defined]
                checked = f"{form} {pred}(…)" if form == "assert" else f"{form}({pred}(…))"
                for i in _PREDICATES[pred]:
                    if i < len(arg.args):  # type: ignore[attr-defined]
                        a = arg.args[i]  # type: ignore[attr-defined]
                        if type(a) is ast.Name or type(a) is ast.Attribute:
                            self.asserted.setdefault(id(a), checked)

    def call(self, node: ast.Call) -> _Binding:
        func = node.func
        if self.func is not None:
            name = (
                func.attr
                if type(func) is ast.Attribute
                else func.id
                if type(func) is ast.Name
                else ""
            )
            if name.startswith("assert"):
                self.mark_assertion([*node.args, *(kw.value for kw in node.keywords)], name)
        args = [self.use(a) for a in node.args]
        kws = {kw.arg: self.use(kw.value) for kw in node.keywords if kw.arg}
        for kw in node.keywords:
            if not kw.arg:
                self.use(kw.value)
        nested = self.nested_called(func)
        if nested is not None:
            self.func.loaded.add(nested.name)  # type: ignore[union-attr]
            return self.inline(nested, node, args, kws)
        helper = self.helper_called(func)
        if helper is not None:
            arg_chains = [a[0] if a is not None else "" for a in args]
            kw_chains = {k: v[0] for k, v in kws.items() if v is not None}
            if self.func is not None:
                self.func.call(helper, arg_chains, kw_chains, node.lineno)
            ret = self.returns.get(helper)
            name = helper.rsplit(".", 1)[-1]
            if not ret:
                return None
            ret = _substitute(ret, self.params.get(helper, []), arg_chains, kw_chains)
            return (ret, f"h:{name}") if ret and "$" not in ret else None
        if type(func) is ast.Name and not self.bound_anywhere(func.id):
            special = self.builtin(func.id, args)
            if special is not None or func.id in (
                "range",
                "len",
                "isinstance",
                "print",
                "str",
                "int",
            ):
                return special
        value = self.eval(func)
        if value is None:
            return None
        if value[0] in ("copy.deepcopy", "copy.copy") and args and args[0] is not None:
            return args[0]  # a copy has the type of what is copied
        if self.func is not None and _imported_callable(value[0], func, self.imported):
            self.func.call(
                "@" + value[0],
                [a[0] if a is not None else "" for a in args],
                {k: v[0] for k, v in kws.items() if v is not None},
                node.lineno,
            )
        return _extend(value, "()")

    def builtin(self, name: str, args: list[_Binding]) -> _Binding:
        if name == "enumerate" and args:
            elem = self.element(args[0])
            return (f"[<#builtins.int#,{elem[0]}>]", _opaque(elem[1])) if elem is not None else None
        if name == "zip" and args:
            elems = [self.element(a) for a in args]
            chains = [e[0] if e is not None else "~" for e in elems]
            return (f"[<{','.join(chains)}>]", _opaque(next((e[1] for e in elems if e), "")))
        if name in _SEQ_OF_ELEMENTS and args:
            elem = self.element(args[0])
            return (f"[{elem[0]}]", _opaque(elem[1])) if elem is not None else None
        if name == "iter" and args:
            return args[0]
        if name == "next" and args:
            return self.element(args[0])
        if name == "range":
            return ("[#builtins.int#]", "")
        if name in ("len", "int", "sum", "hash", "id"):
            return ("#builtins.int#", "")
        if name in ("str", "repr", "format"):
            return ("#builtins.str#", "")
        if name in ("isinstance", "issubclass", "hasattr", "callable", "bool", "all", "any"):
            return ("#builtins.bool#", "")
        return None

    def self_attr(self, attr: str) -> _Binding:
        """``self.attr``: a local binding, a setUp attribute, or nothing known."""
        key = f"self.{attr}"
        for scope in reversed(self.scopes[1:]):
            if key in scope:
                return scope[key]
        cls = self.cls
        seen: set[str] = set()
        while cls is not None and cls.qual not in seen:
            seen.add(cls.qual)
            if attr in cls.attrs:
                return cls.attrs[attr]
            cls = next((self.classes[b] for b in cls.bases if b in self.classes), None)
        return None

    def called_function(self, func: ast.AST) -> bool:
        """Whether ``func`` names a helper or nested def: a call of it is no use of what it returns."""
        return self.nested_called(func) is not None or self.helper_called(func) is not None

    def nested_called(self, func: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        if type(func) is not ast.Name or self.func is None:
            return None
        name = func.id
        for defs in reversed(self.local_defs[1:]):
            if name in defs:
                return defs[name]
        return None

    def inline(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        call: ast.Call,
        args: list[_Binding],
        kws: dict[str, _Binding],
    ) -> _Binding:
        """A nested function called here: its body again, with its parameters bound to the arguments."""
        if self.inlining >= _MAX_INLINE or self.func is None:
            return None
        scope: dict[str, _Binding] = {}
        names = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
        for name, value in zip(names, args, strict=False):
            scope[name] = None if value is None else (value[0], _join_via(value[1], f"p:{name}"))
        for name, value in kws.items():
            if name in names or any(a.arg == name for a in node.args.kwonlyargs):
                scope[name] = (
                    None if value is None else (value[0], _join_via(value[1], f"p:{name}"))
                )
        func = self.func
        saved_rets, saved_yields = func.rets, func.yields
        func.rets, func.yields = [], []
        self.inlining += 1
        self.scopes.append(scope)
        self.local_defs.append({})
        try:
            self.stmts(node.body)
            ret = func.ret
        finally:
            self.local_defs.pop()
            self.scopes.pop()
            self.inlining -= 1
            func.rets, func.yields = saved_rets, saved_yields
        return (ret, "") if ret and "$" not in ret else None

    def helper_called(self, func: ast.AST) -> str | None:
        """The qualname of a same-file helper that ``func`` names, if it names one."""
        if type(func) is ast.Name:
            name = func.id
            if name in self.helpers and all(name not in s for s in self.scopes[1:]):
                return self.helpers[name]
            return None
        if (
            type(func) is ast.Attribute
            and type(func.value) is ast.Name
            and func.value.id in ("self", "cls")
        ):
            cls = self.cls
            seen: set[str] = set()
            while cls is not None and cls.qual not in seen:
                seen.add(cls.qual)
                meth = cls.methods.get(func.attr)
                if meth is not None and not meth.name.startswith("test"):
                    return f"{cls.qual}.{meth.name}"
                cls = next((self.classes[b] for b in cls.bases if b in self.classes), None)
        return None

    def mention(self, text: str) -> None:
        func = self.func
        if func is None or "." not in text or len(func.weak) >= _MAX_WEAK:
            return
        for token in _DOTTED.findall(text):
            if token not in func.weak:
                func.weak.append(token)
                if len(func.weak) >= _MAX_WEAK:
                    return

    def assign(self, target: ast.AST, value: _Binding, src: ast.AST | _Index | None) -> None:
        t = type(target)
        if t is ast.Name:
            self.bind(target.id, self.local(target, value, src))  # type: ignore[attr-defined]
        elif (
            t is ast.Attribute
            and type(target.value) is ast.Name  # type: ignore[attr-defined]
            and target.value.id in ("self", "cls")  # type: ignore[attr-defined]
        ):
            if len(self.scopes) > 1:
                self.bind(f"self.{target.attr}", self.local(target, value, src))  # type: ignore[attr-defined]
        elif t in (ast.Tuple, ast.List):
            elts = target.elts  # type: ignore[attr-defined]
            star = next((i for i, e in enumerate(elts) if isinstance(e, ast.Starred)), None)
            srcs = (
                src.elts
                if isinstance(src, (ast.Tuple, ast.List)) and len(src.elts) == len(elts)
                else None
            )
            for i, elt in enumerate(elts):
                if isinstance(elt, ast.Starred):
                    self.assign(elt.value, None, None)
                    continue
                if value is None or (star is not None and i > star):
                    self.assign(elt, None, None)
                    continue
                self.assign(elt, _extend(value, f"[{i}]"), srcs[i] if srcs else _Index(src, i))
        else:
            self.use(target)

    def local(self, target: ast.AST, value: _Binding, src: ast.AST | _Index | None) -> _Binding:
        """A value bound to a name is reached 'via' that name from then on (with what it was bound to)."""
        if value is None or len(value[0]) > _MAX_CHAIN:
            return None
        shown = src.text if isinstance(src, _Index) else show(src) if src is not None else "…"
        n = _parts(value[0])
        if type(target) is ast.Name:
            return (value[0], _join_via(value[1], f"l:{target.id}#{n}={shown}"))
        if type(target) is ast.Attribute:
            return (value[0], _join_via(value[1], f"s:{target.attr}#{n}={shown}"))
        return value

    # -- statements ------------------------------------------------------------------
    def stmts(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def branches(self, bodies: list[list[ast.stmt]], fallthrough: bool) -> None:
        """Bodies one of which runs (``fallthrough``: or none): a name bound differently is a join."""
        before = dict(self.scopes[-1])
        ends: list[dict[str, _Binding]] = []
        for body in bodies:
            self.scopes[-1] = dict(before)
            self.stmts(body)
            ends.append(self.scopes[-1])
        if fallthrough:
            ends.append(before)
        merged: dict[str, _Binding] = {}
        for key in dict.fromkeys(k for end in ends for k in end):
            values = [end.get(key, before.get(key)) for end in ends]
            first = values[0]
            merged[key] = first if all(v == first for v in values) else _joined(values)
        self.scopes[-1] = merged

    def stmt(self, node: ast.stmt) -> None:
        t = type(node)
        if t is ast.Expr:
            value = node.value  # type: ignore[attr-defined]
            if isinstance(value, (ast.Yield, ast.YieldFrom)):
                got = self.use(value.value)
                if self.func is not None:
                    self.func.yields.append(
                        got if isinstance(value, ast.Yield) else self.element(got)
                    )
                return
            self.use(value)
        elif t is ast.Assign:
            value = self.use(node.value)  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                self.assign(target, value, node.value)  # type: ignore[attr-defined]
        elif t is ast.AnnAssign:
            value = self.use(node.value) if node.value is not None else None  # type: ignore[attr-defined]
            if value is None:
                value = self.annotation(node.annotation)  # type: ignore[attr-defined]
            if node.value is not None or type(node.target) is ast.Name:  # type: ignore[attr-defined]
                self.assign(node.target, value, node.value or node.annotation)  # type: ignore[attr-defined]
        elif t is ast.AugAssign:
            self.use(node.value)  # type: ignore[attr-defined]
            self.use(node.target)  # type: ignore[attr-defined]  # an in-place operator keeps the type
        elif t is ast.With or t is ast.AsyncWith:
            for item in node.items:  # type: ignore[attr-defined]
                value = self.use(item.context_expr, "w")
                if item.optional_vars is not None:
                    entered = _extend(value, ".__enter__()") if value is not None else None
                    self.assign(item.optional_vars, entered, item.context_expr)
            self.stmts(node.body)  # type: ignore[attr-defined]
        elif t is ast.Return:
            value = self.use(node.value) if node.value is not None else ("#builtins.NoneType#", "")  # type: ignore[attr-defined]
            if self.func is not None:
                self.func.rets.append(value)
        elif t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            self.nested_function(node)  # type: ignore[arg-type]
        elif t is ast.ClassDef:
            for deco in node.decorator_list:  # type: ignore[attr-defined]
                self.use(deco, "d")
            for base in node.bases:  # type: ignore[attr-defined]
                self.use(base)
            self.scopes.append({})
            self.stmts(node.body)  # type: ignore[attr-defined]
            self.scopes.pop()
            self.bind(node.name, None)  # type: ignore[attr-defined]
        elif t is ast.Import or t is ast.ImportFrom:
            self.bind_import(node)  # type: ignore[arg-type]
        elif t is ast.For or t is ast.AsyncFor:
            it = self.use(node.iter)  # type: ignore[attr-defined]
            self.assign(node.target, self.element(it), node.iter)  # type: ignore[attr-defined]
            self.loop(node.body, node.orelse)  # type: ignore[attr-defined]
        elif t is ast.While:
            self.use(node.test)  # type: ignore[attr-defined]
            self.loop(node.body, node.orelse)  # type: ignore[attr-defined]
        elif t is ast.If:
            self.use(node.test)  # type: ignore[attr-defined]
            self.branches([node.body, node.orelse], False)  # type: ignore[attr-defined]
        elif t is ast.Try or t.__name__ == "TryStar":
            self.stmts(node.body)  # type: ignore[attr-defined]
            bodies = []
            for handler in node.handlers:  # type: ignore[attr-defined]
                self.use(handler.type)
                if handler.name:
                    self.bind(handler.name, None)
                bodies.append(handler.body)
            self.branches([node.orelse, *bodies], False)  # type: ignore[attr-defined]
            self.stmts(node.finalbody)  # type: ignore[attr-defined]
        elif t.__name__ == "Match":
            self.use(node.subject)  # type: ignore[attr-defined]
            for case in node.cases:  # type: ignore[attr-defined]
                self.use(case.guard)
            self.branches([c.body for c in node.cases], True)  # type: ignore[attr-defined]
        elif t is ast.Assert:
            if self.func is not None:
                self.mark_assertion([node.test], "assert")  # type: ignore[attr-defined]
            self.use(node.test)  # type: ignore[attr-defined]
            self.use(node.msg)  # type: ignore[attr-defined]
        elif t is ast.Delete:
            for target in node.targets:  # type: ignore[attr-defined]
                if isinstance(target, ast.Name):
                    self.bind(target.id, None)
                else:
                    self.use(target)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    self.stmt(child)
                elif isinstance(child, ast.expr):
                    self.use(child)

    def loop(self, body: list[ast.stmt], orelse: list[ast.stmt]) -> None:
        """A loop body runs zero or more times: what it binds joins what was there before."""
        self.branches([body], True)
        self.stmts(orelse)

    def annotation(self, node: ast.AST | None) -> _Binding:
        """An annotated name holds an instance of the annotated class (Optional[X] is X)."""
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = pyast.parse_expression(node.value).body
            except SyntaxError:
                return None
        if isinstance(node, ast.Subscript) and _show(node.value).rsplit(".", 1)[-1] == "Optional":
            node = node.slice
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            if isinstance(node.right, ast.Constant) and node.right.value is None:
                node = node.left
            elif isinstance(node.left, ast.Constant) and node.left.value is None:
                node = node.right
        if not isinstance(node, (ast.Name, ast.Attribute)):
            return None
        value = self.eval(node)
        if value is None or not _PLAIN.fullmatch(value[0]):
            return None
        return (f"!{value[0]}!", "")

    def arguments(
        self, args: ast.arguments, scope: dict[str, _Binding], placeholders: bool
    ) -> list[str]:
        """Bind a function's parameters; a helper's unannotated ones are $name (its callers say what)."""
        for default in [*args.defaults, *args.kw_defaults]:
            self.use(default)
        names: list[str] = []
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if a is None:
                continue
            value = self.annotation(a.annotation) if a.annotation is not None else None
            if value is not None:
                value = (value[0], f"a:{a.arg}#1={show(a.annotation)}")
            elif placeholders and a is not args.vararg and a is not args.kwarg:
                value = (f"${a.arg}", "")
            scope[a.arg] = value
            if a is not args.vararg and a is not args.kwarg:
                names.append(a.arg)
        return names

    def nested_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A function inside a test or helper: its uses belong to the enclosing function once the
        function names it (calls it, passes it on, decorates it); a nested def nobody names does not count."""
        for deco in node.decorator_list:
            self.use(deco, "d")
        scope: dict[str, _Binding] = {}
        self.arguments(node.args, scope, False)
        self.bind(node.name, None)
        self.local_defs[-1][node.name] = node
        self.scopes.append(scope)
        self.local_defs.append({})
        func = self.func
        scratch = (
            _Func(node.name, node.lineno, node.end_lineno or node.lineno, False) if func else None
        )
        self.func = scratch
        self.stmts(node.body)
        if scratch is not None:
            scratch.settle()
        self.func = func
        self.local_defs.pop()
        self.scopes.pop()
        if func is not None and scratch is not None:
            if node.decorator_list:
                func.absorb(scratch)
            else:
                func.pending.append((node.name, scratch))

    # -- functions and classes -------------------------------------------------------
    def function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        qual: str,
        is_test: bool,
        cls: _Class | None,
    ) -> _Func:
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        func = _Func(qual, start, node.end_lineno or node.lineno, is_test)
        self.func, self.cls = func, cls
        for deco in node.decorator_list:
            self.use(deco, "d")
        scope: dict[str, _Binding] = {}
        placeholders = not is_test and node.name not in SETUP_METHODS
        names = self.arguments(node.args, scope, placeholders)
        is_static = any(_show(d) == "staticmethod" for d in node.decorator_list)
        if cls is not None and not is_static and names:
            scope[names[0]] = None  # self / cls
            names = names[1:]
        func.params = names
        if is_test:  # pytest fixtures: a parameter named after a same-file function is its value
            for name in list(scope):
                fixture = self.helpers.get(name, "")
                ret = self.returns.get(fixture)
                if ret and "$" not in ret:
                    scope[name] = (ret, f"f:{name}")
                    func.call(fixture, [], {})
        self.scopes.append(scope)
        self.local_defs.append({})
        self.stmts(node.body)
        func.settle()
        self.local_defs.pop()
        self.scopes.pop()
        if cls is not None and node.name in SETUP_METHODS:
            for key, value in scope.items():
                if key.startswith("self."):
                    cls.attrs[key[5:]] = value
        self.func, self.cls = None, None
        self.out.append(func)
        return func

    def collect_classes(self, body: list[ast.stmt], prefix: str) -> list[_Class]:
        found: list[_Class] = []
        for node in body:
            if isinstance(node, ast.ClassDef):
                cls = _Class(f"{prefix}{node.name}", node)
                self.classes.setdefault(node.name, cls)
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        cls.methods[item.name] = item
                found.append(cls)
                found.extend(self.collect_classes(node.body, f"{cls.qual}."))
        return found

    def module_level(self, body: list[ast.stmt]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """Imports and simple assignments at module level (also inside if/try); returns the defs."""
        defs: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        for node in body:
            t = type(node)
            if t is ast.Import or t is ast.ImportFrom:
                self.bind_import(node)  # type: ignore[arg-type]
            elif t is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:  # type: ignore[attr-defined]
                value = self.eval(node.value)  # type: ignore[attr-defined]
                name = node.targets[0].id  # type: ignore[attr-defined]
                self.bind(
                    name, None if value is None else (value[0], _join_via(value[1], f"m:{name}"))
                )
            elif t is ast.FunctionDef or t is ast.AsyncFunctionDef:
                defs.append(node)  # type: ignore[arg-type]
                if not node.name.startswith("test"):  # type: ignore[attr-defined]
                    self.helpers[node.name] = node.name  # type: ignore[attr-defined]
                self.module.pop(node.name, None)  # type: ignore[attr-defined]
            elif t is ast.If:
                defs.extend(self.module_level(node.body))  # type: ignore[attr-defined]
                defs.extend(self.module_level(node.orelse))  # type: ignore[attr-defined]
            elif t is ast.Try:
                defs.extend(self.module_level(node.body))  # type: ignore[attr-defined]
                for handler in node.handlers:  # type: ignore[attr-defined]
                    defs.extend(self.module_level(handler.body))
                defs.extend(self.module_level(node.orelse))  # type: ignore[attr-defined]
        return defs

    def helper_done(self, func: _Func, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A helper's result: its declared return type first, what its body returns after it."""
        ret = func.ret
        declared = self.annotation(node.returns) if node.returns is not None else None
        if declared is not None:
            ret = declared[0] if not ret else "{" + declared[0] + "?" + ret + "}"
            func.rets, func.yields = [(ret, "")], []
        self.returns[func.qual] = ret
        self.params[func.qual] = func.params

    def run(self, tree: ast.Module) -> list[list[Any]]:
        defs = self.module_level(tree.body)
        classes = self.collect_classes(tree.body, "")
        for cls in classes:
            for base in cls.node.bases:
                if isinstance(base, ast.Name) and base.id in self.classes:
                    cls.base_specs.append("=" + self.classes[base.id].qual)
                else:
                    value = self.eval(base)
                    if value is not None and _PLAIN.fullmatch(value[0]):
                        cls.base_specs.append(value[0])
        # helpers first (their return values feed the tests' data flow), then setUp, then tests
        for node in defs:
            if not node.name.startswith("test"):
                self.helper_done(self.function(node, node.name, False, None), node)
        for cls in classes:
            for name in SETUP_METHODS:
                if name in cls.methods:
                    self.function(cls.methods[name], f"{cls.qual}.{name}", False, cls)
        for cls in classes:
            for name, meth in cls.methods.items():
                if not name.startswith("test") and name not in SETUP_METHODS:
                    self.helper_done(self.function(meth, f"{cls.qual}.{name}", False, cls), meth)
        for node in defs:
            if node.name.startswith("test"):
                self.function(node, node.name, True, None)
        for cls in classes:
            setups = [f"{cls.qual}.{n}" for n in SETUP_METHODS if n in cls.methods]
            for name, meth in cls.methods.items():
                if name.startswith("test"):
                    func = self.function(meth, f"{cls.qual}.{name}", True, cls)
                    func.calls[:0] = [
                        (s, [], {}, 0) for s in setups if all(c[0] != s for c in func.calls)
                    ]
        self.inherit_same_file(classes)
        return [
            [
                c.qual,
                c.node.lineno,
                c.node.end_lineno or c.node.lineno,
                c.base_specs,
                [m for m in c.methods if m.startswith("test")],
            ]
            for c in classes
        ]

    def inherit_same_file(self, classes: list[_Class]) -> None:
        """``class TestB(TestA)`` in one file: TestB runs TestA's test methods too (not redefined)."""
        by_qual = {f.qual: f for f in self.out}
        for cls in classes:
            seen = {cls.qual}
            todo = [b[1:] for b in cls.base_specs if b.startswith("=")]
            own = set(cls.methods)
            while todo:
                base_qual = todo.pop(0)
                if base_qual in seen:
                    continue
                seen.add(base_qual)
                base = next((c for c in classes if c.qual == base_qual), None)
                if base is None:
                    continue
                for name in base.methods:
                    if not name.startswith("test") or name in own:
                        continue
                    own.add(name)
                    origin = by_qual.get(f"{base.qual}.{name}")
                    if origin is None:
                        continue
                    copy = _Func(f"{cls.qual}.{name}", origin.line, origin.end, True)
                    copy.refs, copy.calls, copy.weak = origin.refs, origin.calls, origin.weak
                    self.out.append(copy)
                todo += [b[1:] for b in base.base_specs if b.startswith("=")]


class _Index:
    """The source of element ``i`` of an unpacked value, for the 'via' text."""

    text: str

    def __init__(self, src: ast.AST | _Index | None, i: int) -> None:
        base = src.text if isinstance(src, _Index) else show(src) if src is not None else "…"
        self.text: str = f"{base}[{i}]"


_CHAIN_NODES = (
    ast.Call,
    ast.Attribute,
    ast.Name,
    ast.Subscript,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
)


def _extend(value: _Binding, tail: str) -> _Binding:
    if value is None or len(value[0]) > _MAX_CHAIN:
        return None
    return (value[0] + tail, value[1])


def _recordable(chain: str) -> bool:
    """A chain worth recording as a use: it names something (not a bare unknown name or a literal)."""
    if chain[0] in "#<[~$":
        return _parts(chain) > 1  # a display or a literal, used through a member
    return "." in chain or "(" in chain or chain[0] in "{!"


def _imported_callable(chain: str, func: ast.AST, imported: set[str]) -> bool:
    """A call of a function another module of the repository may define (not torch's)."""
    if not _PLAIN.fullmatch(chain) or chain.startswith("torch."):
        return False
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id in imported


_PLACEHOLDER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def _substitute(chain: str, params: list[str], args: list[str], kws: dict[str, str]) -> str:
    """A helper's chain with its parameters ($name) replaced by the caller's arguments."""
    if "$" not in chain:
        return chain
    values = dict(zip(params, args, strict=False))
    values.update(kws)

    def repl(m: re.Match[str]) -> str:
        value = values.get(m.group(1))
        return value if value else m.group(0)

    return _PLACEHOLDER.sub(repl, chain)


def substitute(chain: str, params: list[str], args: list[str], kws: dict[str, str]) -> str:
    """``_substitute`` for the index (callers in other files)."""
    return _substitute(chain, params, args, kws)


def decode_source(data: bytes) -> str:
    """The text of a Python file, honouring a coding cookie; ``UnicodeDecodeError`` if not text."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def extract(data: bytes) -> dict[str, Any]:
    """The facts of one test file (see the module docstring); never raises for bad input."""
    try:
        text = decode_source(data)
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        if isinstance(exc, UnicodeDecodeError):
            why = f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        else:
            why = f"undecodable source ({exc})"
        return {"v": VERSION, "err": why, "f": []}
    try:
        tree = pyast.parse_module(text)
    except SyntaxError as exc:
        return {"v": VERSION, "err": f"syntax error at line {exc.lineno}: {exc.msg}", "f": []}
    except (ValueError, RecursionError, MemoryError) as exc:
        return {"v": VERSION, "err": f"cannot parse ({type(exc).__name__}: {exc})", "f": []}
    walker = _Walker()
    try:
        classes = walker.run(tree)
    except RecursionError:
        return {"v": VERSION, "err": "nested too deeply to walk", "f": []}
    strings: dict[str, int] = {"": 0}
    funcs = [f.facts(strings) for f in walker.out]
    for c in classes:
        c[3] = [strings.setdefault(b, len(strings)) for b in c[3]]
    return {
        "v": VERSION,
        "err": None,
        "s": list(strings),
        "f": funcs,
        "c": classes,
        "m": _docstring_mentions(tree),
    }


def decode_refs(facts: dict[str, Any], func: list[Any]) -> list[list[Any]]:
    """A function's refs as [[chain, kind, line, via], ...] (the facts keep them as ints)."""
    strings, r = facts["s"], func[4]
    return [
        [strings[r[i]], KINDS[r[i + 1]], r[i + 2], strings[r[i + 3]]] for i in range(0, len(r), 4)
    ]


def _docstring_mentions(tree: ast.Module) -> list[list[Any]]:
    """Dotted names in the module's docstring and its classes' docstrings (weak, file-level)."""
    out: list[list[Any]] = []
    seen: set[str] = set()
    nodes: list[ast.AST] = [tree, *(n for n in tree.body if isinstance(n, ast.ClassDef))]
    for node in nodes:
        body = getattr(node, "body", [])
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            for i, text in enumerate(body[0].value.value.split("\n")):
                for token in _DOTTED.findall(text):
                    if token not in seen and len(seen) < _MAX_WEAK:
                        seen.add(token)
                        out.append([token, body[0].lineno + i])
    return out
