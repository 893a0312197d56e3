"""The collectives family's recipes: which torch.distributed names each section tests, and the
scenario lines of the sections whose checks differ by name.

``SCENARIOS[section][leaf]`` holds the lines a rank runs (after the section's own opening lines,
before the closing barrier) for the API whose last name is ``leaf``; ``{name}`` is the function
``name`` as the test spells it (in the section's namespace: torch.distributed for ``objects``,
the functional ops for ``functional``, their legacy spelling for ``legacy``,
``_functional_collectives`` for ``funcol``), ``{owner}`` the class of a ``process_group`` member;
``{{``/``}}`` are braces of the test's own code. A line may read ``total`` (the ranks' sum the
section works out before it).
"""

#: functions of torch.distributed the template calls, by the section that tests each
SECTIONS: dict[str, tuple[str, ...]] = {
    "lifecycle": (
        "init_process_group",
        "destroy_process_group",
        "is_initialized",
        "get_rank",
        "get_world_size",
        "get_backend",
        "new_group",
        "get_process_group_ranks",
        "get_global_rank",
        "get_group_rank",
        "barrier",
    ),
    "all_reduce": ("all_reduce", "ReduceOp"),
    "all_gather": ("all_gather",),
    # the single-tensor forms under their three names (the private ``_base`` ones older tests call)
    "all_gather_into_tensor": ("all_gather_into_tensor", "all_gather_single", "_all_gather_base"),
    "broadcast": ("broadcast",),
    "reduce": ("reduce",),
    "reduce_scatter": ("reduce_scatter",),
    "reduce_scatter_tensor": (
        "reduce_scatter_tensor",
        "reduce_scatter_single",
        "_reduce_scatter_base",
    ),
    "all_to_all": ("all_to_all",),
    "all_to_all_single": ("all_to_all_single",),
    "gather": ("gather",),
    "scatter": ("scatter",),
    "objects": (
        "all_gather_object",
        "broadcast_object_list",
        "gather_object",
        "scatter_object_list",
    ),
    "p2p": ("send", "recv", "isend", "irecv"),
    "batch_p2p": ("batch_isend_irecv", "P2POp"),
}
#: ReduceOp members the all_reduce scenario uses (nccl and hccl have no bitwise reductions)
REDUCE_OPS = ("SUM", "PRODUCT", "MIN", "MAX")
#: ProcessGroup members the template checks
GROUP_MEMBERS = ("rank", "size", "name", "_get_sequence_number_for_group")
#: classes of torch.distributed whose members the family tests: (section, namespace, members)
OWNED: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "ProcessGroup": ("process_group", "group", GROUP_MEMBERS),
    "ReduceOp": ("all_reduce", "reduce_op", REDUCE_OPS),
}
#: the private function of torch.distributed with a section of its own
VERIFY_PARAMS = "_verify_params_across_processes"

