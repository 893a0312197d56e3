"""API names as text: the pieces every part derives from a dotted name."""

from __future__ import annotations


def name_patterns(name: str) -> list[str]:
    """Default test selection for an API: its last two name segments joined, then its last.

    ``torch.autograd.grad_mode.set_grad_enabled.clone`` -> ``["set_grad_enabled_clone", "clone"]``.
    """
    parts = [p for p in name.split(".") if p]
    out = ["_".join(parts[-2:])] if len(parts) >= 2 else []
    if parts and parts[-1] not in out:
        out.append(parts[-1])
    return out


def is_private_name(name: str) -> bool:
    """PyTorch's underscore rule: a segment starting with ``_`` that is not a dunder (``__init__``)."""
    return any(
        seg.startswith("_") and not (seg.startswith("__") and seg.endswith("__") and len(seg) > 4)
        for seg in name.split(".")
    )
