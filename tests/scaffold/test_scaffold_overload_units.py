"""Which APIs the overload and sparse families take, and what their plans spell (no torch needed)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import candidates
from torchparity.scaffold.overloads import is_overload_kind, overload_plan
from torchparity.scaffold.plan import CannotDecide
from torchparity.scaffold.sparse import sparse_leaf, sparse_plan


def _builtin(name: str):
    return api_info(resolution(name, "builtin"))


def _source(plan) -> str:
    """The plan's methods with wrapped lines joined (one space for any run of whitespace)."""
    return _flat("".join(m.source for m in plan.methods))


def _flat(text: str) -> str:
    return (
        " ".join(text.split())
        .replace("( ", "(")
        .replace(" )", ")")
        .replace("[ ", "[")
        .replace(" ]", "]")
    )


def _opinfo_facts(kind="overload", overload="Tensor", **op):
    return {
        "overload": {
            "found": True,
            "kind": kind,
            "qualified": "aten::where",
            "overload": overload,
            "name": "where",
            "norm": {"found": False, "problem": ""},
            "opinfo": {
                "found": True,
                "name": "where",
                "variant_test_name": "",
                "order": None,
                "out": False,
                "reference": "numpy",
                "dtypes": ["float32", "int64"],
                "excluded": [],
                "samples": {"float32": 6, "int64": 5},
                "tolerances": {},
                **op,
            },
        }
    }


BN = ["input", "weight", "bias", "running_mean", "running_var", "training", "momentum", "eps"]
BWD = [
    "grad_out",
    "input",
    "weight",
    "running_mean",
    "running_var",
    "save_mean",
    "save_invstd",
    "train",
    "eps",
    "output_mask",
]


def _norm_facts(arguments, returns=3, modes=(True, False), flag="training", updates=True):
    return {
        "overload": {
            "found": True,
            "kind": "overload",
            "qualified": "aten::native_batch_norm",
            "overload": "",
            "name": "native_batch_norm",
            "opinfo": {"found": False, "problem": "none"},
            "norm": {
                "found": True,
                "arguments": arguments,
                "flag": flag,
                "modes": list(modes),
                "returns": returns,
                "updates_running": updates,
                "mutates": [],
            },
        }
    }


@pytest.mark.parametrize(
    "name",
    [
        "torch.ops.aten.mm.default",
        "torch.ops.aten.mm",
        "torch.batch_norm",
        "torch.ops.aten.native_batch_norm_backward.default",
    ],
)
def test_overloads_and_batch_norm_go_to_the_overload_family_after_opinfo(name):
    info = _builtin(name)
    assert is_overload_kind(info)
    fams = candidates(info)
    assert "overload" in fams and fams[-1] == "fill-in"
    assert fams.index("overload") == fams.index("opinfo") + 1


def test_other_callables_do_not_get_the_overload_family():
    for name in ("torch.add", "torch.nn.functional.batch_norm", "torch.sparse_csr_tensor"):
        assert not is_overload_kind(_builtin(name))
        assert "overload" not in candidates(_builtin(name))


@pytest.mark.parametrize(
    "name",
    [
        "torch.sparse_csr_tensor",
        "torch.sparse_coo_tensor",
        "torch.sparse_bsc_tensor",
        "torch.sparse_compressed_tensor",
    ],
)
def test_sparse_constructors_go_to_the_sparse_family_first(name):
    assert sparse_leaf(_builtin(name))
    assert candidates(_builtin(name))[0] == "sparse"


def test_a_sparse_plan_spells_the_hand_worked_matrix_and_its_compressed_form():
    text = _source(sparse_plan(_builtin("torch.sparse_csr_tensor"), {}, "DEVICE"))
    assert "torch.sparse_csr_tensor(" in text and "device=DEVICE" in text
    assert "self.assertIs(result.layout, torch.sparse_csr)" in text
    assert "[[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]" in text  # the dense matrix, by hand
    assert "crow_indices().cpu().tolist(), [0, 2, 3]" in text
    assert (
        "check_invariants=True" in text and "check_sparse_tensor_invariants(enable=False)" in text
    )
    with pytest.raises(CannotDecide):
        sparse_plan(_builtin("torch.zeros"), {}, "DEVICE")


