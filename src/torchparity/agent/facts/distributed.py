"""What a call of torch.distributed needs around it: a one-process group, a one-worker RPC agent, a
one-device mesh. The probe tries an API again inside them when a plain pass found nothing and the API is
distributed's or a failed call asked for one.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .runner import Scenario
from .scenarios import Scenarios

#: a one-process group, for APIs of torch.distributed that need one to exist
PROCESS_GROUP = (
    "torch.distributed.init_process_group(backend=None, store=torch.distributed.HashStore(), "
    "rank=0, world_size=1)",
)
NO_PROCESS_GROUP = ("torch.distributed.destroy_process_group()",)
#: a one-device mesh made current after the process group: DTensor factories and ops ask for one
DEVICE_MESH = (
    "_MESH_ = torch.distributed.device_mesh.init_device_mesh(DEVICE.type, (1,))",
    "_MESH_.__enter__()",
)
NO_DEVICE_MESH = ("_MESH_.__exit__(None, None, None)",)


#: a one-worker RPC agent (its rendezvous a file in the test's folder): rpc_sync, remote, RRef ask for one
RPC_AGENT = (
    'torch.distributed.rpc.init_rpc("worker0", rank=0, world_size=1, '
    "rpc_backend_options=torch.distributed.rpc.TensorPipeRpcBackendOptions("
    'init_method="file://" + os.path.join(_TMP_, "rpc_store")))',
)
NO_RPC_AGENT = ("torch.distributed.rpc.shutdown()",)


def _asks_for_rpc(res: Dict[str, Any], engine: Scenarios) -> bool:
    """Whether the API is RPC's, or a failed call asked for an RPC agent (``RPC has not been initialized``)."""
    names = [res.get("canonical", ""), res.get("path", "")] + list(res.get("aliases", []))
    return any(
        n.startswith(("torch.distributed.rpc", "torch._C._distributed_rpc")) for n in names
    ) or any(
        "init_rpc" in e or "RPC has not been initialized" in e or "only works in RPC" in e
        for e in engine.errors_seen
    )


def _asks_for_mesh(engine: Scenarios) -> bool:
    """Whether a failed call asked for a current device mesh (``No device mesh is currently active``)."""
    return any("device mesh" in e.lower() or "DeviceMesh" in e for e in engine.errors_seen)


def _asks_for_group(engine: Scenarios) -> bool:
    """Whether a failed call asked for a process group (``DistributedDataParallel`` outside torch.distributed)."""
    return any(
        "process group has not been initialized" in e or "init_process_group" in e
        for e in engine.errors_seen
    )


def _distributed(res: Dict[str, Any]) -> bool:
    names = [res.get("canonical", ""), res.get("path", "")] + list(res.get("aliases", []))
    return any(n.startswith(("torch.distributed", "torch._C._distributed")) for n in names)


def in_process_group(
    engine: Scenarios, torch: Any, res: Dict[str, Any]
) -> Optional[Tuple[List[Scenario], List[Scenario]]]:
    """The scenarios of the API inside a one-process group (then, where a failed call asks for them, an
    RPC agent or a device mesh), where the API is distributed's or a failed call asked for a group and
    none exists yet; None where no such pass is tried. The engine keeps the prelude and postlude of the
    last pass tried."""
    dist = getattr(torch, "distributed", None)
    if not (
        (_distributed(res) or _asks_for_group(engine))
        and dist is not None
        and dist.is_available()
        and not dist.is_initialized()
        and not engine.out_of_time()
    ):
        return None
    engine.prelude, engine.postlude = list(PROCESS_GROUP), list(NO_PROCESS_GROUP)
    engine.errors_seen = []  # what this pass asks for (a mesh), not the plain pass's missing group
    valid, invalid = engine.scenarios()
    if not valid and not engine.out_of_time() and _asks_for_rpc(res, engine):
        engine.prelude, engine.postlude = list(RPC_AGENT), list(NO_RPC_AGENT)
        valid, invalid = engine.scenarios()
    if not valid and not engine.out_of_time() and _asks_for_mesh(engine):
        engine.prelude = list(PROCESS_GROUP + DEVICE_MESH)
        # the group first: a mesh that failed to build leaves no _MESH_ to exit, and the group must still go
        engine.postlude = list(NO_PROCESS_GROUP + NO_DEVICE_MESH)
        valid, invalid = engine.scenarios()
    return valid, invalid
