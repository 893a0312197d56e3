"""Fast units of the ``kinds`` family: which kinds a name or an error asks for, and what a plan spells."""

from __future__ import annotations

from torchparity.agent.facts.tensor_kinds import KIND_POOLS, kinds_in_error, kinds_in_name, words
from torchparity.scaffold.code import Spelling
from torchparity.scaffold.tensor_kinds import scenario_lines


def test_words_split_dots_underscores_and_case() -> None:
    assert words("torch.Tensor.crow_indices") == ["torch", "tensor", "crow", "indices"]
    assert words("torch.sparse.DoubleTensor") == ["torch", "sparse", "double", "tensor"]


def test_names_ask_for_their_kinds() -> None:
    assert kinds_in_name("torch.Tensor.crow_indices")[:1] == ["sparse_csr"]
    assert kinds_in_name("torch.Tensor.col_indices")[:2] == ["sparse_csr", "sparse_bsr"]
    assert kinds_in_name("torch.Tensor.row_indices")[:2] == ["sparse_csc", "sparse_bsc"]
    assert kinds_in_name("torch.nested.to_padded_tensor") == ["nested"]
    assert kinds_in_name("torch.sparse.sum")[0] == "sparse_coo"
    assert kinds_in_name("torch.dequantize") == ["quantized"]
    assert kinds_in_name("torch.Tensor.int_repr") == ["quantized", "int"]


def test_whole_words_only() -> None:
    """No kind from a word that merely contains a kind's abbreviation."""
    for name in (
        "torch._logging._internal._is_torch_handler",
        "torch.interpolate",
        "torch.nn.Conv2d",
        "torch.cooperative_groups",
        "torch.Tensor.row_stack",
        "torch.Tensor.cumsum",
        "torch._jit_internal.is_optional",
        "torch.boolean_dispatch",
        "torch.Tensor.index_select",
    ):
        assert kinds_in_name(name) == [], name


def test_errors_ask_for_kinds() -> None:
    assert (
        kinds_in_error(
            "RuntimeError: expected sparse row compressed tensor layout but got Strided"
        )[0]
        == "sparse_csr"
    )
    assert "nested" in kinds_in_error("RuntimeError: NestedTensor expected")
    assert kinds_in_error(
        "RuntimeError: Could not run 'aten::q_scale' with arguments from the 'CPU' backend. "
        "QuantizedCPU"
    ) == ["quantized"]
    assert kinds_in_error("RuntimeError: shapes cannot be multiplied") == []


def test_pools_build_on_the_device_and_carry_their_values_by_hand() -> None:
    for kind, pool in KIND_POOLS.items():
        for src, _hand in pool:
            assert "device=DEVICE" in src or kind in ("quantized", "quant_module"), src


def test_a_scenario_spells_the_device_the_hand_values_the_checks_and_the_dense_operator() -> None:
    sc = {
        "setup": [
            "x = torch.sparse_coo_tensor(torch.tensor([[0], [1]]), torch.tensor([2.0]), (1, 2), "
            "device=DEVICE)"
        ],
        "call": "_API_(x)",
        "hand": {"x": ["[[0.0, 2.0]]", "sparse_coo"]},
        "kind": "sparse_coo",
        "checks": [
            ["eq", "result.device.type", "DEVICE.type"],
            ["tensor", "result", "torch.tensor(2.0)"],
        ],
        "counterpart": "torch.sum(x.cpu().to_dense())",
    }
    lines = scenario_lines(sc, Spelling(api="torch.sparse.sum", owner="", device="device"))
    assert "device=device)" in lines[1]
    assert "self.assertEqual(x.cpu().to_dense().tolist(), [[0.0, 2.0]])" in lines
    assert "result = torch.sparse.sum(x)" in lines
    assert "self.assertEqual(result.device.type, device.type)" in lines
    assert (
        lines[-1] == "torch.testing.assert_close(result.cpu(), torch.sum(x.cpu().to_dense()).cpu())"
    )


def test_a_nested_argument_is_checked_by_its_components() -> None:
    sc = {
        "setup": ["nt = torch.nested.nested_tensor([torch.tensor([1.0])], device=DEVICE)"],
        "call": "_API_(nt, 0.0)",
        "hand": {"nt": ["[[1.0]]", "nested"]},
        "checks": [["is", "result.is_nested", "True"]],
    }
    lines = scenario_lines(
        sc, Spelling(api="torch.nested.to_padded_tensor", owner="", device="DEVICE")
    )
    assert "self.assertEqual([t.tolist() for t in nt.cpu().unbind()], [[1.0]])" in lines
    assert "result = torch.nested.to_padded_tensor(nt, 0.0)" in lines


def test_a_check_of_its_arguments_returns_none_and_refuses_an_index_outside_the_matrix() -> None:
    sc = {
        "setup": [],
        "call": "_API_(torch.tensor([[0], [1]], device=DEVICE), (2, 3))",
        "checks": [["is", "result", "None"]],
        "kind": "dense",
        "raises": ["_API_(torch.tensor([[0], [5]], device=DEVICE), (2, 3))", "RuntimeError"],
    }
    lines = scenario_lines(
        sc, Spelling(api="torch._validate_sparse_coo_tensor_args", owner="", device="DEVICE")
    )
    assert "self.assertIs(result, None)" in lines
    assert lines[-2:] == [
        "with self.assertRaises(RuntimeError):",
        "    torch._validate_sparse_coo_tensor_args(torch.tensor([[0], [5]], device=DEVICE), (2, 3))",
    ]