def test_an_overload_plan_filters_samples_by_the_dispatchers_schema_and_counts_them():
    info = _builtin("torch.ops.aten.where.self")
    plan = overload_plan(info, _opinfo_facts(overload="self", order=[1, 0, 2]), "DEVICE")
    text = _source(plan)
    assert plan.family == "overload" and plan.tests == ["test_self_float32", "test_self_int64"]
    assert 'torch._C._get_schema("aten::where", "self")' in text  # not read from the API object
    assert "_check_schema_allow_fake_script_object" in text
    assert "(1, 0, 2)" in text  # the OpInfo's order rearranged into the schema's
    assert "op.ref(ref.input" in text and "torch.ops.aten.where.self(*self._arranged(dev)" in text
    assert "self.assertEqual(checked, 6)" in text and "self.assertEqual(checked, 5)" in text


def test_a_packet_reads_every_overloads_schema_and_out_overloads_get_their_out_tensor():
    text = _source(
        overload_plan(
            _builtin("torch.ops.aten.where"), _opinfo_facts(kind="packet", overload=None), "DEVICE"
        )
    )
    assert '_jit_get_schemas_for_operator("aten::where")' in text
    text = _source(
        overload_plan(
            _builtin("torch.ops.aten.where.self_out"),
            _opinfo_facts(out=True, reference="seeded"),
            "DEVICE",
        )
    )
    assert "out = torch.empty(0, dtype=torch.float32, device=DEVICE)" in text
    assert "self.assertIs(actual, out)" in text
    assert (
        "torch.manual_seed(42)" in text and "expected = op.op(same.input" in text
    )  # a random op: same seed
    text = _source(
        overload_plan(
            _builtin("torch.ops.aten.where.self"), _opinfo_facts(reference="float64"), "DEVICE"
        )
    )
    assert (
        'wide = self._sample_to(sample, "cpu", widen=True)' in text
        and "expected = op.op(wide.input" in text
    )


def test_a_batch_norm_plan_asserts_hand_worked_statistics_in_training_and_eval():
    info = _builtin("torch.ops.aten.native_batch_norm.default")
    plan = overload_plan(info, _norm_facts(BN), "DEVICE")
    assert plan.tests == ["test_default_training", "test_default_eval"]
    training, evaluation = (_flat(m.source) for m in plan.methods[:2])
    assert (
        "mean64 = torch.tensor([4.0, 4.0]" in training
        and "var64 = torch.tensor([5.0, 4.0]" in training
    )
    assert "x, weight, bias, running_mean, running_var, True, momentum, eps" in training
    assert (
        "(1 - momentum) * old_var64 + momentum * unbiased64" in training
    )  # the running update, unbiased
    assert "result[2].cpu().double(), invstd64" in training  # the saved inverse standard deviation
    assert (
        ", False, momentum, eps" in evaluation
        and "running_mean.cpu().double(), old_mean64)" in evaluation
    )
    plan = overload_plan(info, _norm_facts(BN, updates=False, modes=(True,)), "DEVICE")
    assert (
        plan.tests == ["test_default_training"]
        and "unbiased64" not in _flat(plan.methods[0].source).split("invstd64 = ")[1]
    )


def test_a_batch_norm_backward_is_compared_with_autograd_of_the_written_out_normalisation():
    info = _builtin("torch.ops.aten.native_batch_norm_backward.default")
    text = _source(overload_plan(info, _norm_facts(BWD, flag="train"), "DEVICE"))
    assert "torch.autograd.grad((y * grad_out64).sum(), (xr, wr, br))" in text
    assert (
        "grad_out, x, weight, running_mean, running_var, save_mean, save_invstd, True, eps, [True, True, True]"
        in text
    )
    assert "torch.tensor([2.0, 5.0], dtype=torch.float64)" in text  # the bias gradient, by hand


def test_no_facts_no_overload_plan():
    info = _builtin("torch.ops.aten.mm.default")
    for facts in (
        {},
        {"overload": {"found": False, "problem": "no ATen schema"}},
        {
            "overload": {
                "found": True,
                "norm": {"found": False, "problem": "not a batch-norm schema"},
                "opinfo": {"found": False, "problem": "no OpInfo entry is named mm"},
            }
        },
    ):
        with pytest.raises(CannotDecide):
            overload_plan(info, facts, "DEVICE")
