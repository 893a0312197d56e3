"""The probe's one-process worlds, on real torch.distributed APIs.

* DTensor factories run under a one-device mesh, and a DTensor is checked by its placements and the
  whole tensor it stands for; the mesh and the group are gone after;
* an RPC runs on a one-worker agent and its result is awaited; a recipe or a construction that asks for
  the RPC agent or a process group gets that pass;
* torch.distributed.elastic's rendezvous backend and handler, a store, a device mesh, FSDP and a DDP
  gradient bucket have recipes; a ``process_group`` parameter is given the probe's world group, and a
  comm hook a state for it and a gradient bucket.
"""

from __future__ import annotations

import pytest

from tests.agent.probe_fixtures import _calls, _facts
from tests.lazy import torch  # imported on first use, not at collection
from torchparity.agent.api.objects import walk
from torchparity.agent.api.resolve import resolve
from torchparity.agent.facts import distributed
from torchparity.agent.facts import probe as fp


@pytest.mark.slow
def test_dtensor_factories_run_under_a_one_device_mesh() -> None:
    if not torch.distributed.is_available():
        pytest.skip("this torch has no torch.distributed")
    res = resolve("torch.distributed.tensor.ones")
    out = fp.probe_facts(torch, res, walk(res["path"]).obj, None, "cpu")
    assert out["valid"], out["problem"]
    first = out["valid"][0]
    assert any("init_device_mesh" in line for line in first["prelude"]), first["prelude"]
    assert "_MESH_.__exit__(None, None, None)" in first["teardown"]
    kinds = [c[0] for c in first["checks"]]
    assert ["type", "result", "torch.distributed.tensor.DTensor"] in first["checks"]
    assert "tensor" in kinds and any(c[1] == "result.full_tensor()" for c in first["checks"]), (
        first["checks"]
    )
    assert not torch.distributed.is_initialized()
    assert not torch.distributed.device_mesh._mesh_resources.mesh_stack  # the mesh left too
    # the group goes first in the teardown: a mesh that failed to build leaves no _MESH_ to exit
    assert first["teardown"].index("torch.distributed.destroy_process_group()") < first[
        "teardown"
    ].index("_MESH_.__exit__(None, None, None)")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "check"),
    [
        (
            "torch.distributed.rpc.remote",
            ["eq", "result.to_here()", "0"],
        ),  # read before the agent shuts down
        ("torch.distributed.rpc.rpc_async", ["eq", "result.wait()", "0"]),
    ],
)
def test_an_rpc_runs_on_a_one_worker_agent_and_its_result_is_awaited(
    name: str, check: list[str]
) -> None:
    res = resolve(name)
    out = fp.probe_facts(torch, res, walk(res["path"]).obj, None, "cpu")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["prelude"] == list(distributed.RPC_AGENT), sc["prelude"]
    assert "int)" in sc["call"], sc["call"]  # a function that pickles and is no torch builtin
    assert check in sc["checks"], sc["checks"]
    assert not torch.distributed.rpc.api._is_current_rpc_agent_set()


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, call, check",
    [
        (
            "torch.distributed.elastic.rendezvous.dynamic_rendezvous.RendezvousBackend.set_state",
            "backend.set_state(",
            # the state, its token and that it was set: bytes held by value
            ["eq", "result", "(b'\\x00\\x00\\x80?\\x00\\x00\\x00@', b'AACAPwAAAEA=', True)"],
        ),
        (
            "torch.distributed.elastic.rendezvous.RendezvousHandler.get_run_id",
            "handler.get_run_id()",
            ["eq", "result", "'run'"],
        ),
        (
            "torch.distributed.device_mesh.DeviceMesh.get_coordinate",
            "mesh.get_coordinate()",
            ["eq", "result", "(0,)"],
        ),
    ],
)
def test_distributed_objects_have_recipes(name: str, call: str, check: list) -> None:
    out = _facts(name)
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["call"].startswith(call), sc["call"]
    assert check in sc["checks"]


@pytest.mark.slow
def test_a_recipe_that_asks_for_rpc_gets_the_rpc_pass() -> None:
    out = _facts("torch.distributed.nn.api.remote_module.RemoteModule.get_module_rref")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert any("init_rpc" in line for line in sc["prelude"])
    assert ["type", "result.to_here()", "torch.nn.modules.linear.Linear"] in sc["checks"]


@pytest.mark.slow
def test_a_construction_that_asks_for_a_process_group_gets_the_group_pass() -> None:
    # DistributedDataParallel lives in torch.nn.parallel: only its failed construction asks for a group
    out = _facts("torch.nn.parallel.DistributedDataParallel.join_hook")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert any("init_process_group" in line for line in sc["prelude"])
    assert ["same", "result.ddp", sc["receiver"]] in sc["checks"]


@pytest.mark.slow
def test_a_process_group_parameter_is_given_the_world_group() -> None:
    """``DeviceMesh.from_group(group, device_type)``: the probe's one-process group."""
    out = _facts("torch.distributed.device_mesh.DeviceMesh.from_group")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["setup"] == ["group = torch.distributed.group.WORLD"]
    assert sc["call"].startswith("_OWNER_.from_group(group, ")
    assert ["tensor", "result.mesh", "torch.tensor([0], dtype=torch.int32)"] in sc["checks"]
    assert any("init_process_group" in line for line in sc["prelude"])


@pytest.mark.slow
def test_fsdp_has_a_recipe() -> None:
    out = _facts("torch.distributed.fsdp.FullyShardedDataParallel.clip_grad_norm_")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["call"] == "fsdp.clip_grad_norm_(1)"
    assert sc["checks"] == [
        ["tensor", "result", "torch.tensor(2.8284270763397217, dtype=torch.float32)"]
    ]


@pytest.mark.slow
def test_a_comm_hook_is_given_a_state_for_the_world_group_and_a_gradient_bucket() -> None:
    calls = _calls(
        "torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook.batched_powerSGD_hook"
    )
    sc = calls["_API_(state, bucket)"]
    assert sc["setup"][-1].endswith("PowerSGDState(torch.distributed.group.WORLD)")
    assert "bucket = buckets[0]" in sc["setup"]
    # before start_powerSGD_iter the hook is a plain allreduce: of one process, the bucket itself
    assert [
        "tensor",
        "result.wait()",
        "torch.tensor([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], dtype=torch.float32)",
    ] in sc["checks"]
