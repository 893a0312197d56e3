"""Which APIs the recorded family takes, and what its plan spells (no torch needed)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import candidates
from torchparity.scaffold.plan import CannotDecide
from torchparity.scaffold.recorded import recorded_kind, recorded_plan


def _builtin(name: str):
    return api_info(resolution(name, "builtin"))


def _flat(plan) -> str:
    """The plan's methods with wrapped lines joined."""
    text = " ".join("".join(m.source for m in plan.methods).split())
    return text.replace("( ", "(").replace(" )", ")").replace("[ ", "[").replace(" ]", "]")


def _t(values, shape, dtype="float32"):
    return {"tensor": values, "shape": shape, "dtype": dtype}


@pytest.mark.parametrize(
    "name",
    [
        "torch.ops.aten.squeeze_.dims",
        "torch.ops.aten.permute",
        "torch.ops.prims.device_put.default",
        "torch._C._nn.gelu",
        "torch._C._VariableFunctions.add",
        "torch._lazy_clone",
    ],
)
def test_operators_and_private_builtins_get_the_family_before_the_probe(name):
    info = _builtin(name)
    assert recorded_kind(info)
    fams = candidates(info)
    assert "recorded" in fams and fams[-1] == "fill-in"
    if "measured" in fams:
        assert fams.index("recorded") < fams.index("measured")


@pytest.mark.parametrize(
    "name",
    ["torch.add", "torch.nn.functional.gelu", "torch._dynamo.reset", "torch.ops", "torch.ops.aten"],
)
def test_public_functions_and_namespaces_do_not(name):
    assert not recorded_kind(_builtin(name))


def test_the_plan_writes_the_call_and_the_values_measured_on_the_cpu():
    facts = {
        "recorded": {
            "found": True,
            "own": False,
            "recorded": "aten::index_put.default",
            "tolerance": [1e-3, 1e-4],
            "args": [
                _t([0.5, 1.5, 2.5], [3]),
                {"list": [_t([2, 0], [2], "int64")], "tuple": False},
                _t([9.0, 8.0], [2]),
                {"value": True},
            ],
            "kwargs": {},
            "result": _t(
                [8.0, 1.5, 9.0],
                [3],
            )
            | {"stride": [1]},
            "changed": {"0": _t([8.0, 1.5, 9.0], [3])},
            "kwchanged": {},
        }
    }
    plan = recorded_plan(_builtin("torch.ops.aten.index_put_.hacked_twin"), facts, "DEVICE")
    src = _flat(plan)
    assert plan.family == "recorded"
    assert "aten::index_put.default, the operator it is a variant of" in src
    assert "result = torch.ops.aten.index_put_.hacked_twin(*args, **kwargs)" in src
    assert "args = self._to_device([arg0, [arg1_0], arg2, True])" in src
    # the result and the argument it wrote into, each against the values measured on the CPU
    assert "expected = torch.tensor([8.0, 1.5, 9.0], dtype=torch.float32).reshape(3,)" in src
    assert "self._assert_value(result, expected, DEVICE, rtol=0.001, atol=0.0001)" in src
    assert (
        "self._assert_value(args[0], expected_arg0, DEVICE" in src
        or "self._assert_value(args[0], expected," in src
    )


def test_numbers_and_tuples_are_compared_one_by_one():
    facts = {
        "recorded": {
            "found": True,
            "own": True,
            "recorded": "aten::aminmax.default",
            "tolerance": [1e-3, 1e-4],
            "args": [_t([1.0, 3.0], [2])],
            "kwargs": {"dim": {"value": 0}},
            "result": {
                "list": [_t([1.0], [1]), {"value": 2}, {"value": 0.25}, {"value": None}],
                "tuple": True,
            },
            "changed": {},
            "kwchanged": {},
        }
    }
    src = _flat(recorded_plan(_builtin("torch.ops.aten.aminmax.default"), facts, "DEVICE"))
    assert "its own call" in src
    assert 'kwargs = self._to_device({"dim": 0})' in src
    assert "self.assertEqual(len(result), 4)" in src
    assert "self._assert_value(result[0], expected_0, DEVICE" in src
    assert "self.assertEqual(result[1], 2)" in src
    assert "self.assertAlmostEqual(result[2], 0.25" in src
    assert "self.assertIs(result[3], None)" in src


def test_no_recorded_call_is_a_reason():
    with pytest.raises(CannotDecide, match="no OpInfo sample"):
        recorded_plan(
            _builtin("torch._sync"),
            {"recorded": {"found": False, "problem": "no OpInfo sample's code calls it"}},
            "DEVICE",
        )


def test_coo_and_nested_values_are_written_and_compared_by_their_parts():
    coo = {
        "sparse": {
            "indices": _t([0, 1], [2, 1], "int64"),
            "values": _t([2.5], [1]),
            "shape": [2, 3],
            "coalesced": True,
        }
    }
    facts = {
        "recorded": {
            "found": True,
            "own": True,
            "recorded": "aten::_nested_tensor_from_mask.default",
            "tolerance": [1e-3, 1e-4],
            "args": [coo],
            "kwargs": {},
            "result": {"nested": [_t([1.0, 2.0], [2]), _t([3.0], [1])]},
            "changed": {},
            "kwchanged": {"out": coo},
        }
    }
    src = _flat(recorded_plan(_builtin("torch._nested_tensor_from_mask"), facts, "DEVICE"))
    assert "torch.sparse_coo_tensor(arg0_indices, arg0_values, (2, 3), is_coalesced=True)" in src
    assert (
        "self.assertTrue(result.is_nested)" in src
        and "self.assertEqual(len(result.unbind()), 2)" in src
    )
    assert "self._assert_value(result.unbind()[1], expected_1, DEVICE" in src
    # the COO tensor it wrote into: its coalesced indices and values, and its shape
    assert 'self._assert_sparse(kwargs["out"], arg0_indices, arg0_values, (2, 3), DEVICE' in src
