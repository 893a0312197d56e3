"""``ast.parse`` for every thread of the controller, one parse at a time.

CPython before 3.11.8 and 3.12.1 keeps the depth of the AST it is building in
global state: two threads parsing at once can fail with ``SystemError: AST
constructor recursion depth mismatch`` (python/cpython#106905). The collector's
targets, the checkouts and the coverage index parse test files in threads, so
every parse goes through one lock.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str | bytes, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    with _LOCK:
        return ast.parse(source, filename=filename, mode=mode)


def parse_module(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    tree = parse(source, filename)
    assert isinstance(tree, ast.Module)
    return tree


def parse_expression(source: str) -> ast.Expression:
    tree = parse(source, mode="eval")
    assert isinstance(tree, ast.Expression)
    return tree


__all__ = ["parse", "parse_expression", "parse_module"]
