"""Which APIs the collectives family takes, and what its plans spell (no torch needed)."""

from __future__ import annotations

import re

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.collectives import collective_section, collectives_plan
from torchparity.scaffold.families import candidates
from torchparity.scaffold.plan import CannotDecide

C10D = "torch.distributed.distributed_c10d"


def _fn(name: str, kind: str = "function"):
    """A torch.distributed function as the resolver records it (canonical in distributed_c10d)."""
    leaf = name.rsplit(".", 1)[-1]
    res = resolution(f"{C10D}.{leaf}", kind, aliases=(name,))
    return api_info(res.__class__(**{**res.__dict__, "path": name}))


def _op(name: str):
    return api_info(resolution(name, "builtin"))


def _member(leaf: str):
    owner = f"{C10D}.ProcessGroup"
    return api_info(
        resolution(
            f"{owner}.{leaf}",
            "method",
            owner=owner,
            owner_kind="class",
            aliases=(f"torch.distributed.ProcessGroup.{leaf}",),
        )
    )


def _source(plan) -> str:
    return "".join(m.source for m in plan.methods)


def _has(text: str, code: str) -> bool:
    """Whether ``code`` is in ``text`` once both lose their whitespace (long lines are wrapped)."""
    return re.sub(r"\s+", "", code) in re.sub(r"\s+", "", text)


@pytest.mark.parametrize(
    ("info", "section"),
    [
        (_fn("torch.distributed.init_process_group"), "lifecycle"),
        (_fn("torch.distributed.destroy_process_group"), "lifecycle"),
        (_fn("torch.distributed.get_rank"), "lifecycle"),
        (_fn("torch.distributed.all_reduce"), "all_reduce"),
        (_fn("torch.distributed.reduce_scatter_tensor"), "reduce_scatter_tensor"),
        (_fn("torch.distributed.isend"), "p2p"),
        (_fn("torch.distributed.irecv"), "p2p"),
        (_fn("torch.distributed.all_gather_object"), "objects"),
        (_fn("torch.distributed.P2POp", "class"), "batch_p2p"),
        (_op("torch.ops._c10d_functional.reduce_scatter_tensor"), "functional"),
        (_op("torch.ops._c10d_functional.wait_tensor"), "functional"),
        (_op("torch.ops.fsdp.all_gather_copy_in"), "fsdp_copy_in"),
        (_op("torch.ops.fsdp.all_gather_copy_in.default"), "fsdp_copy_in"),
        (_op("torch.ops._c10d_functional.all_reduce.default"), "functional"),
        (_op("torch.ops.c10d_functional.all_gather_into_tensor"), "legacy"),
        (_op("torch.ops.c10d_functional.wait_tensor.default"), "legacy"),
        (_op("torch._C._distributed_c10d._verify_params_across_processes"), "verify_params"),
        (_member("_get_sequence_number_for_group"), "process_group"),
        (_fn("torch.distributed.get_group_rank"), "lifecycle"),
        (_fn("torch.distributed._reduce_scatter_base"), "reduce_scatter_tensor"),
        (_fn("torch.distributed.all_gather_single"), "all_gather_into_tensor"),
        (_fn("torch.distributed.ReduceOp", "class"), "all_reduce"),
        (
            api_info(
                resolution(
                    f"{C10D}.ReduceOp.MAX",
                    "attribute",
                    owner=f"{C10D}.ReduceOp",
                    owner_kind="class",
                    aliases=("torch.distributed.ReduceOp.MAX",),
                )
            ),
            "all_reduce",
        ),
        (_op("torch.distributed._functional_collectives.all_gather_tensor"), "funcol"),
    ],
)
def test_the_kind_goes_to_the_collectives_family_first(info, section):
    assert collective_section(info.resolution)[0] == section
    fams = candidates(info)
    assert fams[0] == "collectives" and fams[-1] == "fill-in"


def test_what_it_has_no_scenario_for_is_not_decided():
    for info in (
        _fn("torch.distributed.monitored_barrier"),
        _fn("torch.distributed.HashStore", "class"),
        _op("torch.ops._c10d_functional.isend"),
        _member("allreduce"),
        _op("torch.ops.aten.add"),
        _op("torch.ops.c10d_functional.all_gather_into_tensor_coalesced"),
        _op("torch.ops._c10d_functional.all_reduce.out"),
        _op("torch.distributed._functional_collectives.permute_tensor"),
        api_info(
            resolution(
                f"{C10D}.ReduceOp.BAND", "attribute", owner=f"{C10D}.ReduceOp", owner_kind="class"
            )
        ),  # nccl and hccl have no bitwise reductions
        api_info(resolution("torch.all_reduce_like", "function")),
    ):
        assert collective_section(info.resolution) is None
        assert "collectives" not in candidates(info)
        with pytest.raises(CannotDecide):
            collectives_plan(info, {}, "DEVICE")


