"""Fast units of the pairs, switches and checkers: which family takes them and what the plans spell."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.checker import checker_leaf, checker_plan
from torchparity.scaffold.families import candidates
from torchparity.scaffold.pairs import pair_leaf, pair_plan
from torchparity.scaffold.plan import CannotDecide
from torchparity.scaffold.switches import switch_plan


def _source(plan: Any) -> str:
    return "".join(m.source for m in plan.methods)


def _fn(name: str, kind: str = "function"):
    return api_info(resolution(name, kind))


def test_each_kind_goes_to_its_family_after_measured():
    fams = candidates(_fn("torch._enable_functionalization", "builtin"))
    assert (
        fams.index("measured") < fams.index("pair") < fams.index("switch") < fams.index("fill-in")
    )
    fams = candidates(_fn("torch.serialization._is_zipfile"))
    assert fams.index("measured") < fams.index("checker") == len(fams) - 2
    assert pair_leaf(_fn("torch.ao.quantization.disable_observer")) and pair_leaf(
        _fn("torch.is_grad_enabled")
    )
    assert not pair_leaf(_fn("torch.cos")) and not checker_leaf(_fn("torch.cos"))
    assert checker_leaf(_fn("torch.Tensor.is_coalesced", "method")) and checker_leaf(
        _fn("torch.hub._check_module_exists")
    )
    assert checker_leaf(_fn("torch._check")) and checker_leaf(
        _fn("torch._assert")
    )  # the bare verbs
    assert not checker_leaf(_fn("torch.checkpoint")) and not checker_leaf(
        _fn("torch._assert_scalar_x", "class")
    )
    assert checker_leaf(_fn("torch.ops.aten._assert_async.msg", "builtin"))  # named by its operator
    facts = {
        "checker": {
            "found": True,
            "kind": "validator",
            "none": ["True"],
            "refused": [["False", "AssertionError"]],
            "true": [],
            "false": [],
            "tail": ', "torchparity check"',
        }
    }
    text = _source(checker_plan(_fn("torch._assert"), facts, "DEVICE"))
    assert 'self.assertIsNone(torch._assert(True, "torchparity check"))' in text
    assert 'torch._assert(False, "torchparity check")' in text


def test_a_toggle_moves_the_state_both_ways_and_restores_it():
    facts = {
        "pair": {
            "found": True,
            "kind": "toggle",
            "enable": "_API_",
            "disable": "torch._disable_x",
            "args": "",
            "readers": [["torch._x_enabled()", "True", "False"]],
            "enable_returns_none": True,
            "disable_returns_none": False,
        }
    }
    text = _source(pair_plan(_fn("torch._enable_x", "builtin"), facts, "DEVICE"))
    assert "self.assertIsNone(torch._enable_x())" in text and "        torch._disable_x()\n" in text
    assert (
        "self.assertEqual(torch._x_enabled(), True)" in text
        and "self.assertEqual(torch._x_enabled(), False)" in text
    )
    assert "if saved is True:" in text and "finally:" in text
    with pytest.raises(CannotDecide):
        pair_plan(
            _fn("torch._enable_x", "builtin"),
            {"pair": {"found": False, "problem": "no reader"}},
            "DEVICE",
        )


def test_a_getter_is_set_through_its_setter():
    facts = {
        "pair": {
            "found": True,
            "kind": "getter",
            "setter": "torch._C._set_x",
            "switch": {
                "found": True,
                "kind": "bool",
                "getter": "_API_()",
                "saved": True,
                "accepted": [True, False],
            },
        }
    }
    text = _source(pair_plan(_fn("torch.is_x_enabled"), facts, "DEVICE"))
    assert (
        "self.assertIsNone(torch._C._set_x(value))" in text
        and "self.assertEqual(torch.is_x_enabled(), value)" in text
    )


def test_switch_dtype_and_state_kinds():
    info = _fn("torch.set_x_dtype", "builtin")
    facts = {
        "switch": {
            "found": True,
            "kind": "dtype",
            "getter": "torch.get_x_dtype()",
            "saved": "torch.bfloat16",
            "accepted": ["torch.bfloat16", "torch.float16"],
        }
    }
    assert "for value in [torch.float16, torch.bfloat16]:" in _source(
        switch_plan(info, facts, "DEVICE")
    )
    facts = {
        "switch": {
            "found": True,
            "kind": "state",
            "getter": "torch.get_x_state()",
            "mover": "torch.rand(3)",
        }
    }
    text = _source(switch_plan(_fn("torch.set_x_state"), facts, "DEVICE"))
    assert (
        "self.assertTrue(torch.equal(first, again))" in text and "torch.set_x_state(saved)" in text
    )


def test_a_checker_asserts_each_measured_case_and_the_refusal():
    facts = {
        "checker": {
            "found": True,
            "kind": "validator",
            "true": [],
            "false": [],
            "none": ['"same"'],
            "refused": [['"no_such_word"', "RuntimeError"]],
            "uses_io": False,
        }
    }
    text = _source(checker_plan(_fn("torch.check_x"), facts, "DEVICE"))
    assert 'self.assertIsNone(torch.check_x("same"))' in text
    assert (
        'with self.assertRaises(RuntimeError):\n            torch.check_x("no_such_word")' in text
    )
    facts = {
        "checker": {
            "found": True,
            "kind": "predicate",
            "true": ["io.BytesIO()"],
            "false": ["0"],
            "none": [],
            "refused": [],
            "uses_io": True,
        }
    }
    plan = checker_plan(_fn("torch.is_x"), facts, "DEVICE")
    assert "import io" in plan.imports and "self.assertIs(torch.is_x(0), False)" in _source(plan)


def test_a_nesting_pair_reads_inside_and_after_and_checks_the_depths():
    facts = {
        "pair": {
            "found": True,
            "kind": "nesting",
            "up": "torch._enter_x",
            "down": "_API_",
            "args": "True",
            "token": True,
            "readers": [["torch.x_on()", "True", "False"]],
            "relation": None,
        }
    }
    text = _source(pair_plan(_fn("torch._exit_x"), facts, "DEVICE"))
    assert "token = torch._enter_x(True)" in text and "torch._exit_x(token)" in text
    assert "self.assertEqual(torch.x_on(), False)  # as before" in text
    facts = {
        "pair": {
            "found": True,
            "kind": "nesting",
            "up": "_API_",
            "down": "torch.x_decrement_nesting",
            "args": "",
            "token": False,
            "readers": [],
            "relation": [0, 1, 0, -1],
        }
    }
    text = _source(pair_plan(_fn("torch.x_increment_nesting"), facts, "DEVICE"))
    assert "self.assertEqual(torch.x_increment_nesting(), first + 1)" in text
    assert "self.assertEqual(torch.x_decrement_nesting(), first)" in text
    assert "self.assertEqual(torch.x_decrement_nesting(), first - 1)" in text
    assert pair_leaf(_fn("torch._C._functorch._vmap_decrement_nesting", "builtin"))


def test_a_version_counter_step_is_checked_on_the_tensor_and_its_view():
    facts = {"pair": {"found": True, "kind": "version", "step": 1, "returns_none": True}}
    plan = pair_plan(_fn("torch.autograd.graph.increment_version"), facts, "DEVICE")
    text = _source(plan)
    assert (
        "self.assertEqual(view._version, before + 1)" in text
        and "before + 2" in text
        and plan.uses_device
    )
