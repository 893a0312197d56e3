"""Class names the agent writes into facts, in this interpreter (torch 2.13.0 CPU)."""

from __future__ import annotations

import pytest

from tests.lazy import torch
from torchparity.agent.api.objects import class_path, qualified_name, try_walk
from torchparity.agent.api.type_names import Types
from torchparity.agent.facts.gather import _defined_on, _mro


@pytest.mark.slow
def test_a_pybind_class_whose_qualname_is_its_path_is_not_prefixed_twice():
    # torch.jit.ScriptFunction reports __module__ "torch.jit" and __qualname__ "torch.jit.ScriptFunction"
    cls = torch.jit.ScriptFunction
    for name in (
        class_path(cls),
        qualified_name(cls),
        _mro(cls)[0],
        Types(torch, {}).of_class(cls),
    ):
        assert name == "torch.jit.ScriptFunction"
        assert try_walk(name) is not None and try_walk(name).obj is cls


@pytest.mark.slow
def test_ordinary_classes_keep_module_dot_qualname():
    assert class_path(torch.nn.Linear) == "torch.nn.modules.linear.Linear"
    assert _mro(torch.nn.Linear)[-1] == "builtins.object"
    assert (
        _defined_on(torch.nn.Linear, "torch.nn.Linear.state_dict")
        == "torch.nn.modules.module.Module"
    )
    assert qualified_name(torch.optim.SGD.step) == "torch.optim.sgd.SGD.step"
