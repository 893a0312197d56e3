"""Checks of a result of any tensor kind, as the tensor kinds' probe (``tensor_kinds.py``) observes it.

Layout, shape, dtype, the dense matrix of a sparse tensor, the components of a nested one,
``int_repr`` and scale of a quantized one, a module's small buffers; a value torch names at its top
level (a layout, a qscheme) by that name.

Stdlib only apart from torch; Python 3.8.
"""

from __future__ import annotations

import re
from typing import Any, List, Optional

from ..protocol import TorchModule
from .literal import NotLiteral, literal

#: items of a list of tensors checked
MAX_ITEMS = 4

#: a check a test repeats: [kind, expression, payload source]
Check = List[str]


def _torch_name(torch: TorchModule, value: Any) -> str:
    """``torch.per_tensor_affine`` for a value torch names at its top level (not a number, str or tensor)."""
    if isinstance(value, (bool, int, float, str, tuple, list, dict, torch.Tensor)) or value is None:
        return ""
    name = str(value).rsplit(".", 1)[-1]
    if re.match(r"^[a-z_][a-z0-9_]*$", name) and getattr(torch, name, None) is value:
        return "torch." + name
    return ""


def _result_kind(checks: List[Check]) -> str:
    """The kind of a measured result, from its checks ("" for a dense one)."""
    for check in checks:
        if check[1].endswith(".is_nested"):
            return "nested"
        if check[1].endswith(".layout"):
            return check[2].replace("torch.", "")
        if check[1].endswith(".q_scale()"):
            return "quantized"
        if check[1].endswith(".dtype") and "complex" in check[2]:
            return "complex"
    return ""


def _dense_of(torch: TorchModule, t: Any) -> Any:
    if t.is_nested:
        raise NotLiteral("nested")
    if t.layout != torch.strided:
        return t.to_dense().cpu()
    return t.detach().cpu()


def _lit(torch: TorchModule, t: Any) -> str:
    data = t.detach().cpu()
    if data.numel() > 24:
        raise NotLiteral("tensor")
    if data.dtype in (torch.bfloat16, torch.float16):
        data = data.float()
    return "torch.tensor(%s, dtype=%s)" % (literal(data.tolist(), torch), literal(t.dtype, torch))


def _module_checks(torch: TorchModule, m: Any, expr: str) -> Optional[List[Check]]:
    """A module's small buffers (a fake-quantize module's switches, scale and observed range)."""
    out: List[Check] = []
    for name, buf in list(m.named_buffers())[:8]:
        if buf.numel() <= 4 and re.match(r"^[A-Za-z_][\w.]*$", name):
            out.append(["tensor", "%s.%s" % (expr, name), _lit(torch, buf)])
    return out or None


def _tensor_checks(torch: TorchModule, t: Any, expr: str) -> Optional[List[Check]]:
    """Checks of one tensor of any kind, or None when it holds too much to write out."""
    if isinstance(t, torch.nn.Module):
        try:
            return _module_checks(torch, t, expr)
        except (NotLiteral, RuntimeError, TypeError, ValueError):
            return None
    if not isinstance(t, torch.Tensor):
        return None
    try:
        out = [["eq", "%s.dtype" % expr, literal(t.dtype, torch)]]
        if t.is_quantized:
            out += [
                ["eq", "%s.shape" % expr, literal(t.shape, torch)],
                ["float", "%s.q_scale()" % expr, literal(float(t.q_scale()), torch)],
                ["eq", "%s.q_zero_point()" % expr, literal(int(t.q_zero_point()), torch)],
                ["tensor", "%s.int_repr()" % expr, _lit(torch, t.int_repr())],
            ]
            return out
        out.append(["eq", "%s.device.type" % expr, "DEVICE.type"])
        if t.is_nested:
            parts = t.unbind()
            out += [
                ["is", "%s.is_nested" % expr, "True"],
                ["eq", "len(%s.unbind())" % expr, str(len(parts))],
            ]
            for i, part in enumerate(parts[:MAX_ITEMS]):
                out.append(["tensor", "%s.unbind()[%d]" % (expr, i), _lit(torch, part)])
            return out
        out.append(["eq", "%s.shape" % expr, literal(t.shape, torch)])
        if t.layout != torch.strided:
            layout = str(t.layout)
            out.append(["is", "%s.layout" % expr, layout])
            if t.layout == torch.sparse_coo:
                out.append(["is", "%s.is_coalesced()" % expr, repr(bool(t.is_coalesced()))])
            out.append(["tensor", "%s.to_dense()" % expr, _lit(torch, t.to_dense())])
            return out
        out.append(["tensor", expr, _lit(torch, t)])
        return out
    except (NotLiteral, RuntimeError, TypeError, ValueError):
        return None
