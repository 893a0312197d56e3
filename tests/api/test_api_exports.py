"""What other parts import from ``torchparity.api`` (no interpreter, no torch)."""

from __future__ import annotations

import pytest

import torchparity.api as api


@pytest.mark.parametrize(
    ("name", "patterns"),
    [
        ("torch.autograd.grad_mode.set_grad_enabled.clone", ["set_grad_enabled_clone", "clone"]),
        ("Optimizer.zero_grad", ["Optimizer_zero_grad", "zero_grad"]),
        ("relu", ["relu"]),
        ("torch..add.", ["torch_add", "add"]),
    ],
)
def test_name_patterns_is_the_default_test_selection(name: str, patterns: list[str]) -> None:
    """One function (``torchparity.names``) serves the collector, verify and api."""
    from torchparity.names import name_patterns

    assert "name_patterns" in api.__all__
    assert api.name_patterns(name) == patterns == name_patterns(name)