def test_the_api_is_called_as_resolved_and_its_peers_values_are_worked_out_by_hand():
    plan = collectives_plan(_fn("torch.distributed.all_reduce"), {}, "DEVICE")
    text = _source(plan)
    assert plan.family == "collectives" and plan.tests == ["test_all_reduce"]
    assert "self.assertIsNone(torch.distributed.all_reduce(x))" in text
    assert "total = world * (world + 1) / 2" in text  # 1 + 2 + ... + world, by hand
    assert "torch.distributed.ReduceOp.MAX" in text and "math.factorial(world)" in text
    # rank 0 here, rank 1 a forked peer whose exit code says whether its own checks held
    assert 'multiprocessing.get_context("fork").Process(' in text
    assert 'scenario(0, 2, cpu, "gloo", init_method)' in text
    assert "self.assertEqual(peer.exitcode, 0)" in text
    # then the device's own backend, in a world of one, where torch knows one
    assert "default_device_backend_map.get(DEVICE.type)" in text
    assert "scenario(0, 1, DEVICE, backend," in text
    assert "from datetime import timedelta" in plan.imports


def test_point_to_point_needs_a_peer_so_the_device_gets_no_stage():
    text = _source(collectives_plan(_fn("torch.distributed.isend"), {}, "DEVICE"))
    assert "work = torch.distributed.isend(" in text and "self.assertTrue(work.wait())" in text
    assert "torch.distributed.irecv(got, src=0)" in text and "torch.tensor([3.0, 4.0])" in text
    assert "default_device_backend_map" not in text and "no peer to send to" in text


def test_lifecycle_checks_the_group_before_and_after_destroy():
    text = _source(collectives_plan(_fn("torch.distributed.destroy_process_group"), {}, "DEVICE"))
    assert text.index("self.assertIs(torch.distributed.is_initialized(), False)") < text.index(
        "torch.distributed.init_process_group("
    )
    assert "self.assertIsNone(torch.distributed.destroy_process_group())" in text
    assert "with self.assertRaises(ValueError):" in text  # no default group any more
    assert "time.sleep(0.5)" in text  # the barrier waits for a late rank


def test_functional_ops_wait_for_their_result_and_ops_are_spelled_where_read():
    text = _source(
        collectives_plan(_op("torch.ops._c10d_functional.reduce_scatter_tensor"), {}, "DEVICE")
    )
    assert _has(
        text,
        "torch.ops._c10d_functional.wait_tensor(torch.ops._c10d_functional.reduce_scatter_tensor("
        'x, "sum", world, group))',
    )
    assert "self.assertEqual(out.item(), (rank + 1) * total)" in text
    plan = collectives_plan(_op("torch.ops.fsdp.all_gather_copy_in"), {}, "DEVICE")
    assert "import torch.distributed.fsdp" in plan.imports  # registers the op
    assert _has(_source(plan), "torch.ops.fsdp.all_gather_copy_in(shards, output, [2, 3], 5, rank)")


def test_process_group_members_are_called_through_their_class():
    text = _source(collectives_plan(_member("_get_sequence_number_for_group"), {}, "DEVICE"))
    assert _has(text, f"start = {C10D}.ProcessGroup._get_sequence_number_for_group(group)")
    assert "self.assertEqual(start, 0)" in text and "start + 2" in text


def test_a_reduce_op_is_read_where_the_test_names_it_and_each_single_tensor_name_is_called():
    info = api_info(
        resolution(
            f"{C10D}.ReduceOp.MAX",
            "attribute",
            owner=f"{C10D}.ReduceOp",
            owner_kind="class",
            aliases=("torch.distributed.ReduceOp.MAX",),
        )
    )
    text = _source(collectives_plan(info, {}, "DEVICE"))
    assert (
        "op=torch.distributed.ReduceOp.MAX)" in text
        and "op=torch.distributed.ReduceOp.MIN)" in text
    )
    text = _source(collectives_plan(_fn("torch.distributed._reduce_scatter_base"), {}, "DEVICE"))
    assert "self.assertIsNone(torch.distributed._reduce_scatter_base(out, x))" in text
    plan = collectives_plan(
        _op("torch.distributed._functional_collectives.all_gather_tensor"), {}, "DEVICE"
    )
    assert "import torch.distributed._functional_collectives" in plan.imports
    assert _has(
        _source(plan),
        "torch.distributed._functional_collectives.all_gather_tensor(x.reshape(1, 2), 1, group)",
    )


def test_the_legacy_spelling_names_its_group_by_tag_ranks_and_size():
    plan = collectives_plan(_op("torch.ops.c10d_functional.reduce_scatter_tensor"), {}, "DEVICE")
    text = _source(plan)
    assert 'torch.ops.c10d_functional.reduce_scatter_tensor(x, "sum", "", ranks, world)' in text
    assert "torch.ops.c10d_functional.wait_tensor(" in text
    assert "import torch.distributed._functional_collectives" in plan.imports
