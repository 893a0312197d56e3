"""Scaffolded tests on device ``npu`` through the emulated torch_npu (``--emulate npu``): the facts
are measured in an emulated interpreter, the files follow the torch_npu preset (its TestCase, the
``npu:0`` device, ``torch.npu`` spellings of ``torch.cuda`` runtime APIs), pass there, and fail
under a break of their API.

Left out, for the emulation's own gaps (a real torch_npu has both): the ``generator`` family (the
emulated backend registers no device generator: ``torch.Generator(device="npu")`` raises) and the
``checkpoint`` family (``torch.distributed.checkpoint`` copies device tensors into pinned host
memory, which the emulation does not provide; scaffold then writes the fill-in, with that reason).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.scaffold.conftest import ALL_CASES, Case, run_files
from torchparity.emulated import EMULATIONS

pytestmark = pytest.mark.slow

NPU = EMULATIONS["npu"]
_BY_API = {c.api: c for c in ALL_CASES}
#: one API or more of every family the emulation can run, with the CPU cases' breaks where they apply
NPU_CASES = tuple(
    _BY_API[api]
    for api in (
        "torch.no_grad",
        "torch.add",
        "torch.Tensor.item",
        "torch.is_tensor",
        "torch.UntypedStorage",
        "torch.nn.ModuleList",
        "torch.nn.Module.load_state_dict",
        "torch.fx.symbolic_trace",
        "torch.jit.trace",
        "torch.save",
        "torch.UntypedStorage.copy_",
        "torch.optim.SGD",
        "torch.optim.Optimizer.zero_grad",
        "torch.utils.data.DataLoader",
        "torch.autograd.grad",
        "torch.set_warn_always",
    )
) + (
    # a factory: its OpInfo samples name the device they were built for (device="cpu")
    Case(
        "torch.eye",
        "opinfo",  # wrong for float32 only (float64, the reference, stays right)
        "eye = torch.eye\n"
        "def wrong(*args, **kwargs):\n"
        "    out = eye(*args, **kwargs)\n"
        "    return out * 2 if out.dtype == torch.float32 else out\n"
        "torch.eye = wrong",
    ),
    # runtime objects through the backend's module: torch.npu.Event for torch.cuda.Event
    Case(
        "torch.cuda.Event",
        "runtime",  # an event that never reports its work done
        "import torch_npu  # noqa: F401\ntorch.npu.Event.query = lambda self: False",
    ),
    Case(
        "torch.cuda.current_device",
        "runtime",
        "import torch_npu  # noqa: F401\ntorch.npu.current_device = lambda: -1",
    ),
)


@pytest.fixture(scope="module")
def generated_npu(tmp_path_factory) -> dict[str, object]:
    """{api: ScaffoldResult} scaffolded for device npu in an emulated interpreter (torch_npu preset)."""
    pytest.importorskip("torch")
    from torchparity.api import agent_session, resolve_api
    from torchparity.config import load_preset
    from torchparity.scaffold import scaffold_facts_many, scaffold_test

    out = tmp_path_factory.mktemp("scaffolded-npu")
    names = [c.api for c in NPU_CASES]
    config = load_preset("torch_npu")
    with agent_session(sys.executable, NPU.module, NPU.device, environ=NPU.environ()) as session:
        infos = resolve_api(
            names, sys.executable, NPU.module, NPU.device, trace=False, session=session
        )
        facts = scaffold_facts_many(infos, session, backend_module=NPU.module)
    results = {}
    for n, (name, info, f) in enumerate(zip(names, infos, facts, strict=True)):
        assert f["device_type"] == "npu", name  # measured on the emulated device, not the CPU
        results[name] = scaffold_test(
            info,
            config,
            python=sys.executable,
            device=NPU.device,
            backend_module=NPU.module,
            out_dir=out / f"{n:02d}",
            facts=f,
        )
    return results


def test_every_family_is_chosen_on_the_emulated_npu(generated_npu):
    families = {c.family for c in NPU_CASES}
    assert families >= {
        "context",
        "opinfo",
        "tensor",
        "doctest",
        "storage",
        "runtime",
        "module",
        "graph",
        "serialization",
        "optim",
        "data",
        "autograd",
        "measured",
    }
    wrong = [
        (c.api, generated_npu[c.api].family, generated_npu[c.api].fill_in[:1])
        for c in NPU_CASES
        if generated_npu[c.api].family != c.family
    ]
    assert not wrong, wrong
    for case in NPU_CASES:
        text = Path(generated_npu[case.api].path).read_text()
        assert "from torch_npu.testing.testcase import" in text, case.api
        # a Python utility that never touches the device (set_warn_always) has no device line
        assert ('DEVICE = torch.device("npu:0")' in text) == ("DEVICE" in text), case.api
    assert (
        sum(
            'DEVICE = torch.device("npu:0")' in Path(r.path).read_text()
            for r in generated_npu.values()
        )
        >= 15
    )
    event = Path(generated_npu["torch.cuda.Event"].path).read_text()
    assert (
        "torch.npu.Event(enable_timing=True)" in event and "torch.cuda" not in event.split('"""')[2]
    )


def test_pinned_batches_are_left_out_where_the_backend_pins_nothing(generated_npu):
    """The emulation has no pinned host memory: the DataLoader test says so instead of failing on it."""
    text = Path(generated_npu["torch.utils.data.DataLoader"].path).read_text()
    assert "pin_memory=True is left out: pinning host memory for npu failed here" in text
    assert "pin_memory=True)" not in text


def test_every_test_passes_on_the_emulated_npu_and_fails_once_broken(generated_npu, tmp_path):
    jobs = [{"file": generated_npu[c.api].path, "patch": ""} for c in NPU_CASES]
    jobs += [{"file": generated_npu[c.api].path, "patch": c.breakage} for c in NPU_CASES]
    results = run_files(jobs, tmp_path, NPU.environ())
    n = len(NPU_CASES)
    for case, res in zip(NPU_CASES, results[:n], strict=True):
        assert res["exit_code"] == 0 and res["summary"] == "OK", (case.api, res["output"])
    for case, res in zip(NPU_CASES, results[n:], strict=True):
        assert res["exit_code"] != 0, (
            case.api,
            "passed with a wrong implementation",
            res["output"],
        )
        assert res["summary"].startswith("FAILED ("), (case.api, res["summary"], res["output"])
