"""Non-ATen APIs (helper ``mods``) that got the fill-in.

* nn module classes the probe cannot construct (``torch.nn.LSTM(*args, **kwargs)``),
  built from upstream's ``module_db`` sample (the ``module`` family);
* TorchScript's type classes ``torch._C.Type`` and its subclasses (``jittype``);
* runtime switches: a setter with a paired getter, the default device, a
  tensor's version counter (``switch``); ``torch.accelerator.Graph``,
  ``empty_host_cache`` and ``torch._C._accelerator_isAllocatorInitialized``
  (``runtime``: the documented refusal on a CPU-only build).

Each is scaffolded for the CPU (and the ones the emulation can run for the
emulated npu), passes there, and fails under a targeted break of its API.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow


def _forward_changed(cls: str, change: str) -> str:
    """``cls.forward`` whose result goes through ``change`` (a lambda of the result)."""
    return (
        f"forward = {cls}.forward\n"
        f"{cls}.forward = lambda self, *a, **k: ({change})(forward(self, *a, **k))"
    )


MODULES = (
    Case(
        "torch.nn.LSTM", "module", _forward_changed("torch.nn.LSTM", "lambda r: (r[0] * 2, r[1])")
    ),
    Case(
        "torch.nn.GRU",
        "module",  # the last hidden state halved
        _forward_changed("torch.nn.GRU", "lambda r: (r[0], r[1] * 0.5)"),
    ),
    Case(
        "torch.nn.RNN", "module", _forward_changed("torch.nn.RNN", "lambda r: (r[0] + 0.01, r[1])")
    ),
    Case(
        "torch.nn.Transformer",
        "module",
        _forward_changed("torch.nn.Transformer", "lambda r: r.flip(-1)"),
    ),
)
TYPES = (
    Case(
        "torch._C.Type", "jittype", "torch.Type = object"
    ),  # everything an instance, constructible
    Case("torch._C.OptionalType", "jittype", "torch.OptionalType = torch._C.ListType"),
    Case("torch._C.ListType", "jittype", "torch.ListType = torch._C.OptionalType"),
    Case(
        "torch._C.TupleType",
        "jittype",  # the element order reversed
        "tuple_type = torch._C.TupleType\ntorch.TupleType = lambda types: tuple_type(list(reversed(types)))",
    ),
    Case(
        "torch._C.DictType",
        "jittype",
        "dict_type = torch._C.DictType\ntorch.DictType = lambda k, v: dict_type(k, k)",
    ),
    Case("torch._C.TensorType", "jittype", "torch.TensorType = torch._C.NumberType"),
    Case("torch._C.IntType", "jittype", "torch.IntType = torch._C.FloatType"),
)
SWITCHES = (
    Case(
        "torch._C._set_autograd_fallback_mode",
        "switch",  # the mode ignored
        "torch._C._set_autograd_fallback_mode = lambda mode: None",
    ),
    Case(
        "torch._C._autograd._unsafe_set_version_counter",
        "switch",  # the versions ignored
        "torch._C._autograd._unsafe_set_version_counter = lambda tensors, versions: None",
    ),
    Case(
        "torch.set_default_device",
        "switch",  # None not resetting to the CPU
        "setter = torch.set_default_device\n"
        "torch.set_default_device = lambda device: setter('meta' if device is None else device)",
    ),
    Case(
        "torch.get_autocast_dtype",
        "switch",  # a getter keyed by device type: one dtype whatever was set
        "torch.get_autocast_dtype = lambda device_type: torch.bfloat16",
    ),
    Case(
        "torch.set_autocast_dtype",
        "switch",  # its setter: the dtype ignored
        "torch.set_autocast_dtype = lambda device_type, dtype: None",
    ),
)
ACCELERATOR = (  # on a CPU-only build: a call that answers although no accelerator exists
    Case(
        "torch._C._accelerator_isAllocatorInitialized",
        "runtime",
        "torch._C._accelerator_isAllocatorInitialized = lambda: False",
    ),
    Case("torch.accelerator.Graph", "runtime", "torch.accelerator.Graph = lambda *a, **k: None"),
    Case(
        "torch.accelerator.memory.empty_host_cache",
        "runtime",
        "torch.accelerator.empty_host_cache = torch.accelerator.memory.empty_host_cache = lambda: None",
    ),
)
#: a toggle named allow_X whose getter is X_allowed (the probe pairs them; measured holds the read-back)
TOGGLES = (
    Case(
        "torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp",
        "measured",  # the flag ignored
        "torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp = lambda enabled: None",
    ),
)
CPU_CASES = MODULES + TYPES + SWITCHES + ACCELERATOR + TOGGLES
#: the emulated npu: the Transformer (the recurrent modules need the fused cell kernels, ``_thnn_fused_lstm_cell``,
#: which the emulation lacks: a real torch_npu has them), the types and the switches (its torch.accelerator has no
#: graphs or host cache)
NPU_CASES = MODULES[3:] + TYPES[:2] + TYPES[5:6] + SWITCHES


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CPU_CASES, [c.api for c in CPU_CASES], tmp_path_factory.mktemp("mods"))
    for case in CPU_CASES:
        res = results[case.api]
        assert res.family == case.family, (case.api, res.fill_in)
        assert not res.notes, (case.api, res.notes)  # every template test passes on the CPU
    for case in MODULES:
        text = Path(results[case.api].path).read_text()
        assert "_forward" in text and ".to(DEVICE)" in text and "measured on the CPU" in text, (
            case.api
        )
    assert "(D * module.num_layers, N, H_out)" in Path(results["torch.nn.LSTM"].path).read_text()
    _passes_and_fails_once_broken(CPU_CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        NPU_CASES,
        [c.api for c in NPU_CASES],
        tmp_path_factory.mktemp("mods-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    for case in NPU_CASES:
        res = results[case.api]
        assert res.family == case.family, (case.api, res.fill_in)
    for case in (MODULES[3], TYPES[5], SWITCHES[1], SWITCHES[2]):
        assert 'DEVICE = torch.device("npu:0")' in Path(results[case.api].path).read_text(), (
            case.api
        )
    _passes_and_fails_once_broken(NPU_CASES, results, tmp_path, npu.environ())


def test_the_agent_measures_the_values_a_switch_takes_and_restores_it():
    """Bool and str switches the ``measured`` family already holds (it comes first): the facts still hold."""
    torch = pytest.importorskip("torch")
    from torchparity.agent.facts.switch import switch_facts

    before = torch._C._get_float32_matmul_precision()
    facts = switch_facts(
        torch,
        torch._C._set_float32_matmul_precision,
        {"path": "torch._C._set_float32_matmul_precision"},
    )
    assert facts["kind"] == "str" and {"highest", "high", "medium"} <= set(facts["accepted"]), facts
    assert (
        "refused" in facts and torch._C._get_float32_matmul_precision() == before
    )  # restored after the tries
    enabled = torch._C._get_mkldnn_enabled()
    facts = switch_facts(
        torch, torch._C._set_mkldnn_enabled, {"path": "torch._C._set_mkldnn_enabled"}
    )
    assert facts["kind"] == "bool" and facts["accepted"] == [True, False]
    assert torch._C._get_mkldnn_enabled() == enabled
    threads = torch.get_num_threads()  # an int mode: the values it takes, restored after
    facts = switch_facts(torch, torch.set_num_threads, {"path": "torch.set_num_threads"})
    assert facts["kind"] == "int" and {threads, threads + 1} <= set(facts["accepted"]), facts
    assert torch.get_num_threads() == threads
