"""Fast units of the ``mods`` kinds (nn modules from ``module_db``, jit types, runtime switches): which family takes them and what their plans spell."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import candidates
from torchparity.scaffold.jittypes import jit_type_leaf, jittype_plan
from torchparity.scaffold.nn import nn_plan
from torchparity.scaffold.plan import CannotDecide
from torchparity.scaffold.switches import switch_leaf, switch_plan

LSTM_MRO = [
    "torch.nn.modules.rnn.LSTM",
    "torch.nn.modules.rnn.RNNBase",
    "torch.nn.modules.module.Module",
    "builtins.object",
]
DB = {
    "found": True,
    "args": [],
    "kwargs": [["hidden_size", "3"], ["input_size", "2"]],
    "rnn": "LSTM",
    "inputs": [{"tensor": "torch.tensor([1.0, 2.0], dtype=torch.float32).reshape([1, 2])"}],
    "forward_kwargs": [],
    "outputs": [
        {"shape": [1, 3], "dtype": "torch.float32", "values": [0.1, 0.2, 0.3]},
        {"shape": [1, 3], "dtype": "torch.float32", "sum": 0.6, "abs_sum": 0.6},
    ],
}


def _source(plan: Any) -> str:
    return "".join(m.source for m in plan.methods)


def _cls(name: str):
    return api_info(resolution(name, "class"))


def test_each_kind_goes_to_its_family():
    assert candidates(_cls("torch._C.OptionalType"))[0] == "jittype"
    assert candidates(_cls("torch.Type"))[0] == "jittype"
    fams = candidates(api_info(resolution("torch._C._set_autograd_fallback_mode", "builtin")))
    assert fams[-2:] == ["switch", "fill-in"]  # after every other family
    assert "runtime" in candidates(
        api_info(resolution("torch._C._accelerator_isAllocatorInitialized", "builtin"))
    )
    assert not jit_type_leaf(_cls("torch.dtype")) and not jit_type_leaf(
        api_info(resolution("torch.IntType", "function"))
    )
    assert not switch_leaf(api_info(resolution("torch.reset", "function")))
    assert switch_leaf(api_info(resolution("torch.set_default_device", "function")))


def test_a_jit_type_asserts_documented_strings_and_is_refused_without_type_in_its_mro():
    text = _source(jittype_plan(_cls("torch._C.OptionalType"), {}, "DEVICE"))
    assert 'self.assertEqual(t.annotation_str, "Optional[int]")' in text
    assert "NoneType.get().isSubtypeOf(t)" in text and "CompilationUnit" in text
    assert "Optional[Optional" not in text  # collapses in TorchScript: not asserted
    base = _source(jittype_plan(_cls("torch._C.Type"), {}, "DEVICE"))
    assert (
        "with self.assertRaises(TypeError):" in base
        and "Type.kind(torch._C.ListType.ofInts())" in base
    )
    with pytest.raises(CannotDecide):
        jittype_plan(
            _cls("torch._C.IntType"),
            {"classes": {"api": ["torch.IntType", "builtins.object"]}},
            "DEVICE",
        )


def test_a_switch_sets_reads_back_and_restores_and_needs_a_second_value():
    info = api_info(resolution("torch._C._set_autograd_fallback_mode", "builtin"))
    facts = {
        "switch": {
            "found": True,
            "kind": "str",
            "getter": "torch._C._get_autograd_fallback_mode()",
            "saved": "warn",
            "accepted": ["warn", "nothing"],
            "refused": "RuntimeError",
        }
    }
    text = _source(switch_plan(info, facts, "DEVICE"))
    assert (
        'for value in ["nothing", "warn"]:' in text
        and "with self.assertRaises(RuntimeError):" in text
    )
    assert "torch._C._set_autograd_fallback_mode(saved)" in text
    facts["switch"]["accepted"] = ["warn"]
    with pytest.raises(CannotDecide):
        switch_plan(info, facts, "DEVICE")
    device = switch_plan(
        api_info(resolution("torch.set_default_device", "function")),
        {"switch": {"found": True, "kind": "device", "getter": "torch.get_default_device()"}},
        "DEVICE",
    )
    assert 'torch.set_default_device("meta")' in _source(device) and device.uses_device
    version = _source(
        switch_plan(
            api_info(resolution("torch._C._autograd._unsafe_set_version_counter", "builtin")),
            {"switch": {"found": True, "kind": "version"}},
            "DEVICE",
        )
    )
    assert (
        "self.assertEqual(view._version, 5)" in version
        and "modified by an inplace operation" in version
    )


def test_a_module_the_probe_cannot_build_takes_the_module_db_sample():
    info = _cls("torch.nn.LSTM")
    facts = {"classes": {"api": LSTM_MRO}, "module_db": DB}
    plan = nn_plan(info, facts, "DEVICE")
    text = _source(plan)
    assert "torch.nn.LSTM(hidden_size=3, input_size=2).to(DEVICE)" in text
    assert "[0.1, 0.2, 0.3]" in text and "0.6" in text and "on_cpu.load_state_dict" in text
    assert "(D * module.num_layers, N, H_out)" in text and len(plan.tests) == 3
    with pytest.raises(CannotDecide, match="module_db: none here"):
        nn_plan(
            info,
            {"classes": {"api": LSTM_MRO}, "module_db": {"found": False, "problem": "none here"}},
            "DEVICE",
        )
