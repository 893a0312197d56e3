"""torch.distributed process groups and collectives, for the CPU and the emulated npu.

Each API gets a test in which a world of two gloo ranks (the test's process and a forked peer)
runs one scenario and checks what each rank receives from the other against values worked out by
hand; on a device torch knows a collective backend for, the scenario runs again in a world of one
there. Each is scaffolded, passes on the CPU and on device ``npu`` of the emulated torch_npu (which
registers no collective backend: there the world of two is the whole test), and fails under a
targeted break of its API: ranks swapped by ``init_process_group``, ``get_global_rank``
answering the group's rank, ``ReduceOp.MAX`` reducing with min, ``all_gather_tensor`` ignoring
its dimension, a ``destroy_process_group``
that keeps the group, an ``is_initialized`` always true, a ``barrier`` that does not wait,
``all_reduce`` ignoring its op, ``all_gather`` in reverse order, a broadcast from the wrong rank,
``reduce_scatter`` handing every rank the first element, ``isend`` sending zeros, ``irecv``
receiving into a copy, the functional ops reducing with max or gathering the rank's own tensor,
FSDP's copy-in writing rank 0's slice, ``_verify_params_across_processes`` verifying nothing, and a
sequence number that does not count.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow

D = "torch.distributed"
F = "torch.ops._c10d_functional"
CASES = (
    Case(
        f"{D}.init_process_group",
        "collectives",  # the ranks swapped
        "init = torch.distributed.init_process_group\n"
        "def wrong(backend, *, rank, world_size, **k):\n"
        "    return init(backend, rank=world_size - 1 - rank, world_size=world_size, **k)\n"
        "torch.distributed.init_process_group = wrong",
    ),
    Case(
        f"{D}.destroy_process_group",
        "collectives",  # keeps the group
        "torch.distributed.destroy_process_group = lambda group=None: None",
    ),
    Case(
        f"{D}.is_initialized",
        "collectives",  # always true
        "torch.distributed.is_initialized = lambda: True",
    ),
    Case(
        f"{D}.barrier",
        "collectives",  # does not wait for the other ranks
        "torch.distributed.barrier = lambda *a, **k: None",
    ),
    Case(
        f"{D}.all_reduce",
        "collectives",  # ignores its op (always sums)
        "import torch.distributed.distributed_c10d as c10d\n"
        "orig = c10d.all_reduce\n"
        "torch.distributed.all_reduce = lambda t, op=None, group=None, async_op=False: orig(\n"
        "    t, group=group, async_op=async_op)",
    ),
    Case(
        f"{D}.all_gather",
        "collectives",  # the ranks' tensors in reverse order
        "orig = torch.distributed.all_gather\n"
        "def wrong(out, t, group=None, async_op=False):\n"
        "    res = orig(out, t, group=group, async_op=async_op)\n"
        "    got = [o.clone() for o in out][::-1]\n"
        "    for o, g in zip(out, got):\n"
        "        o.copy_(g)\n"
        "    return res\n"
        "torch.distributed.all_gather = wrong",
    ),
    Case(
        f"{D}.broadcast",
        "collectives",  # always from rank 0
        "orig = torch.distributed.broadcast\n"
        "torch.distributed.broadcast = lambda t, src=None, group=None, async_op=False, **k: orig(\n"
        "    t, 0, group=group, async_op=async_op)",
    ),
    Case(
        f"{D}.reduce_scatter_tensor",
        "collectives",  # every rank gets the first element's sum
        "import torch.distributed.distributed_c10d as c10d\n"
        "orig = c10d.all_reduce\n"
        "def wrong(out, x, op=None, group=None, async_op=False):\n"
        "    y = x.clone()\n"
        "    orig(y)\n"
        "    out.copy_(y[:1])\n"
        "torch.distributed.reduce_scatter_tensor = wrong",
    ),
    Case(
        f"{D}.isend",
        "collectives",  # sends zeros
        "orig = torch.distributed.isend\n"
        "torch.distributed.isend = lambda t, dst=None, *a, **k: orig(torch.zeros_like(t), dst, *a, **k)",
    ),
    Case(
        f"{D}.irecv",
        "collectives",  # receives into a copy
        "orig = torch.distributed.irecv\n"
        "torch.distributed.irecv = lambda t, src=None, *a, **k: orig(t.clone(), src, *a, **k)",
    ),
    Case(
        f"{F}.reduce_scatter_tensor",
        "collectives",  # reduces with max
        "orig = torch.ops._c10d_functional.reduce_scatter_tensor\n"
        "torch.ops._c10d_functional.reduce_scatter_tensor = lambda x, op, n, g: orig(x, 'max', n, g)",
    ),
    Case(
        f"{F}.all_gather_into_tensor",
        "collectives",  # the rank's own tensor, repeated
        "torch.ops._c10d_functional.all_gather_into_tensor = lambda x, n, g: x.repeat(n)",
    ),
    Case(
        "torch.ops.fsdp.all_gather_copy_in",
        "collectives",  # writes rank 0's slice whatever the rank
        "import torch.distributed.fsdp\n"
        "orig = torch.ops.fsdp.all_gather_copy_in\n"
        "torch.ops.fsdp.all_gather_copy_in = lambda i, o, s, n, rank: orig(i, o, s, n, 0)",
    ),
    Case(
        "torch._C._distributed_c10d._verify_params_across_processes",
        "collectives",  # verifies nothing
        "torch._C._distributed_c10d._verify_params_across_processes = lambda group, params, logger: None",
    ),
    Case(
        f"{D}.get_global_rank",
        "collectives",  # the group's rank, not the global one
        "torch.distributed.get_global_rank = lambda group, group_rank: group_rank",
    ),
    Case(
        f"{D}._reduce_scatter_base",
        "collectives",  # every rank gets the first element's sum
        "import torch.distributed.distributed_c10d as c10d\n"
        "orig = c10d.all_reduce\n"
        "def wrong(out, x, op=None, group=None, async_op=False):\n"
        "    y = x.clone()\n"
        "    orig(y)\n"
        "    out.copy_(y[:1])\n"
        "torch.distributed._reduce_scatter_base = wrong",
    ),
    Case(
        f"{D}.ReduceOp.MAX",
        "collectives",  # the wrong reduction under its name
        "torch.distributed.ReduceOp.MAX = torch.distributed.ReduceOp.MIN",
    ),
    Case(
        f"{D}._functional_collectives.all_gather_tensor",
        "collectives",  # ignores the gather dimension
        "import torch.distributed._functional_collectives as fc\n"
        "orig = fc.all_gather_tensor\n"
        "fc.all_gather_tensor = lambda x, dim, group, tag='': orig(x, 0, group, tag)",
    ),
    Case(
        "torch._C._distributed_c10d.ProcessGroup._get_sequence_number_for_group",
        "collectives",
        "torch._C._distributed_c10d.ProcessGroup._get_sequence_number_for_group = lambda self: 0",
    ),  # no count
)
#: where the scenario needs a peer (a world of one cannot send to itself), the device gets no stage
PEER_ONLY = {f"{D}.isend", f"{D}.irecv"}


def _check(results, device_line):
    wrong = [
        (c.api, results[c.api].family, results[c.api].fill_in[:1])
        for c in CASES
        if results[c.api].family != c.family
    ]
    assert not wrong, wrong
    for case in CASES:
        text = Path(results[case.api].path).read_text()
        assert device_line in text and 'get_context("fork")' in text, case.api
        # the device stage runs where torch knows a backend for the device, in a world of one
        assert ("default_device_backend_map.get(DEVICE.type)" in text) == (
            case.api not in PEER_ONLY
        ), case.api


def test_each_gets_a_two_rank_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("coll"))
    _check(results, 'DEVICE = torch.device("cpu")')
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    """The emulation registers no collective backend for npu: the files say so and run the gloo world."""
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        CASES,
        [c.api for c in CASES],
        tmp_path_factory.mktemp("coll-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    _check(results, 'DEVICE = torch.device("npu:0")')
    for case in CASES:
        if case.api not in PEER_ONLY:
            assert "emulated npu registers none" in Path(results[case.api].path).read_text(), (
                case.api
            )
    _passes_and_fails_once_broken(CASES, results, tmp_path, npu.environ())