_FUNCTIONAL_ALL_REDUCE = (
    'out = {wait_tensor}({all_reduce}(x, "sum", group))',
    "self.assertEqual(out.device.type, device.type)",
    "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * total)",
    "torch.testing.assert_close(x.cpu(), torch.tensor([1.0, 2.0]) * (rank + 1))  # the input is kept",
    'out = {wait_tensor}({all_reduce}(x, "max", group))',
    "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * world)",
)
_LEGACY_ALL_REDUCE = (
    'out = {wait_tensor}({all_reduce}(x, "sum", "", ranks, world))',
    "self.assertEqual(out.device.type, device.type)",
    "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * total)",
    "torch.testing.assert_close(x.cpu(), torch.tensor([1.0, 2.0]) * (rank + 1))  # the input is kept",
    'out = {wait_tensor}({all_reduce}(x, "max", "", ranks, world))',
    "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * world)",
)
_FUNCOL_ALL_REDUCE = (
    'out = {wait_tensor}({all_reduce}(x, "sum", group))',
    "self.assertEqual(out.device.type, device.type)",
    "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * total)",
    "torch.testing.assert_close(x.cpu(), torch.tensor([1.0, 2.0]) * (rank + 1))  # the input is kept",
    "# the group as a list of ranks",
    'out = {wait_tensor}({all_reduce}(x, "max", list(range(world))))',
    "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * world)",
)
SCENARIOS: dict[str, dict[str, tuple[str, ...]]] = {
    "objects": {
        "all_gather_object": (
            "out = [None] * world",
            'self.assertIsNone({all_gather_object}(out, {{"rank": rank, "name": f"r{{rank}}"}}))',
            'self.assertEqual(out, [{{"rank": r, "name": f"r{{r}}"}} for r in range(world)])',
        ),
        "broadcast_object_list": (
            'objects = [{{"from": rank}}, [rank] * 2]',
            "self.assertIsNone({broadcast_object_list}(objects, src=world - 1))",
            'self.assertEqual(objects, [{{"from": world - 1}}, [world - 1] * 2])  # the last rank\'s objects',
        ),
        "gather_object": (
            "out = [None] * world if rank == 0 else None",
            'self.assertIsNone({gather_object}(("rank", rank), out, dst=0))',
            "if rank == 0:",
            '    self.assertEqual(out, [("rank", r) for r in range(world)])',
        ),
        "scatter_object_list": (
            "out = [None]",
            'objects = [f"part{{j}}" for j in range(world)] if rank == 0 else None',
            "self.assertIsNone({scatter_object_list}(out, objects, src=0))",
            'self.assertEqual(out, [f"part{{rank}}"])  # object r to rank r',
        ),
    },
    "functional": {
        "all_reduce": _FUNCTIONAL_ALL_REDUCE,
        "all_reduce_": (
            'out = {wait_tensor}({all_reduce_}(x, "sum", group))',
            "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * total)",
            "torch.testing.assert_close(x.cpu(), torch.tensor([1.0, 2.0]) * total)  # in place",
        ),
        "all_gather_into_tensor": (
            "out = {wait_tensor}({all_gather_into_tensor}(x, world, group))",
            "# the ranks' tensors one after another, in rank order",
            "expected = torch.cat([torch.tensor([1.0, 2.0]) * (r + 1) for r in range(world)])",
            "self.assertEqual(out.device.type, device.type)",
            "self.assertEqual(out.shape, (2 * world,))",
            "torch.testing.assert_close(out.cpu(), expected)",
            "torch.testing.assert_close(x.cpu(), torch.tensor([1.0, 2.0]) * (rank + 1))  # the input is kept",
        ),
        "reduce_scatter_tensor": (
            "# rank r holds (r + 1) * [1, 2, ..., world]; element j, summed, goes to rank j",
            "x = torch.arange(1.0, world + 1.0, device=device) * (rank + 1)",
            'out = {wait_tensor}({reduce_scatter_tensor}(x, "sum", world, group))',
            "self.assertEqual(out.device.type, device.type)",
            "self.assertEqual(out.shape, (1,))",
            "self.assertEqual(out.item(), (rank + 1) * total)",
            'out = {wait_tensor}({reduce_scatter_tensor}(x, "max", world, group))',
            "self.assertEqual(out.item(), (rank + 1) * world)  # the largest rank's element",
        ),
        "all_to_all_single": (
            "# element j of rank r goes to rank j, at index r",
            "x = torch.tensor([10.0 * rank + j for j in range(world)], device=device)",
            "out = {wait_tensor}({all_to_all_single}(x, [1] * world, [1] * world, group))",
            "self.assertEqual(out.device.type, device.type)",
            "torch.testing.assert_close(out.cpu(), torch.tensor([10.0 * j + rank for j in range(world)]))",
        ),
        "broadcast": (
            "out = {wait_tensor}({broadcast}(x, world - 1, group))",
            "# every rank gets the last rank's tensor",
            "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * world)",
        ),
        "broadcast_": (
            "out = {wait_tensor}({broadcast_}(x, world - 1, group))",
            "# every rank gets the last rank's tensor",
            "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * world)",
            "torch.testing.assert_close(x.cpu(), torch.tensor([1.0, 2.0]) * world)  # in place",
        ),
        "wait_tensor": _FUNCTIONAL_ALL_REDUCE,
        "all_reduce_coalesced": (
            "y = torch.tensor([[3.0]], device=device) * (rank + 1)",
            'outs = [{wait_tensor}(t) for t in {all_reduce_coalesced}([x, y], "sum", group)]',
            "# each tensor of the list reduced on its own",
            "self.assertEqual(len(outs), 2)",
            "self.assertEqual(outs[1].device.type, device.type)",
            "torch.testing.assert_close(outs[0].cpu(), torch.tensor([1.0, 2.0]) * total)",
            "torch.testing.assert_close(outs[1].cpu(), torch.tensor([[3.0]]) * total)",
            "torch.testing.assert_close(y.cpu(), torch.tensor([[3.0]]) * (rank + 1))  # the inputs are kept",
        ),
        "all_reduce_coalesced_": (
            "y = torch.tensor([[3.0]], device=device) * (rank + 1)",
            'outs = [{wait_tensor}(t) for t in {all_reduce_coalesced_}([x, y], "sum", group)]',
            "# each tensor of the list reduced on its own",
            "self.assertEqual(len(outs), 2)",
            "self.assertEqual(outs[1].device.type, device.type)",
            "torch.testing.assert_close(outs[0].cpu(), torch.tensor([1.0, 2.0]) * total)",
            "torch.testing.assert_close(outs[1].cpu(), torch.tensor([[3.0]]) * total)",
            "torch.testing.assert_close(y.cpu(), torch.tensor([[3.0]]) * total)  # in place",
        ),
        "all_gather_into_tensor_coalesced": (
            "y = torch.tensor([5.0], device=device) * (rank + 1)",
            "outs = [{wait_tensor}(t) for t in {all_gather_into_tensor_coalesced}([x, y], world, group)]",
            "# each tensor gathered on its own: the ranks' tensors one after another, in rank order",
            "self.assertEqual(len(outs), 2)",
            "self.assertEqual(outs[0].device.type, device.type)",
            "torch.testing.assert_close(outs[0].cpu(), torch.cat([torch.tensor([1.0, 2.0]) * (r + 1) for r in range(world)]))",
            "torch.testing.assert_close(outs[1].cpu(), torch.tensor([5.0 * (r + 1) for r in range(world)]))",
        ),
        "reduce_scatter_tensor_coalesced": (
            "# rank r holds (r + 1) * [1, ..., world] and (r + 1) * [10, ..., 10 * world]; element j goes to rank j",
            "x = torch.arange(1.0, world + 1.0, device=device) * (rank + 1)",
            'outs = [{wait_tensor}(t) for t in {reduce_scatter_tensor_coalesced}([x, 10 * x], "sum", world, group)]',
            "self.assertEqual(len(outs), 2)",
            "self.assertEqual(outs[0].device.type, device.type)",
            "self.assertEqual(outs[0].item(), (rank + 1) * total)",
            "self.assertEqual(outs[1].item(), 10 * (rank + 1) * total)",
        ),
        "all_gather_into_tensor_out": (
            "buffer = torch.zeros(2 * world, device=device)",
            "out = {wait_tensor}({all_gather_into_tensor_out}(x, world, group, out=buffer))",
            "# the ranks' tensors, in rank order, written into out=",
            "expected = torch.cat([torch.tensor([1.0, 2.0]) * (r + 1) for r in range(world)])",
            "torch.testing.assert_close(out.cpu(), expected)",
            "torch.testing.assert_close(buffer.cpu(), expected)",
        ),
    },
    "legacy": {
        "all_reduce": _LEGACY_ALL_REDUCE,
        "all_reduce_coalesced": (
            "y = torch.tensor([[3.0]], device=device) * (rank + 1)",
            'outs = [{wait_tensor}(t) for t in {all_reduce_coalesced}([x, y], "sum", "", ranks, world)]',
            "# each tensor of the list reduced on its own",
            "self.assertEqual(len(outs), 2)",
            "torch.testing.assert_close(outs[0].cpu(), torch.tensor([1.0, 2.0]) * total)",
            "torch.testing.assert_close(outs[1].cpu(), torch.tensor([[3.0]]) * total)",
        ),
        "all_gather_into_tensor": (
            'out = {wait_tensor}({all_gather_into_tensor}(x, "", ranks, world))',
            "# the ranks' tensors one after another, in rank order",
            "self.assertEqual(out.device.type, device.type)",
            "self.assertEqual(out.shape, (2 * world,))",
            "torch.testing.assert_close(out.cpu(), torch.cat([torch.tensor([1.0, 2.0]) * (r + 1) for r in range(world)]))",
        ),
        "reduce_scatter_tensor": (
            "# rank r holds (r + 1) * [1, 2, ..., world]; element j, summed, goes to rank j",
            "x = torch.arange(1.0, world + 1.0, device=device) * (rank + 1)",
            'out = {wait_tensor}({reduce_scatter_tensor}(x, "sum", "", ranks, world))',
            "self.assertEqual(out.shape, (1,))",
            "self.assertEqual(out.item(), (rank + 1) * total)",
        ),
        "all_to_all_single": (
            "# element j of rank r goes to rank j, at index r",
            "x = torch.tensor([10.0 * rank + j for j in range(world)], device=device)",
            'out = {wait_tensor}({all_to_all_single}(x, [1] * world, [1] * world, "", ranks, world))',
            "torch.testing.assert_close(out.cpu(), torch.tensor([10.0 * j + rank for j in range(world)]))",
        ),
        "broadcast": (
            'out = {wait_tensor}({broadcast}(x, world - 1, "", ranks, world))',
            "# every rank gets the last rank's tensor",
            "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * world)",
        ),
        "wait_tensor": _LEGACY_ALL_REDUCE,
    },
    "funcol": {
        "all_reduce": _FUNCOL_ALL_REDUCE,
        "all_gather_tensor": (
            "# the ranks' tensors stacked along the gather dimension, in rank order",
            "rows = torch.stack([torch.tensor([1.0, 2.0]) * (r + 1) for r in range(world)])",
            "out = {all_gather_tensor}(x.reshape(1, 2), 0, group)",
            "self.assertEqual(out.shape, (world, 2))",
            "torch.testing.assert_close(out.cpu(), rows)",
            "out = {all_gather_tensor}(x.reshape(1, 2), 1, group)",
            "self.assertEqual(out.shape, (1, 2 * world))",
            "torch.testing.assert_close(out.cpu(), rows.reshape(1, 2 * world))",
        ),
        "reduce_scatter_tensor": (
            "# rank r holds (r + 1) * [1, 2, ..., world]; element j, summed, goes to rank j",
            "x = torch.arange(1.0, world + 1.0, device=device) * (rank + 1)",
            'out = {reduce_scatter_tensor}(x, "sum", 0, group)',
            "self.assertEqual(out.shape, (1,))",
            "self.assertEqual(out.item(), (rank + 1) * total)",
        ),
        "all_to_all_single": (
            "# element j of rank r goes to rank j, at index r",
            "x = torch.tensor([10.0 * rank + j for j in range(world)], device=device)",
            "out = {all_to_all_single}(x, [1] * world, [1] * world, group)",
            "torch.testing.assert_close(out.cpu(), torch.tensor([10.0 * j + rank for j in range(world)]))",
        ),
        "broadcast": (
            "out = {broadcast}(x, world - 1, group)",
            "torch.testing.assert_close(out.cpu(), torch.tensor([1.0, 2.0]) * world)  # the last rank's",
        ),
        "wait_tensor": _FUNCOL_ALL_REDUCE,
    },
    "process_group": {
        "rank": (
            "self.assertEqual({owner}.rank(group), rank)",
            "sub = torch.distributed.new_group([world - 1])",
            "if rank == world - 1:",
            "    self.assertEqual({owner}.rank(sub), 0)  # the only rank of its own group",
        ),
        "size": (
            "self.assertEqual({owner}.size(group), world)",
            "sub = torch.distributed.new_group([0])",
            "if rank == 0:",
            "    self.assertEqual({owner}.size(sub), 1)",
        ),
        "name": ("self.assertEqual({owner}.name(group), backend)",),
        "_get_sequence_number_for_group": (
            "start = {owner}._get_sequence_number_for_group(group)",
            "self.assertEqual(start, 0)  # a new group starts counting at 0",
            "x = torch.tensor([rank + 1.0], device=device)",
            "torch.distributed.all_reduce(x)",
            "torch.distributed.broadcast(x, src=0)",
            "self.assertEqual({owner}._get_sequence_number_for_group(group), start + 2)  # one per collective",
            "numbers = [None] * world",
            "torch.distributed.all_gather_object(numbers, {owner}._get_sequence_number_for_group(group))",
            "self.assertEqual(len(set(numbers)), 1)  # the same on every rank",
        ),
    },
}

#: sections whose template lines read the ranks' sum ``total`` (a recipe's lines may read it too)
TOTAL_SECTIONS = ("lifecycle", "all_reduce", "reduce", "reduce_scatter", "reduce_scatter_tensor")
