"""OpInfo entries whose ``op`` is a lambda around the API (``nn.functional.embedding`` swaps its arguments).

Such an entry is found by what its lambda calls, not by identity: the lambda's source (in its module's
syntax tree, so a lambda written over several lines is read whole) must be one call of the API, directly or
through ``wrapper_set_seed``, whose arguments are the lambda's own parameters. The result is the API's
argument list written over the sample the OpInfo would have passed the lambda: ``@S@`` stands for the sample
variable (``@S@.args[0], @S@.input, **@S@.kwargs`` for ``lambda weight, idx, **kwargs: embedding(idx,
weight, **kwargs)``).

Stdlib only (runs inside the environment under test).
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, Optional

from .recipes.layout import SEEDED_WRAPPER

SAMPLE = "@S@"
_TREES: Dict[str, Optional[ast.AST]] = {}
_LAMBDAS: Dict[str, Dict[int, List[ast.Lambda]]] = {}


def _tree(filename: str) -> Optional[ast.AST]:
    if filename not in _TREES:
        try:
            with open(filename) as f:
                _TREES[filename] = ast.parse(f.read())
        except (OSError, SyntaxError, ValueError):
            _TREES[filename] = None
    return _TREES[filename]


def _lambdas(filename: str) -> Dict[int, List[ast.Lambda]]:
    """Line -> the lambdas starting on it, for one file (one walk of its tree, kept)."""
    if filename not in _LAMBDAS:
        tree = _tree(filename)
        index: Dict[int, List[ast.Lambda]] = {}
        for n in ast.walk(tree) if tree is not None else ():
            if isinstance(n, ast.Lambda):
                index.setdefault(n.lineno, []).append(n)
        _LAMBDAS[filename] = index
    return _LAMBDAS[filename]


def _lambda_node(fn: Any) -> Optional[ast.Lambda]:
    code = getattr(fn, "__code__", None)
    if code is None or getattr(fn, "__name__", "") != "<lambda>":
        return None
    found = _lambdas(code.co_filename).get(code.co_firstlineno, [])
    params = code.co_varnames[: code.co_argcount]
    found = [n for n in found if tuple(a.arg for a in n.args.args) == params]
    return found[0] if len(found) == 1 else None


def _evaluate(expr: ast.expr, scope: Dict[str, Any]) -> Any:
    """A dotted name (``torch.nn.functional.embedding``) in the lambda's globals, or None."""
    parts: List[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    parts.reverse()
    if parts[0] not in scope:
        return None
    value = scope[parts[0]]
    for p in parts[1:]:
        value = getattr(value, p, None)
        if value is None:
            return None
    return value


def _binding(node: ast.Lambda) -> Optional[Dict[str, str]]:
    """Lambda parameter name -> what the OpInfo passes it (the sample's input, args and kwargs)."""
    a = node.args
    if a.posonlyargs or a.kwonlyargs or a.defaults or a.kw_defaults:
        return None
    names = [p.arg for p in a.args]
    bound: Dict[str, str] = {}
    for i, name in enumerate(names):
        bound[name] = "%s.input" % SAMPLE if i == 0 else "%s.args[%d]" % (SAMPLE, i - 1)
    if a.vararg is not None:
        if names:
            rest = len(names) - 1
            bound["*" + a.vararg.arg] = (
                "*%s.args[%d:]" % (SAMPLE, rest) if rest else "*%s.args" % SAMPLE
            )
        else:
            bound["*" + a.vararg.arg] = "%s.input, *%s.args" % (SAMPLE, SAMPLE)
    if a.kwarg is not None:
        bound["**" + a.kwarg.arg] = "**%s.kwargs" % SAMPLE
    return bound


def _argument(arg: ast.expr, bound: Dict[str, str]) -> Optional[str]:
    if isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name):
        return bound.get("*" + arg.value.id)
    if isinstance(arg, ast.Name):
        return bound.get(arg.id)
    if isinstance(arg, ast.Constant) and isinstance(arg.value, (bool, int, float, str, type(None))):
        return repr(arg.value)
    return None


def wrapped_call(fn: Any, obj: Any) -> Optional[str]:
    """The API's arguments over the sample (see the module docstring), or None when ``fn`` is not a
    lambda that only rearranges its parameters into one call of ``obj``."""
    name = getattr(obj, "__name__", None)
    code = getattr(fn, "__code__", None)
    if (
        not isinstance(name, str)
        or code is None
        or not {name, name.rsplit("_", 1)[-1]} & set(code.co_names)
    ):
        # the lambda names no attribute or global of the API's name (``special_polygamma`` is reached as
        # ``torch.special.polygamma``): no need to read its source
        return None
    node = _lambda_node(fn)
    if node is None or not isinstance(node.body, ast.Call):
        return None
    scope = getattr(fn, "__globals__", {})
    call, args = node.body, list(node.body.args)
    target = _evaluate(call.func, scope)
    if getattr(target, "__name__", "") == SEEDED_WRAPPER and args:
        target = _evaluate(args[0], scope)
        args = args[1:]
    if target is None or target is not obj:
        return None
    bound = _binding(node)
    if bound is None:
        return None
    out: List[str] = []
    for arg in args:
        text = _argument(arg, bound)
        if text is None:
            return None
        out.append(text)
    for kw in call.keywords:
        if kw.arg is None:
            if not isinstance(kw.value, ast.Name) or "**" + kw.value.id not in bound:
                return None
            out.append(bound["**" + kw.value.id])
            continue
        text = _argument(kw.value, bound)
        if text is None or text.startswith("*"):
            return None
        out.append("%s=%s" % (kw.arg, text))
    return ", ".join(out)


class _Sample(object):
    def __init__(self, input: Any, args: Any, kwargs: Any) -> None:
        self.input, self.args, self.kwargs = input, args, kwargs


def as_called(obj: Any, arguments: str) -> Callable[..., Any]:
    """A function taking what the OpInfo passes its lambda and calling ``obj`` as the test will: with
    ``arguments`` (from ``wrapped_call``), unseeded (``wrapper_set_seed`` is the OpInfo's, not the test's)."""
    code = compile("lambda S: API(%s)" % arguments.replace(SAMPLE, "S"), "<opinfo wrapper>", "eval")
    call = eval(code, {"API": obj})

    def fn(input: Any, *args: Any, **kwargs: Any) -> Any:
        return call(_Sample(input, args, kwargs))

    return fn
