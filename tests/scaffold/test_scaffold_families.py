"""Families of API kinds, each scaffolded for the CPU and for the emulated npu on real APIs.

Functions called for their effect on a module-level registry they reach by name
(``init_reductions`` refills ``ForkingPickler._extra_reducers``, ``torch._dynamo.reset`` empties a
counter): the registry is emptied, or given a probe entry, first.

torch.package: a package of source, a pickled device tensor, text and bytes written and read back.

torch.distributed in one process: key-value stores (a Python subclass of ``Store`` too) and a
one-rank process group on them; DDP communication hooks on a one-rank DDP model.

Members of torch.distributed.checkpoint's protocol classes (planners, storage readers and
writers): save/load in one process call them on a recording subclass of the default class.

fx Tracer hooks a proxy calls during tracing (``to_bool``, ``iter``, ``keys``, ``getattr``),
GraphModule's submodule edits, and ``torch.export``: scaffold writes graph tests (TraceError for
control flow on a proxy, the recorded nodes, the exported program's ATen graph, signature and
result on the device).

APIs reached through an object that is neither a class nor a module, or through a C type.

An OpOverload is read from its packet (``torch.ops.aten.mul.Tensor``), ``patch`` from a config
module that refuses unknown names, ``run_backward`` from a C engine object, ``get_state`` from an
immutable C type, ``pop`` from a dict, a method from a plain Python instance (``log_state``), and
a tuple method from a named tuple (``PackedSequence.index``). Scaffold writes a real test for each;
it passes on the CPU, fails under a targeted break, and the sentinel stand-in can be installed
where the test reads the API (the subclass or proxy that takes a holder's place keeps the rest of
the holder working).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold
from torchparity.exec.ship import isolated_env

pytestmark = pytest.mark.slow

CASES = (
    Case(
        "torch.nn.utils.rnn.PackedSequence.index",
        "measured",  # searches from the end
        "torch.nn.utils.rnn.PackedSequence.index = (\n"
        "    lambda self, v, *a: len(self) - 1 - tuple(reversed(tuple(self))).index(v))",
    ),
    Case(
        "torch.nn.utils.rnn.PackedSequence.count",
        "measured",  # counts one match at most
        "torch.nn.utils.rnn.PackedSequence.count = lambda self, v: int(v in tuple(self))",
    ),
    Case(
        "torch.ops.aten.mul.Tensor",
        "overload",  # the overload adds
        "torch.ops.aten.mul.Tensor = torch.ops.aten.add.Tensor",
    ),
    Case(
        "torch.ops.aten.sub.Tensor",
        "overload",  # the overload ignores its second operand
        "torch.ops.aten.sub.Tensor = lambda a, b, **kw: torch.ops.aten.clone.default(a)",
    ),
    Case(
        "torch._dynamo.config.patch",
        "measured",  # patch that changes nothing
        "import contextlib\n"
        "object.__setattr__(torch._dynamo.config, 'patch', lambda *a, **k: contextlib.nullcontext())",
    ),
    Case(
        "torch._logging._internal.log_state.get_log_level_pairs",
        "measured",  # reports a level nobody set
        "import torch._logging._internal as internal\n"
        "internal.log_state.get_log_level_pairs = lambda: [('torch', 10)]",
    ),
)

GRAPH_CASES = (
    Case(
        "torch.fx.Tracer.iter",
        "graph",  # iterating a proxy yields nothing instead of raising
        "torch.fx.Tracer.iter = lambda self, obj: iter(())",
    ),
    Case(
        "torch.fx.Tracer.to_bool",
        "graph",  # control flow on a proxy always takes the first branch
        "torch.fx.Tracer.to_bool = lambda self, obj: True",
    ),
    Case(
        "torch.fx.Tracer.keys",
        "graph",  # records the wrong method
        "torch.fx.Tracer.keys = lambda self, obj: torch.fx.proxy.Attribute(obj, 'values')()",
    ),
    Case(
        "torch.fx.Tracer.getattr",
        "graph",  # a parameter read becomes a constant
        "torch.fx.Tracer.getattr = lambda self, attr, value, cache: value.detach() * 1",
    ),
    Case(
        "torch.fx.GraphModule.delete_all_unused_submodules",
        "graph",  # deletes nothing
        "torch.fx.GraphModule.delete_all_unused_submodules = lambda self: None",
    ),
    Case(
        "torch.fx.GraphModule.add_submodule",
        "graph",  # says it added the module, but did not
        "torch.fx.GraphModule.add_submodule = lambda self, target, module: True",
    ),
    Case(
        "torch.fx.GraphModule.delete_submodule",
        "graph",  # reports success for a missing name
        "delete = torch.fx.GraphModule.delete_submodule\n"
        "torch.fx.GraphModule.delete_submodule = lambda self, target: delete(self, target) or True",
    ),
    Case(
        "torch.export.export",
        "graph",  # exports the module with an extra ReLU around it
        "export = torch.export.export\n"
        "torch.export.export = lambda mod, args, *a, **k: export(torch.nn.Sequential(mod, torch.nn.ReLU()), args)",
    ),
    Case(
        "torch.export.ExportedProgram.module",
        "graph",  # a module that ignores the program
        "torch.export.ExportedProgram.module = lambda self, **k: torch.fx.symbolic_trace(torch.nn.Identity())",
    ),
    Case(
        "torch.export.ExportedProgram.run_decompositions",
        "graph",  # decomposes nothing
        "torch.export.ExportedProgram.run_decompositions = lambda self, *a, **k: self",
    ),
)
DCP = "torch.distributed.checkpoint"
CHECKPOINT_CASES = (
    Case(
        f"{DCP}.LoadPlanner.load_bytes",
        "checkpoint",  # drops the bytes it is given
        "import torch.distributed.checkpoint\n"
        f"{DCP}.DefaultLoadPlanner.load_bytes = lambda self, read_item, value: None",
    ),
    Case(
        f"{DCP}.LoadPlanner.resolve_tensor",
        "checkpoint",  # reads into a fresh tensor, not the target
        "import torch.distributed.checkpoint\n"
        f"{DCP}.DefaultLoadPlanner.resolve_tensor = (\n"
        "    lambda self, read_item: torch.zeros_like(self.lookup_tensor(read_item.dest_index)))",
    ),
    Case(
        f"{DCP}.LoadPlanner.commit_tensor",
        "checkpoint",  # returns the tensor where None is annotated
        "import torch.distributed.checkpoint\n"
        f"{DCP}.DefaultLoadPlanner.commit_tensor = lambda self, read_item, tensor: tensor",
    ),
    Case(
        f"{DCP}.format_utils.BroadcastingTorchSaveReader.read_data",
        "checkpoint",  # reads nothing
        f"import {DCP}.format_utils as fu\n"
        "from torch.futures import Future\n"
        "def read_data(self, plan, planner):\n"
        "    done = Future()\n"
        "    done.set_result(None)\n"
        "    return done\n"
        "fu.BroadcastingTorchSaveReader.read_data = read_data",
    ),
    Case(
        f"{DCP}.format_utils.BroadcastingTorchSaveReader.reset",
        "checkpoint",  # forgets the checkpoint id
        f"import {DCP}.format_utils as fu\n"
        "fu.BroadcastingTorchSaveReader.reset = lambda self, checkpoint_id=None: None",
    ),
    Case(
        f"{DCP}.staging.BlockingAsyncStager",
        "checkpoint",  # stages the original, not a copy
        f"import {DCP}.staging as staging\n"
        "staging.BlockingAsyncStager.stage = lambda self, state_dict: state_dict",
    ),
    Case(
        f"{DCP}.SavePlanner.create_local_plan",
        "checkpoint",  # the plan loses its last item
        "import torch.distributed.checkpoint\n"
        "import dataclasses\n"
        f"plan = {DCP}.DefaultSavePlanner.create_local_plan\n"
        f"{DCP}.DefaultSavePlanner.create_local_plan = lambda self: dataclasses.replace(\n"
        "    plan(self), items=plan(self).items[:-1])",
    ),
)
HOOKS = "torch.distributed.algorithms.ddp_comm_hooks.default_hooks"
IMPORT_HOOKS = f"import {HOOKS} as hooks\n"
DISTRIBUTED_CASES = (
    Case(
        "torch.distributed.HashStore",
        "distributed",  # add ignores the amount
        "add = torch.distributed.Store.add\n"
        "torch.distributed.HashStore.add = lambda self, key, amount: add(self, key, 1)",
    ),
    Case(
        "torch.distributed.FileStore",
        "distributed",  # compare_set sets whatever was expected
        "torch.distributed.FileStore.compare_set = (\n"
        "    lambda self, key, expected, desired: (self.set(key, desired), desired.encode())[1])",
    ),
    Case(
        "torch.distributed.TCPStore.port",
        "distributed",  # reports no port
        "torch.distributed.TCPStore.port = property(lambda self: 0)",
    ),
    Case(
        "torch.distributed.PrefixStore",
        "distributed",  # forgets the store it wraps
        "torch.distributed.PrefixStore.underlying_store = property(lambda self: torch.distributed.HashStore())",
    ),
    Case(
        "torch.distributed.Store.__init__",
        "distributed",  # does not initialise the C++ store
        "torch.distributed.Store.__init__ = lambda self: None",
    ),
    Case(
        "torch.distributed.Store.timeout",
        "distributed",  # the default timeout, whatever was set
        "from datetime import timedelta\n"
        "torch.distributed.Store.timeout = property(lambda self: timedelta(seconds=300))",
    ),
    Case(
        f"{HOOKS}.allreduce_hook",
        "distributed",  # sums twice
        IMPORT_HOOKS + "allreduce = hooks.allreduce_hook\n"
        "def doubled(process_group, bucket):\n"
        "    bucket.buffer().mul_(2)\n"
        "    return allreduce(process_group, bucket)\n"
        "hooks.allreduce_hook = doubled",
    ),
    Case(
        f"{HOOKS}.fp16_compress_hook",
        "distributed",  # sends 32 bits
        IMPORT_HOOKS + "hooks.fp16_compress_hook = hooks.allreduce_hook",
    ),
    Case(
        f"{HOOKS}.fp16_compress_wrapper",
        "distributed",  # wraps nothing
        IMPORT_HOOKS + "hooks.fp16_compress_wrapper = lambda hook: hook",
    ),
)
PACKAGE_CASES = (
    Case(
        "torch.package.PackageExporter.add_dependency",
        "package",  # adds nothing
        "import torch.package\n"
        "torch.package.PackageExporter.add_dependency = lambda self, module_name, dependencies=True: None",
    ),
    Case(
        "torch.package.PackageImporter.load_pickle",
        "package",  # loses the values
        "import torch.package\n"
        "load = torch.package.PackageImporter.load_pickle\n"
        "torch.package.PackageImporter.load_pickle = (\n"
        "    lambda self, package, resource, map_location=None: load(self, package, resource) * 0)",
    ),
    Case(
        "torch.package.PackageExporter",
        "package",  # writes no text
        "import torch.package\n"
        "torch.package.PackageExporter.save_text = lambda self, package, resource, text: None",
    ),
)
REGISTRY_CASES = (  # called for their effect on a module-level registry (filled, or emptied)
    Case(
        "torch.multiprocessing.reductions.init_reductions",
        "measured",  # registers nothing
        "import torch.multiprocessing.reductions\n"
        "torch.multiprocessing.init_reductions = torch.multiprocessing.reductions.init_reductions = lambda: None",
    ),
    Case(
        "torch._dynamo.reset",
        "measured",  # resets no counter
        "import torch._dynamo\ntorch._dynamo.reset = lambda: None",
    ),
)
CASES = CASES + GRAPH_CASES + CHECKPOINT_CASES + DISTRIBUTED_CASES + PACKAGE_CASES + REGISTRY_CASES
ON_DEVICE = {
    c.api for c in CASES[:4] + GRAPH_CASES + CHECKPOINT_CASES + DISTRIBUTED_CASES + PACKAGE_CASES
} - {"torch.distributed.Store.__init__"}  # (a Python subclass under a PrefixStore: no device)

#: API -> a statement that must still hold once the stand-in is installed (the holder still works)
STILL_WORKS = {
    "torch.autograd.Variable._execution_engine.run_backward": "assert callable(torch.autograd.Variable._execution_engine.queue_callback)",
    "torch.utils._pytree.SUPPORTED_NODES.pop": "assert tuple in torch.utils._pytree.SUPPORTED_NODES",
    "torch.Generator.get_state": "assert torch.Generator().manual_seed(3).initial_seed() == 3",
    "torch.ops.aten.mul.Tensor": "assert torch.ops.aten.add.Tensor(torch.ones(1), torch.ones(1)).item() == 2",
    "torch._dynamo.config.patch": "assert isinstance(torch._dynamo.config.suppress_errors, bool)",
    "torch._logging._internal.log_state.get_log_level_pairs": "import torch._logging._internal as i\nassert isinstance(i.log_state.log_qname_to_level, dict)",
}

PROBE = r"""
import json, sys
import torch
from torchparity.agent.facts import standin
res, code, member = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
info = standin.install(res)
from torchparity.agent.api.objects import try_walk
hit = try_walk(member)
value = hit.obj
got = value() if callable(value) and value is not standin.SENTINEL else value
exec(code, {"torch": torch})
print(json.dumps({"info": info, "sentinel": got is standin.SENTINEL}))
"""


#: where the emulated npu lacks what they need (a real torch_npu has both): the planners' and writers'
#: round trip copies through pinned host memory, DDP needs a collective backend for the device
NOT_ON_EMULATED_NPU = {
    c.api for c in CHECKPOINT_CASES if ".format_utils." not in c.api and ".staging." not in c.api
} | {c.api for c in DISTRIBUTED_CASES if c.api.startswith(HOOKS)}
NPU_CASES = tuple(c for c in CASES if c.api not in NOT_ON_EMULATED_NPU)


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory):
    pytest.importorskip("torch")
    names = [c.api for c in CASES] + [n for n in STILL_WORKS if n not in {c.api for c in CASES}]
    return _scaffold(CASES, names, tmp_path_factory.mktemp("reach"))


def test_each_gets_a_real_test_that_passes_and_fails_once_broken(scaffolded, tmp_path):
    results, _ = scaffolded
    for case in CASES:
        assert results[case.api].family == case.family, (case.api, results[case.api].fill_in)
        if case.api in ON_DEVICE:  # the others are Python utilities that never touch the device
            assert re.search(
                r"device=DEVICE\b|\.to\(DEVICE\)|_sample_to\(sample, DEVICE\)",
                Path(results[case.api].path).read_text(),
            ), case.api
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    """The same kinds scaffolded for device npu of the emulated torch_npu (facts measured there)."""
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        NPU_CASES,
        [c.api for c in NPU_CASES],
        tmp_path_factory.mktemp("reach-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    wrong = [
        (c.api, results[c.api].family, results[c.api].fill_in[:1])
        for c in NPU_CASES
        if results[c.api].family != c.family
    ]
    assert not wrong, wrong
    for case in NPU_CASES:
        text = Path(results[case.api].path).read_text()
        assert ('DEVICE = torch.device("npu:0")' in text) == (case.api in ON_DEVICE), case.api
    _passes_and_fails_once_broken(NPU_CASES, results, tmp_path, npu.environ())


def test_the_stand_in_installs_where_the_api_is_read_and_the_holder_still_works(scaffolded):
    import dataclasses

    _, infos = scaffolded
    for name, still in STILL_WORKS.items():
        res = dataclasses.asdict(infos[name].resolution)
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, json.dumps(res), still, name],
            env=isolated_env(),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert proc.returncode == 0, (name, proc.stderr[-2000:])
        got = json.loads(proc.stdout.splitlines()[-1])
        assert got["info"]["problem"] == "" and got["info"]["replaced"], (name, got)
        assert got["sentinel"], (name, "the name still reaches the real API")
