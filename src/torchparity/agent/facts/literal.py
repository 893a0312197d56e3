"""Values a scaffolded test holds literally, as Python source, and exceptions as a test spells them.

``literal(torch.Size([2, 3]))`` is ``"torch.Size([2, 3])"``: source that evaluates,
with ``torch`` bound, to the value measured here, so the test and the
measurement hold the very same thing.
"""

from __future__ import annotations

import math
from typing import Any, Optional

MAX_TENSOR_LITERAL = 16


class NotLiteral(Exception):
    """The value has no source a test could hold (an object, a big tensor, ...)."""


def torch_module() -> Any:
    import torch

    return torch


def float_src(value: float) -> str:
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else '-float("inf")'
    return repr(float(value))


def dtype_src(torch: Any, dtype: Any) -> str:
    name = str(dtype).split(".", 1)[-1]
    if getattr(torch, name, None) is dtype:
        return "torch.%s" % name
    raise NotLiteral(str(dtype))


def literal(value: Any, torch: Any = None) -> str:
    """Python source that evaluates (with ``torch`` bound) to ``value``; raises NotLiteral."""
    torch = torch or torch_module()
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(
        value, str
    ):  # a str enum's member compares equal to its text, whose repr is source
        return repr(str.__str__(value))
    if isinstance(value, int):
        return repr(int(value))
    if type(value) is bytes:
        return repr(value)
    if isinstance(value, float):
        return float_src(value)
    if isinstance(value, complex):
        return "complex(%s, %s)" % (float_src(value.real), float_src(value.imag))
    if isinstance(value, torch.dtype):
        return dtype_src(torch, value)
    if isinstance(value, torch.Size):
        return "torch.Size([%s])" % ", ".join(repr(int(v)) for v in value)
    if isinstance(value, torch.device):
        return 'torch.device("%s")' % value
    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided or value.numel() > MAX_TENSOR_LITERAL or value.is_meta:
            raise NotLiteral("tensor")
        data = value.detach().cpu()
        if data.dtype in (torch.bfloat16, torch.float16):
            data = data.float()
        return "torch.tensor(%s, dtype=%s)" % (
            literal(data.tolist(), torch),
            dtype_src(torch, value.dtype),
        )
    if isinstance(value, tuple) and type(value) is tuple:
        inner = [literal(v, torch) for v in value]
        return "(%s,)" % inner[0] if len(inner) == 1 else "(%s)" % ", ".join(inner)
    if isinstance(value, list):
        return "[%s]" % ", ".join(literal(v, torch) for v in value)
    raise NotLiteral(type(value).__name__)


def try_literal(value: Any, torch: Any) -> Optional[str]:
    try:
        return literal(value, torch)
    except NotLiteral:
        return None


def exc_name(exc: BaseException) -> str:
    """The exception's name as a test can spell it: builtins bare, others qualified."""
    cls = type(exc)
    for klass in cls.__mro__:
        if klass.__module__ == "builtins":
            return klass.__name__
    return cls.__name__


def error_text(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, text[0][:200] if text else "")
