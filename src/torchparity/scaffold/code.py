"""Test-method source from measured scenarios: placeholders spelled, checks written as assertions.

The agent writes scenarios with four placeholders (``DEVICE``, ``_TMP_``,
``_API_``, ``_OWNER_``) and checks as ``[kind, expression, payload]``; this
module turns them into the statements of a test method.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

#: tolerances the float checks use, stated in the file's docstring
FLOAT_RTOL = 1e-5
FLOAT_ATOL = 1e-6


@dataclass(frozen=True)
class Spelling:
    """How the test writes each placeholder."""

    api: str
    owner: str
    device: str
    tmp: str = "tmp"

    def apply(self, text: str) -> str:
        text = re.sub(r"\b_API_\b", self.api, text)
        text = re.sub(r"\b_OWNER_\b", self.owner or self.api, text)
        text = re.sub(r"\b_TMP_\b", self.tmp, text)
        return double_quoted(re.sub(r"\bDEVICE\b", self.device, text))


def double_quoted(line: str) -> str:
    """``line`` with its single-quoted string literals in double quotes (the house style)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return line
    out, last = [], 0
    for tok in tokens:
        if tok.type != tokenize.STRING or tok.start[0] != 1 or tok.end[0] != 1:
            continue
        text = tok.string
        prefix = text[: len(text) - len(text.lstrip("rbuRBU"))]
        body = text[len(prefix) :]
        if body[:1] == "'" and body[:3] != "'''" and '"' not in body and "\\" not in body:
            out.append(line[last : tok.start[1]] + prefix + '"' + body[1:-1] + '"')
            last = tok.end[1]
    return "".join(out) + line[last:] if out else line


def check_line(check: list[str], sp: Spelling) -> str:
    """One assertion for ``[kind, expression, payload]``."""
    kind, expr, payload = check[0], sp.apply(check[1]), sp.apply(check[2])
    if kind == "is":
        return f"self.assertIs({expr}, {payload})"
    if kind == "same":
        return f"self.assertIs({expr}, {payload})"
    if kind == "type":
        return f"self.assertIsInstance({expr}, {payload})"
    if kind == "float":
        return (
            f"torch.testing.assert_close({expr}, {payload}, rtol={FLOAT_RTOL}, atol={FLOAT_ATOL}, "
            "equal_nan=True)"
        )
    if kind == "tensor":
        return f"torch.testing.assert_close({expr}.cpu(), {payload}, equal_nan=True)"
    return f"self.assertEqual({expr}, {payload})"


def uses(text: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", text) is not None


def indent(lines: list[str], levels: int = 1) -> list[str]:
    pad = "    " * levels
    return [pad + line if line else line for line in lines]


def method(name: str, body: list[str], width: int = 100) -> str:
    """``def name(self):`` with ``body`` (already relative to the method), class-indented and wrapped."""
    lines = [f"def {name}(self):", *indent(body or ["pass"])]
    out: list[str] = []
    for line in indent(lines):
        out += wrap_line(line, width)
    return "\n".join(out) + "\n"


def _first_line_ops(text: str) -> list[tokenize.TokenInfo]:
    """The operator tokens of ``text``'s first line (none when it does not tokenize)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    return [tok for tok in tokens if tok.type == tokenize.OP and tok.start[0] == 1]


def _brackets(line: str) -> list[tuple[int, int]]:
    """(open, close) offsets of the bracket pairs of ``line``, outermost first; strings skipped."""
    pairs, stack = [], []
    for tok in _first_line_ops(line):
        if tok.string in "([{":
            stack.append(tok.start[1])
        elif tok.string in ")]}" and stack:
            pairs.append((stack.pop(), tok.start[1]))
    return sorted(pairs)


def _top_commas(text: str) -> list[int]:
    out, depth = [], 0
    for tok in _first_line_ops(text):
        if tok.string in "([{":
            depth += 1
        elif tok.string in ")]}":
            depth -= 1
        elif tok.string == "," and depth == 0:
            out.append(tok.start[1])
    return out


def wrap_line(line: str, width: int = 100) -> list[str]:
    """A line longer than ``width`` broken inside its widest bracket pair (black's style)."""
    if len(line) <= width:
        return [line]
    pad = line[: len(line) - len(line.lstrip())]
    pairs = [(a, b) for a, b in _brackets(line) if b - a > 1]
    if not pairs:
        return [line]
    start, end = max(pairs, key=lambda p: (p[1] - p[0], -p[0]))
    inner = line[start + 1 : end].strip()
    head, tail = line[: start + 1], line[end:]
    one = pad + "    " + inner
    if len(one) <= width:
        return [head, *wrap_line(one, width), pad + tail]
    cuts = _top_commas(inner)
    if not cuts:
        return [head, *wrap_line(one, width), pad + tail]
    parts, last = [], 0
    for cut in cuts:
        parts.append(inner[last:cut].strip())
        last = cut + 1
    if inner[last:].strip():
        parts.append(inner[last:].strip())
    body: list[str] = []
    for part in parts:
        long_string = _split_string(part, width - len(pad) - 6)
        if len(pad) + 5 + len(part) > width and long_string:
            body += [pad + "    " + chunk for chunk in long_string[:-1]]
            body.append(pad + "    " + long_string[-1] + ",")
        else:
            body += wrap_line(pad + "    " + part + ",", width)
    return [head, *body, pad + tail]


def _split_string(text: str, width: int) -> list[str]:
    """A plain string literal as literals that concatenate back to it, each within ``width``."""
    if len(text) < 2 or text[0] not in "\"'" or text[-1] != text[0] or text[:3] in ('"""', "'''"):
        return []
    quote, body = text[0], text[1:-1]
    chunks, cur, i = [], "", 0
    size = max(width - 2, 20)
    while i < len(body):
        step = 2 if body[i] == "\\" else 1
        if len(cur) + step > size:
            chunks.append(cur)
            cur = ""
        cur += body[i : i + step]
        i += step
    if cur:
        chunks.append(cur)
    return [quote + c + quote for c in chunks]


def wrap_tmp(body: list[str], tmp: str = "tmp") -> list[str]:
    return [f"with tempfile.TemporaryDirectory() as {tmp}:", *indent(body)]


def wrap_finally(body: list[str], teardown: list[str]) -> list[str]:
    if not teardown:
        return body
    return ["try:", *indent(body), "finally:", *indent(teardown)]


def safe_name(text: str) -> str:
    out = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_").lower()
    return out or "call"
