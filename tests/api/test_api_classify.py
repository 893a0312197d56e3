"""Classification from resolution + trace records (no torch needed)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.api.api_fixtures import clone_resolution
from torchparity.api import Classification, OpCount, Resolution, Trace, classify, merge_traces
from torchparity.api.classify import CATEGORIES, is_device_runtime


def _res(**kw: Any) -> Resolution:
    return clone_resolution(
        "torch.autograd.grad_mode.set_grad_enabled.clone", "torch/autograd/grad_mode.py:206", **kw
    )


EMPTY = Trace(target="call sample", status="ok", device_type="npu")
ADD = Trace(
    target="call sample",
    status="ok",
    device_type="npu",
    ops=(OpCount("aten::add.Tensor", ("npu",), 2),),
    total_ops=2,
    device_tensors_created=2,
    tensors_created=(("npu", 2),),
    devices=("npu",),
)


def test_python_state_needs_an_empty_trace():
    c = classify(_res(), EMPTY, "npu")
    assert c.category == "python-state" and c.evidence == "trace"
    assert "torch/autograd/grad_mode.py:206" in c.conclusion_zh
    assert "仅管理 Python 上下文状态" in c.conclusion_zh
    assert "不创建 NPU 张量" in c.conclusion_zh and "无需 NPU 专用适配" in c.conclusion_zh
    assert "no NPU-specific adaptation" in c.conclusion_en


def test_no_trace_never_claims_python_state():
    c = classify(_res(), None, "npu")
    assert c.category == "other" and c.evidence == "resolution"
    assert "无需" not in c.conclusion_zh
    assert "not established" in c.conclusion_en


def test_failed_trace_is_said():
    failed = replace(EMPTY, status="error", error="RuntimeError: boom")
    c = classify(_res(), failed, "npu")
    assert c.category == "other"
    assert "RuntimeError: boom" in c.conclusion_zh and "RuntimeError: boom" in c.conclusion_en


def test_python_with_ops_is_a_wrapper_and_names_them():
    c = classify(_res(kind="function", owner_class=None, owner_kind=None), ADD, "npu")
    assert c.category == "python-wrapper"
    assert "aten::add.Tensor×2" in c.conclusion_zh and "aten::add.Tensor×2" in c.conclusion_en
    assert "2 operator calls on npu" in c.conclusion_en


def test_python_creating_tensors_without_ops_is_not_python_state():
    created = replace(EMPTY, tensors_created=(("npu", 1),), device_tensors_created=1)
    assert classify(_res(), created, "npu").category == "python-wrapper"


def test_c_extension_is_an_operator():
    res = _res(
        kind="builtin",
        kind_detail="C builtin",
        source="C extension",
        canonical="torch.add",
        owner_class=None,
        owner_kind=None,
        module="torch",
    )
    c = classify(res, ADD, "npu")
    assert c.category == "operator"
    assert "NPU 需提供这些算子的实现" in c.conclusion_zh
    assert classify(res, None, "npu").category == "operator"  # a C binding, even untraced
    assert "not established" in classify(res, None, "npu").conclusion_en


def test_a_c_binding_that_dispatches_nothing_is_not_an_operator():
    # Tensor.ndimension reads metadata: its trace shows no operator, so "operator" would contradict it
    res = _res(
        kind="method",
        kind_detail="C method",
        source="C extension",
        canonical="torch.Tensor.ndimension",
        owner_class="torch.Tensor",
        owner_kind="class",
        module="torch",
    )
    c = classify(res, EMPTY, "npu")
    assert c.category == "c-binding" and "算子或" not in c.conclusion_zh
    assert "no ATen operator dispatched" in c.conclusion_en


def test_device_runtime_by_module_and_backend():
    res = _res(
        canonical="torch.cuda.streams.Event",
        kind="class",
        module="torch.cuda.streams",
        owner_class=None,
        owner_kind=None,
        source="torch/cuda/streams.py:159",
    )
    c = classify(res, replace(EMPTY, status="error", error="RuntimeError: no CUDA"), "cpu")
    assert c.category == "device-runtime"
    assert (
        "RuntimeError: no CUDA" in c.conclusion_zh
        and "verify on the target device" in c.conclusion_en
    )
    npu = _res(
        canonical="torch_npu.npu.Event",
        module="torch_npu.npu.streams",
        kind="class",
        owner_class=None,
        owner_kind=None,
    )
    assert is_device_runtime(npu, "torch_npu")
    assert not is_device_runtime(npu, "")
    assert is_device_runtime(
        _res(
            canonical="torch.Event", module="torch", kind="class", owner_class=None, owner_kind=None
        )
    )


@pytest.mark.parametrize("kind", ["module", "attribute", "enum-member"])
def test_values_and_modules_are_other(kind):
    c = classify(_res(kind=kind, owner_class=None, owner_kind=None), None, "npu")
    assert c.category == "other" and c.evidence == "resolution"


def test_cpu_runs_speak_of_no_particular_device():
    c = classify(_res(), replace(EMPTY, device_type="cpu"), "cpu")
    assert "NPU" not in c.conclusion_zh and "CPU" not in c.conclusion_zh
    assert "不创建任何张量" in c.conclusion_zh and "设备专用适配" in c.conclusion_zh


def test_categories_are_the_documented_five():
    assert CATEGORIES == (
        "python-state",
        "python-wrapper",
        "operator",
        "c-binding",
        "device-runtime",
        "other",
    )
    assert isinstance(classify(_res(), EMPTY, "npu"), Classification)


def test_trace_round_trip_and_merge():
    doc = ADD.to_json()
    assert Trace.from_json(doc) == ADD
    mul = Trace(
        target="b",
        status="ok",
        device_type="npu",
        ops=(OpCount("aten::mul.Tensor", ("npu",), 1), OpCount("aten::add.Tensor", ("npu",), 1)),
        total_ops=2,
        tensors_created=(("npu", 2),),
        devices=("npu",),
        tests_run=1,
        successful=True,
    )
    merged = merge_traces([replace(ADD, tests_run=2, successful=True), mul], "a, b")
    assert merged.op_count("aten::add") == 3
    assert merged.op_count("aten::mul.Tensor", "npu") == 1
    assert merged.total_ops == 4 and merged.tests_run == 3 and merged.successful is True
    assert dict(merged.tensors_created) == {"npu": 4}
