"""``torch.accelerator`` runtime templates, and another backend's ``is_initialized``.

On a CPU-only build the tests assert the documented refusal (``is_available()``
False, ``RuntimeError`` "none is available"); on the emulated npu, the device
index as documented. Each passes where it is
scaffolded and fails under a targeted break: a call that answers although no
accelerator exists, a wrong current index, another backend's runtime claiming
to be started.
"""

from __future__ import annotations

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow


def _answers(leaf: str, value: str = "None") -> Case:
    return Case(
        f"torch.accelerator.{leaf}",
        "runtime",
        f"torch.accelerator.{leaf} = lambda *a, **k: {value}",
    )


CPU_CASES = (
    _answers("current_device_index", "0"),
    _answers("set_device_index"),
    _answers("synchronize"),
    _answers("memory_allocated", "0"),
    _answers("memory_stats", "{}"),
    _answers("empty_cache"),
    _answers("get_memory_info", "(0, 1)"),
    _answers("get_device_capability", "{'supported_dtypes': {torch.float32}}"),
    Case(
        "torch.accelerator.current_stream",
        "runtime",
        "torch.accelerator.current_stream = lambda *a: torch.Stream(device='cpu')",
    ),
    Case("torch.xpu.is_initialized", "runtime", "torch.xpu.is_initialized = lambda: True"),
)
#: on the emulated npu every stream is stream 0 of device 0 (they all compare equal), and there is no caching
#: allocator or device-wide synchronize: the stream, memory and synchronize tests cannot pass or discriminate there
NPU_CASES = (
    Case(
        "torch.accelerator.current_device_index",
        "runtime",  # a wrong index
        "torch.accelerator.current_device_index = lambda: torch.accelerator.device_count() - 1",
    ),
    Case("torch.xpu.is_initialized", "runtime", "torch.xpu.is_initialized = lambda: True"),
)


def test_on_a_cpu_only_build_the_refusal_is_asserted_and_a_call_that_answers_fails(
    tmp_path_factory, tmp_path
):
    pytest.importorskip("torch")
    results, _ = _scaffold(CPU_CASES, [c.api for c in CPU_CASES], tmp_path_factory.mktemp("acc"))
    for case in CPU_CASES:
        assert results[case.api].family == case.family, (case.api, results[case.api].fill_in)
    _passes_and_fails_once_broken(CPU_CASES, results, tmp_path)


def test_on_the_emulated_npu_the_device_behaviour_is_asserted_and_fails_once_broken(
    tmp_path_factory, tmp_path
):
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        NPU_CASES,
        [c.api for c in NPU_CASES],
        tmp_path_factory.mktemp("acc-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    for case in NPU_CASES:
        assert results[case.api].family == case.family, (case.api, results[case.api].fill_in)
    _passes_and_fails_once_broken(NPU_CASES, results, tmp_path, npu.environ())
