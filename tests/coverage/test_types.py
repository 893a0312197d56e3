"""Types of names: a method called on a receiver whose type is inferred is direct, and says how;
each form has a twin that must not be direct (rebound to a non-tensor, an unrelated class's
same-named method, a string or comment, a helper nobody calls, a library's own code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.coverage import types_files as tf
from tests.coverage.conftest import RepoFactory
from torchparity.coverage import coverage_for
from torchparity.store import Store

T = "test/test_tensor_forms.py::"
OT = "test/test_others.py::TestOthers::"
A = "test/npu/test_across.py::TestAcross::"


@pytest.fixture
def repo(cov_repo: RepoFactory) -> Path:
    return cov_repo(
        {
            "master": {
                "test/test_tensor_forms.py": tf.TENSORS,
                "test/test_others.py": tf.OTHERS,
                "test/npu/test_across.py": tf.ACROSS,
                "test/npu/helpers.py": tf.HELPERS,
                "test/npu/common.py": tf.COMMON,
                "test/npu/base.py": tf.BASE,
                "mypkg/testing/common_utils.py": tf.SHARED_UTILS,
                "mypkg/testing/__init__.py": "",
                "mypkg/__init__.py": "",
                "mypkg/ops.py": tf.LIBRARY,
            }
        }
    )


@pytest.fixture
def report(repo: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    apis = [
        "torch.Tensor.ndimension",
        "torch.UntypedStorage.cpu",
        "torch.optim.Optimizer.zero_grad",
        "torch.Stream.query",
        "torch.set_grad_enabled.clone",
        "torch.Tensor.cpu",
        "torch.BoolStorage",
    ]
    return coverage_for(apis, repo, ["master"], Store(tmp_path / "s"), grep="off")


def _direct(report, api: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {h.test: h.how for h in report[api].refs[0].direct}


POSITIVE = {
    "TestTensorForms::test_factory_and_device_method": "via x: Tensor from torch.randn(...).npu()",
    "TestTensorForms::test_moves_and_copies": "via y: Tensor from torch.ones(...).cuda().to(...).cpu().clone()",
    "TestTensorForms::test_arithmetic_and_indexing": "via c: Tensor from b[0]",
    "TestTensorForms::test_parameter": "via p: Parameter from torch.nn.Parameter(...)",
    "TestTensorForms::test_setup_attribute": "via self.x: Tensor from torch.randn(...).npu()",
    "TestTensorForms::test_setup_class_attribute": "via self.shared: Tensor from torch.zeros(...)",
    "TestTensorForms::test_loop_target": "via t: Tensor",
    "TestTensorForms::test_tuple_unpacking": "via values: Tensor from torch.randn(...).max(...)[0]",
    "TestTensorForms::test_helper_return": "via helper make_npu()",
    "TestTensorForms::test_annotated_parameter": "via t: Tensor (annotated torch.Tensor)",
    "TestTensorForms::test_branches_that_agree": "via w: Tensor",
    "TestTensorForms::test_nested_function_called": "via parameter t",
    "test_fixture": "via fixture tensor",
}
NEGATIVE = [
    "TestTensorForms::test_not_rebound_to_a_list",
    "TestTensorForms::test_not_an_unrelated_class",
    "TestTensorForms::test_not_an_int_from_a_tensor",
    "TestTensorForms::test_not_a_string_attribute",
    "TestTensorForms::test_not_a_loop_over_strings",
    "TestTensorForms::test_not_the_int_of_a_tuple",
    "TestTensorForms::test_not_a_helper_never_called",
    "TestTensorForms::test_not_in_a_comment_or_string",
    "TestTensorForms::test_not_branches_that_disagree",
    "TestTensorForms::test_not_a_nested_function_never_called",
]


def test_every_tensor_form_is_direct_and_says_how(report) -> None:  # type: ignore[no-untyped-def]
    direct = _direct(report, "torch.Tensor.ndimension")
    for test, how in POSITIVE.items():
        assert T + test in direct, f"{test} not direct; direct: {sorted(direct)}"
        assert how in direct[T + test], (test, direct[T + test])


def test_no_negative_twin_is_direct(report) -> None:  # type: ignore[no-untyped-def]
    direct = _direct(report, "torch.Tensor.ndimension")
    assert [t for t in NEGATIVE if T + t in direct] == []
    mine = {t for t in direct if t.startswith(T)}
    assert mine == {T + t for t in POSITIVE}


def test_storages_optimizers_and_with_targets(report) -> None:  # type: ignore[no-untyped-def]
    storage = _direct(report, "torch.UntypedStorage.cpu")
    assert report["torch.UntypedStorage.cpu"].canonical == "torch.storage.UntypedStorage.cpu"
    assert (
        "via npu_storage: UntypedStorage from torch.tensor(...).npu().untyped_storage()"
        in storage[OT + "test_untyped_storage_from_a_tensor"]
    )
    assert OT + "test_untyped_storage_constructed" in storage
    assert OT + "test_not_a_tensor_cpu" not in storage
    assert OT + "test_not_a_tensor_cpu" in _direct(report, "torch.Tensor.cpu")
    opt = _direct(report, "torch.optim.Optimizer.zero_grad")
    assert "via optimizer: SGD from torch.optim.SGD(...)" in opt[OT + "test_optimizer_through_mro"]
    assert "inherited via SGD" in opt[OT + "test_optimizer_through_mro"]
    assert OT + "test_not_a_module_zero_grad" not in opt
    assert OT + "test_with_target" in _direct(report, "torch.Stream.query")
    assert OT + "test_not_a_with_target_that_is_none" not in _direct(
        report, "torch.set_grad_enabled.clone"
    )
    bools = _direct(report, "torch.BoolStorage")
    assert bools == {OT + "test_class_member_through_the_class": "member of the class"}


def test_helpers_and_bases_across_files(report) -> None:  # type: ignore[no-untyped-def]
    nd = _direct(report, "torch.Tensor.ndimension")
    assert "via helper create_common_tensor()" in nd[A + "test_shared_utility_tuple"]
    assert "via npu_input: Tensor" in nd[A + "test_shared_utility_tuple"]
    assert A + "test_helper_file_tuple" in nd
    assert A + "test_not_the_int_of_a_helper_tuple" not in nd
    assert "via helper calls_deeper(), via helper second_level()" in nd[A + "test_two_levels_deep"]
    assert A + "test_not_library_code" not in nd
    assert A + "test_not_an_imported_helper_never_called" not in nd
    opt = _direct(report, "torch.optim.Optimizer.zero_grad")
    assert "via helper zero()" in opt[A + "test_helper_with_argument"]
    assert A + "test_shared_utility_return_type" in opt
    storage = _direct(report, "torch.UntypedStorage.cpu")
    inherited = storage[A + "test_inherited_storage_cpu"]
    assert "in a test inherited from test/npu/base.py::StorageTestBase" in inherited
    # the base's own test is listed where it is defined, too
    assert "test/npu/base.py::StorageTestBase::test_inherited_storage_cpu" in storage


def test_the_json_record_carries_how(report) -> None:  # type: ignore[no-untyped-def]
    doc = report["torch.Tensor.ndimension"].to_json()
    hit = next(
        h for h in doc["refs"][0]["direct"] if h["test"].endswith("test_factory_and_device_method")
    )
    assert hit["how"] == "call, via x: Tensor from torch.randn(...).npu()"
