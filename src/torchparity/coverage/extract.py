"""One AST walk per test file: which names each test function and helper references.

The result depends on the file's bytes only (never on the alias table), so it is
cached per git blob id and shared by every branch and run. Names are resolved
through the file's own imports and simple data flow; what those names *mean*
(aliases, classes, inheritance) is decided later, at query time.

Facts (compact JSON, lists rather than objects)::

    {"v": VERSION, "err": null | "why the file was skipped",
     "s": ["", strings...],              the file's chains and vias, each once ("" first)
     "f": [[qualname, line, end_line, is_test, refs, calls, weak, ret], ...],
     "m": [[dotted name, line], ...]}   mentions in the module's and classes' docstrings

    refs   [chain, kind, line, via, chain, kind, line, via, ...]: four ints a use,
           chain and via index "s"; ``decode_refs`` gives [[chain, kind, line, via], ...]
    chain  "torch.set_grad_enabled().clone()"
    kind   KINDS[k]: "c" call | "w" with | "d" decorator | "a" attribute (named, not called)
    via    "" | "l:ctx" local | "s:opt" self attribute | "i:sge" import alias | "m:X" module name
           | "h:f" returned by helper f | "f:ctx" pytest fixture ctx (comma-joined when several)
    calls  qualnames of helpers in the same file this function calls
    weak   dotted names mentioned in strings and docstrings
    ret    the chain the function returns (helpers), or null
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Any

#: bump when the facts change shape or meaning: cached facts of another version are re-made
VERSION = 6
#: kind codes in the facts' refs
KINDS = "cwda"

#: names files use without importing (star imports from test helpers), by convention
CONVENTIONAL = {"torch": "torch", "F": "torch.nn.functional", "nn": "torch.nn", "optim": "torch.optim"}

#: methods that run before each test: what they set on ``self`` every test can use
SETUP_METHODS = ("setUp", "setUpClass", "__init__", "setup_method", "setup_class")

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_MAX_WEAK = 200

# an environment entry: (chain, via) or None when the name is bound to something unknown
_Binding = tuple[str, str] | None


def _join_via(a: str, b: str) -> str:
    if not a:
        return b
    if not b or b == a:
        return a
    return f"{a},{b}"


class _Func:
    """What one function (test or helper) references, while it is being walked."""

    __slots__ = ("qual", "line", "end", "is_test", "refs", "seen", "calls", "weak", "ret")

    def __init__(self, qual: str, line: int, end: int, is_test: bool) -> None:
        self.qual = qual
        self.line = line
        self.end = end
        self.is_test = is_test
        self.refs: list[list[Any]] = []
        self.seen: set[tuple[str, str, str]] = set()
        self.calls: list[str] = []
        self.weak: list[str] = []
        self.ret: str | None = None

    def add(self, chain: str, kind: str, line: int, via: str) -> None:
        key = (chain, kind, via)
        if key not in self.seen:
            self.seen.add(key)
            self.refs.append([chain, kind, line, via])

    def facts(self, strings: dict[str, int]) -> list[Any]:
        flat: list[int] = []
        for chain, kind, line, via in self.refs:
            flat += (strings.setdefault(chain, len(strings)), KINDS.index(kind), line,
                     strings.setdefault(via, len(strings)))
        return [self.qual, self.line, self.end, 1 if self.is_test else 0, flat,
                self.calls, self.weak, self.ret]


class _Class:
    __slots__ = ("qual", "node", "bases", "methods", "attrs")

    def __init__(self, qual: str, node: ast.ClassDef) -> None:
        self.qual = qual
        self.node = node
        self.bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
        self.methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        #: ``self.X`` set by setUp-like methods: X -> binding
        self.attrs: dict[str, _Binding] = {}


class _Walker:
    """Walks one module. ``env`` is a stack of scopes: module, then function(s)."""

    def __init__(self) -> None:
        self.module: dict[str, _Binding] = {}
        self.scopes: list[dict[str, _Binding]] = [self.module]
        self.helpers: dict[str, str] = {}  # module-level function name -> qualname
        self.returns: dict[str, str | None] = {}  # helper qualname -> returned chain
        self.classes: dict[str, _Class] = {}  # simple name -> class (module level or nested)
        self.cls: _Class | None = None
        self.func: _Func | None = None
        self.out: list[_Func] = []

    # -- names -----------------------------------------------------------------------
    def lookup(self, name: str) -> _Binding:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in CONVENTIONAL:
            return (CONVENTIONAL[name], "")
        return None

    def bind(self, name: str, value: _Binding) -> None:
        self.scopes[-1][name] = value

    def bind_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    self.bind(a.asname, (a.name, f"i:{a.asname}" if a.asname != a.name.rsplit(".", 1)[-1] else ""))
                else:
                    head = a.name.split(".", 1)[0]
                    self.bind(head, (head, ""))
            return
        if node.level or not node.module:
            for a in node.names:  # relative imports: names of the test tree itself
                self.bind(a.asname or a.name, None)
            return
        for a in node.names:
            if a.name == "*":
                continue
            full = f"{node.module}.{a.name}"
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
        if t is ast.Call or t is ast.Attribute or t is ast.Name:
            value = self.eval(node)
            if value is not None and self.func is not None:
                chain, via = value
                if "." in chain:
                    if t is ast.Call and kind == "a":
                        kind = "c"
                    self.func.add(chain, kind, node.lineno, via)  # type: ignore[attr-defined]
            return value
        if t is ast.Constant:
            if isinstance(node.value, str) and self.func is not None:  # type: ignore[attr-defined]
                self.mention(node.value)  # type: ignore[attr-defined]
            return None
        if t is ast.Lambda:
            self.use(node.body)  # type: ignore[attr-defined]
            return None
        if t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            for gen in node.generators:  # type: ignore[attr-defined]
                self.use(gen.iter)
                self.assign(gen.target, None)
                for cond in gen.ifs:
                    self.use(cond)
            if t is ast.DictComp:
                self.use(node.key)  # type: ignore[attr-defined]
                self.use(node.value)  # type: ignore[attr-defined]
            else:
                self.use(node.elt)  # type: ignore[attr-defined]
            return None
        if t is ast.NamedExpr:
            value = self.use(node.value)  # type: ignore[attr-defined]
            self.assign(node.target, value)  # type: ignore[attr-defined]
            return value
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.use(child)
        return None

    def eval(self, node: ast.AST) -> _Binding:
        """The chain ``node`` evaluates to, visiting the arguments of its calls."""
        t = type(node)
        if t is ast.Name:
            return self.lookup(node.id)  # type: ignore[attr-defined]
        if t is ast.Attribute:
            base = node.value  # type: ignore[attr-defined]
            attr = node.attr  # type: ignore[attr-defined]
            if type(base) is ast.Name and base.id in ("self", "cls"):
                return self.self_attr(attr)
            value = self.eval(base)
            if value is None:
                return None
            return (f"{value[0]}.{attr}", value[1])
        if t is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            for arg in node.args:  # type: ignore[attr-defined]
                self.use(arg)
            for kw in node.keywords:  # type: ignore[attr-defined]
                self.use(kw.value)
            helper = self.helper_called(func)
            if helper is not None:
                if self.func is not None and helper not in self.func.calls and helper != self.func.qual:
                    self.func.calls.append(helper)
                ret = self.returns.get(helper)
                name = helper.rsplit(".", 1)[-1]
                return (ret, f"h:{name}") if ret else None
            value = self.eval(func)
            if value is None:
                return None
            return (value[0] + "()", value[1])
        self.use(node)
        return None

    def self_attr(self, attr: str) -> _Binding:
        """``self.attr``: a local binding, a setUp attribute, or nothing known."""
        key = f"self.{attr}"
        for scope in reversed(self.scopes[1:]):
            if key in scope:
                value = scope[key]
                return None if value is None else (value[0], _join_via(value[1], f"s:{attr}"))
        cls = self.cls
        seen: set[str] = set()
        while cls is not None and cls.qual not in seen:
            seen.add(cls.qual)
            if attr in cls.attrs:
                value = cls.attrs[attr]
                return None if value is None else (value[0], _join_via(value[1], f"s:{attr}"))
            cls = next((self.classes[b] for b in cls.bases if b in self.classes), None)
        return None

    def helper_called(self, func: ast.AST) -> str | None:
        """The qualname of a same-file helper that ``func`` names, if it names one."""
        if type(func) is ast.Name:
            name = func.id  # type: ignore[attr-defined]
            if name in self.helpers and all(name not in s for s in self.scopes[1:]):
                return self.helpers[name]
            return None
        if (type(func) is ast.Attribute and type(func.value) is ast.Name  # type: ignore[attr-defined]
                and func.value.id in ("self", "cls")):  # type: ignore[attr-defined]
            cls = self.cls
            seen: set[str] = set()
            while cls is not None and cls.qual not in seen:
                seen.add(cls.qual)
                meth = cls.methods.get(func.attr)  # type: ignore[attr-defined]
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

    def assign(self, target: ast.AST, value: _Binding) -> None:
        t = type(target)
        if t is ast.Name:
            self.bind(target.id, value)  # type: ignore[attr-defined]
        elif t is ast.Attribute and type(target.value) is ast.Name and target.value.id in ("self", "cls"):  # type: ignore[attr-defined]
            if len(self.scopes) > 1:
                self.bind(f"self.{target.attr}", value)  # type: ignore[attr-defined]
        elif t in (ast.Tuple, ast.List):
            for elt in target.elts:  # type: ignore[attr-defined]
                self.assign(elt.value if isinstance(elt, ast.Starred) else elt, None)
        else:
            self.use(target)

    def local(self, target: ast.AST, value: _Binding) -> _Binding:
        """A value bound to a local name is reached 'via' that name from then on."""
        if value is None:
            return None
        if type(target) is ast.Name:
            return (value[0], _join_via(value[1], f"l:{target.id}"))  # type: ignore[attr-defined]
        return value  # ``self.X``: the via is added where it is read

    # -- statements ------------------------------------------------------------------
    def stmts(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, node: ast.stmt) -> None:
        t = type(node)
        if t is ast.Expr:
            self.use(node.value)  # type: ignore[attr-defined]
        elif t is ast.Assign:
            value = self.use(node.value)  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                self.assign(target, self.local(target, value))
        elif t is ast.AnnAssign:
            value = self.use(node.value)  # type: ignore[attr-defined]
            self.assign(node.target, self.local(node.target, value))  # type: ignore[attr-defined]
        elif t is ast.AugAssign:
            self.use(node.value)  # type: ignore[attr-defined]
            self.use(node.target)  # type: ignore[attr-defined]
        elif t is ast.With or t is ast.AsyncWith:
            for item in node.items:  # type: ignore[attr-defined]
                value = self.use(item.context_expr, "w")
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, self.local(item.optional_vars, value))
            self.stmts(node.body)  # type: ignore[attr-defined]
        elif t is ast.Return:
            value = self.use(node.value)  # type: ignore[attr-defined]
            if value is not None and self.func is not None and self.func.ret is None:
                self.func.ret = value[0]
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
            self.use(node.iter)  # type: ignore[attr-defined]
            self.assign(node.target, None)  # type: ignore[attr-defined]
            self.stmts(node.body)  # type: ignore[attr-defined]
            self.stmts(node.orelse)  # type: ignore[attr-defined]
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    self.stmt(child)
                elif isinstance(child, ast.expr):
                    self.use(child)
                elif isinstance(child, ast.excepthandler):
                    self.use(child.type)
                    if child.name:
                        self.bind(child.name, None)
                    self.stmts(child.body)
                elif isinstance(child, ast.match_case):
                    self.use(child.guard)
                    self.stmts(child.body)

    def arguments(self, args: ast.arguments, scope: dict[str, _Binding]) -> None:
        for default in [*args.defaults, *args.kw_defaults]:
            self.use(default)
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if a is not None:
                scope[a.arg] = None

    def nested_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A function inside a test or helper: its uses belong to the enclosing function."""
        for deco in node.decorator_list:
            self.use(deco, "d")
        scope: dict[str, _Binding] = {}
        self.arguments(node.args, scope)
        self.bind(node.name, None)
        self.scopes.append(scope)
        saved_ret = self.func.ret if self.func is not None else None
        self.stmts(node.body)
        if self.func is not None:
            self.func.ret = saved_ret
        self.scopes.pop()

    # -- functions and classes -------------------------------------------------------
    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, qual: str, is_test: bool,
                 cls: _Class | None) -> _Func:
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        func = _Func(qual, start, node.end_lineno or node.lineno, is_test)
        self.func, self.cls = func, cls
        for deco in node.decorator_list:
            self.use(deco, "d")
        scope: dict[str, _Binding] = {}
        self.arguments(node.args, scope)
        if is_test:  # pytest fixtures: a parameter named after a same-file function is its value
            for name in list(scope):
                ret = self.returns.get(self.helpers.get(name, ""))
                if ret:
                    scope[name] = (ret, f"f:{name}")
                    func.calls.append(self.helpers[name])
        self.scopes.append(scope)
        self.stmts(node.body)
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
                self.bind(name, None if value is None else (value[0], _join_via(value[1], f"m:{name}")))
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

    def run(self, tree: ast.Module) -> None:
        defs = self.module_level(tree.body)
        classes = self.collect_classes(tree.body, "")
        # helpers first (their return values feed the tests' data flow), then setUp, then tests
        for node in defs:
            if not node.name.startswith("test"):
                func = self.function(node, node.name, False, None)
                self.returns[func.qual] = func.ret
        for cls in classes:
            for name in SETUP_METHODS:
                if name in cls.methods:
                    func = self.function(cls.methods[name], f"{cls.qual}.{name}", False, cls)
        for cls in classes:
            for name, meth in cls.methods.items():
                if not name.startswith("test") and name not in SETUP_METHODS:
                    func = self.function(meth, f"{cls.qual}.{name}", False, cls)
                    self.returns[func.qual] = func.ret
        for node in defs:
            if node.name.startswith("test"):
                self.function(node, node.name, True, None)
        for cls in classes:
            setups = [f"{cls.qual}.{n}" for n in SETUP_METHODS if n in cls.methods]
            for name, meth in cls.methods.items():
                if name.startswith("test"):
                    func = self.function(meth, f"{cls.qual}.{name}", True, cls)
                    func.calls[:0] = [s for s in setups if s not in func.calls]


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
        tree = ast.parse(text)
    except SyntaxError as exc:
        return {"v": VERSION, "err": f"syntax error at line {exc.lineno}: {exc.msg}", "f": []}
    except (ValueError, RecursionError, MemoryError) as exc:
        return {"v": VERSION, "err": f"cannot parse ({type(exc).__name__}: {exc})", "f": []}
    walker = _Walker()
    try:
        walker.run(tree)
    except RecursionError:
        return {"v": VERSION, "err": "nested too deeply to walk", "f": []}
    strings: dict[str, int] = {"": 0}
    funcs = [f.facts(strings) for f in walker.out]
    return {"v": VERSION, "err": None, "s": list(strings), "f": funcs, "m": _docstring_mentions(tree)}


def decode_refs(facts: dict[str, Any], func: list[Any]) -> list[list[Any]]:
    """A function's refs as [[chain, kind, line, via], ...] (the facts keep them as ints)."""
    strings, r = facts["s"], func[4]
    return [[strings[r[i]], KINDS[r[i + 1]], r[i + 2], strings[r[i + 3]]] for i in range(0, len(r), 4)]


def _docstring_mentions(tree: ast.Module) -> list[list[Any]]:
    """Dotted names in the module's docstring and its classes' docstrings (weak, file-level)."""
    out: list[list[Any]] = []
    seen: set[str] = set()
    nodes: list[ast.AST] = [tree, *(n for n in tree.body if isinstance(n, ast.ClassDef))]
    for node in nodes:
        body = getattr(node, "body", [])
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            for i, text in enumerate(body[0].value.value.split("\n")):
                for token in _DOTTED.findall(text):
                    if token not in seen and len(seen) < _MAX_WEAK:
                        seen.add(token)
                        out.append([token, body[0].lineno + i])
    return out
