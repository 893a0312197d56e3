"""Fixtures for the scaffold tests: real APIs, scaffolded once per session, and a patched runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from torchparity.exec.ship import isolated_env

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Case:
    api: str
    family: str
    #: code run before the generated file: replaces the API with a wrong implementation
    breakage: str


#: real APIs across the families, each with a realistic wrong implementation
CASES = (
    Case(
        "torch.autograd.grad_mode.set_grad_enabled.clone",
        "context",
        "torch.autograd.grad_mode.set_grad_enabled.clone = lambda self: self",
    ),
    Case(
        "torch.autograd.grad_mode.set_multithreading_enabled.clone",
        "context",
        "cls = torch.autograd.grad_mode.set_multithreading_enabled\n"
        "cls.clone = lambda self: cls(True)",
    ),
    Case(
        "torch.autograd.grad_mode.inference_mode.clone",
        "context",
        "cls = torch.autograd.grad_mode.inference_mode\n"
        "cls.clone = lambda self: cls(not self.mode)",
    ),
    Case(
        "torch.no_grad", "context", "torch.autograd.grad_mode.no_grad.__enter__ = lambda self: None"
    ),
    Case(
        "torch.inference_mode",
        "context",
        "cls = torch.autograd.grad_mode.inference_mode\n"
        "init = cls.__init__\n"
        "cls.__init__ = lambda self, mode=True: init(self, True)",
    ),
    Case(
        "torch.autograd.grad_mode.set_grad_enabled.__enter__",
        "context",
        "torch.autograd.grad_mode.set_grad_enabled.__enter__ = (\n"
        "    lambda self: torch._C._set_grad_enabled(not self.mode))",
    ),
    Case(
        "torch.nn.functional.relu",
        "opinfo",
        "torch.nn.functional.relu = lambda input, inplace=False: input.abs()",
    ),
    Case(
        "torch.add",
        "opinfo",
        "add = torch.add\n"
        "torch.add = lambda input, other, *, alpha=1, out=None: add(input, other, alpha=alpha) * 2",
    ),
    Case(
        "torch.mul",
        "opinfo",  # wrong for float32 only (float64, the reference, stays right)
        "mul = torch.mul\n"
        "def wrong(a, b, **kw):\n"
        "    out = mul(a, b, **kw)\n"
        "    return out + 1 if out.dtype == torch.float32 else out\n"
        "torch.mul = wrong",
    ),
    Case("torch.Tensor.add_", "opinfo", "torch.Tensor.add_ = lambda self, other, *, alpha=1: self"),
    Case("torch.Tensor.ndim", "tensor", "torch.Tensor.ndim = property(lambda self: 2)"),
    Case(
        "torch.Tensor.ndimension", "tensor", "torch.Tensor.ndimension = lambda self: self.numel()"
    ),
    Case("torch.Tensor.item", "tensor", "torch.Tensor.item = lambda self: 0.0"),
    Case(
        "torch._utils._get_device_index",
        "signature",
        "torch._utils._get_device_index = lambda device, optional=False, allow_cpu=False: 0",
    ),
    Case("torch.promote_types", "doctest", "torch.promote_types = lambda type1, type2: type1"),
    Case(
        "torch.is_nonzero",
        "doctest",  # wrong for one-element tensors only
        "orig = torch.is_nonzero\n"
        "torch.is_nonzero = lambda input: (not orig(input)) if input.numel() == 1 else orig(input)",
    ),
    Case("torch.set_default_dtype", "signature", "torch.set_default_dtype = lambda d: None"),
    Case(
        "torch.BoolStorage",
        "storage",
        "torch.storage.TypedStorage.tolist = lambda self: [False] * self.size()",
    ),
    Case(
        "torch.UntypedStorage", "storage", "torch.UntypedStorage.fill_ = lambda self, value: self"
    ),
    Case("torch.cpu.device_count", "runtime", "torch.cpu.device_count = lambda: 0"),
    Case("torch.cpu.synchronize", "runtime", "torch.cpu.synchronize = lambda device=None: False"),
    Case(
        "torch.cpu.current_stream",
        "runtime",
        "torch.cpu.current_stream = lambda device=None: object()",
    ),
    Case(
        "torch.Stream",
        "runtime",  # a stream that never reports its work complete
        "real = torch.Stream\n"
        "class Stream:\n"
        "    def __init__(self, device=None, priority=0):\n"
        "        self.inner = real(device=device, priority=priority)\n"
        "        self.device = self.inner.device\n"
        "    def synchronize(self):\n"
        "        return self.inner.synchronize()\n"
        "    def query(self):\n"
        "        return False\n"
        "torch.Stream = Stream",
    ),
)
#: the families of issue 16, each with APIs of its kind and a break of each API's own behaviour
FAMILY_CASES = (
    # nn modules and containers
    Case(
        "torch.nn.ModuleList",
        "module",  # a container that drops an element
        "torch.nn.ModuleList.append = lambda self, module: self",
    ),
    Case(
        "torch.nn.ModuleDict",
        "module",
        "torch.nn.ModuleDict.__setitem__ = lambda self, key, module: None",
    ),
    Case(
        "torch.nn.Sequential",
        "module",  # forward skips the last module
        "orig = torch.nn.Sequential.forward\n"
        "torch.nn.Sequential.forward = lambda self, input: (\n"
        "    torch.nn.Sequential(*list(self)[:-1])(input) if len(self) > 1 else orig(self, input))",
    ),
    Case(
        "torch.nn.Module.load_state_dict",
        "module",  # load_state_dict ignoring a key
        "orig = torch.nn.Module.load_state_dict\n"
        "def load(self, state_dict, strict=True, assign=False):\n"
        "    kept = {k: v for k, v in state_dict.items() if k != 'scale'}\n"
        "    return orig(self, kept, strict=False, assign=assign)\n"
        "torch.nn.Module.load_state_dict = load",
    ),
    Case(
        "torch.nn.Module.state_dict",
        "module",  # state_dict without the buffers
        "orig = torch.nn.Module.state_dict\n"
        "torch.nn.Module.state_dict = lambda self, *a, **k: {\n"
        "    n: v for n, v in orig(self, *a, **k).items() if not n.endswith('scale')}",
    ),
    Case(
        "torch.nn.TransformerEncoderLayer.forward",
        "module",  # the feed-forward block skipped
        "torch.nn.TransformerEncoderLayer._ff_block = lambda self, x: torch.zeros_like(x)",
    ),
    Case(
        "torch.nn.Parameter",
        "module",  # parameters that do not require grad
        "orig = torch.nn.Parameter.__new__\n"
        "torch.nn.Parameter.__new__ = lambda cls, data=None, requires_grad=True: orig(cls, data, False)",
    ),
    # graph capture
    Case(
        "torch.jit.trace",
        "graph",
        "torch.jit.trace = lambda func, example_inputs=None, *a, **k: func",
    ),
    Case(
        "torch.fx.symbolic_trace",
        "graph",  # a graph with the wrong operator
        "orig = torch.fx.symbolic_trace\n"
        "def trace(root, concrete_args=None):\n"
        "    gm = orig(root, concrete_args)\n"
        "    for node in gm.graph.nodes:\n"
        "        if node.target is torch.relu:\n"
        "            node.target = torch.abs\n"
        "    gm.recompile()\n"
        "    return gm\n"
        "torch.fx.symbolic_trace = trace",
    ),
    Case("torch.fx.Node.next", "graph", "torch.fx.Node.next = property(lambda self: self)"),
    Case(
        "torch.compile",
        "graph",  # a compile that ignores its backend
        "torch.compile = lambda model=None, *, backend='inductor', **kwargs: model",
    ),
    # serialization and storage
    Case(
        "torch.save",
        "serialization",  # a save that drops a key
        "orig = torch.save\n"
        "def save(obj, f, *args, **kwargs):\n"
        "    if isinstance(obj, dict):\n"
        "        obj = {k: v for k, v in obj.items() if k != 'step'}\n"
        "    return orig(obj, f, *args, **kwargs)\n"
        "torch.save = save",
    ),
    Case(
        "torch.load",
        "serialization",  # a load that does not keep views sharing their base
        "orig = torch.load\n"
        "def load(f, *args, **kwargs):\n"
        "    out = orig(f, *args, **kwargs)\n"
        "    if isinstance(out, dict):\n"
        "        out = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in out.items()}\n"
        "    return out\n"
        "torch.load = load",
    ),
    Case(
        "torch.UntypedStorage.copy_",
        "serialization",  # a storage copy that zeroes one value
        "orig = torch.UntypedStorage.copy_\n"
        "def copy_(self, src, non_blocking=None):\n"
        "    out = orig(self, src)\n"
        "    out[0] = 0\n"
        "    return out\n"
        "torch.UntypedStorage.copy_ = copy_",
    ),
    Case(
        "torch.UntypedStorage.cpu",
        "serialization",
        "orig = torch.UntypedStorage.cpu\n"
        "def cpu(self):\n"
        "    out = orig(self).clone()\n"
        "    out[1] = 0\n"
        "    return out\n"
        "torch.UntypedStorage.cpu = cpu",
    ),
    # optimizers and schedulers
    Case(
        "torch.optim.SGD",
        "optim",  # a step with the wrong sign
        "def step(self, closure=None):\n"
        "    loss = closure() if closure is not None else None\n"
        "    with torch.no_grad():\n"
        "        for group in self.param_groups:\n"
        "            for p in group['params']:\n"
        "                if p.grad is not None:\n"
        "                    p.add_(p.grad, alpha=group['lr'])\n"
        "    return loss\n"
        "torch.optim.SGD.step = step",
    ),
    Case(
        "torch.optim.Optimizer.zero_grad",
        "optim",  # set_to_none=False not honoured
        "orig = torch.optim.Optimizer.zero_grad\n"
        "torch.optim.Optimizer.zero_grad = lambda self, set_to_none=True: orig(self, set_to_none=True)",
    ),
    Case(
        "torch.optim.Adam",
        "optim",  # load_state_dict that keeps nothing
        "torch.optim.Adam.load_state_dict = lambda self, state_dict: None",
    ),
    Case(
        "torch.optim.SGD.load_state_dict",
        "optim",  # keeps nothing: SGD without momentum has no state, so
        "torch.optim.SGD.load_state_dict = lambda self, state_dict: None",
    ),  # only the rates can show it
    Case(
        "torch.optim.lr_scheduler.StepLR",
        "optim",  # gamma ignored
        "torch.optim.lr_scheduler.StepLR.get_lr = lambda self: [g['lr'] for g in self.optimizer.param_groups]",
    ),
    Case(
        "torch.optim.lr_scheduler.ChainedScheduler.load_state_dict",
        "optim",  # the chained ones not restored
        "torch.optim.lr_scheduler.ChainedScheduler.load_state_dict = lambda self, state_dict: None",
    ),
    # data loading
    Case(
        "torch.utils.data.DataLoader",
        "data",  # a DataLoader that drops the last batch
        "orig = torch.utils.data.DataLoader.__init__\n"
        "def init(self, *args, **kwargs):\n"
        "    kwargs['drop_last'] = True\n"
        "    orig(self, *args, **kwargs)\n"
        "torch.utils.data.DataLoader.__init__ = init",
    ),
    Case(
        "torch.utils.data.RandomSampler",
        "data",  # draws in order, and only len(data) of them
        "torch.utils.data.RandomSampler.__iter__ = lambda self: iter(range(len(self.data_source)))",
    ),
    Case(
        "torch.utils.data.BatchSampler",
        "data",  # drop_last inverted
        "orig = torch.utils.data.BatchSampler.__init__\n"
        "torch.utils.data.BatchSampler.__init__ = lambda self, sampler, batch_size, drop_last: orig(\n"
        "    self, sampler, batch_size, not drop_last)",
    ),
    Case(
        "torch.utils.data.default_collate",
        "data",
        "torch.utils.data.default_collate = lambda batch: batch",
    ),
    # runtime objects (the CPU's own module here) and generators
    Case("torch.cuda.current_device", "runtime", "torch.cpu.current_device = lambda: 'cuda'"),
    Case(
        "torch.cpu.stream",
        "runtime",
        "import contextlib\ntorch.cpu.stream = lambda stream: contextlib.nullcontext()",
    ),
    Case(
        "torch.Generator.set_state",
        "generator",  # a generator whose set_state does nothing
        "class Generator(torch.Generator):\n"
        "    def set_state(self, state):\n"
        "        return self\n"
        "torch.Generator = Generator",
    ),
    # autograd
    Case(
        "torch.autograd.grad",
        "autograd",  # gradients with the wrong sign
        "orig = torch.autograd.grad\n"
        "torch.autograd.grad = lambda *args, **kwargs: tuple(-g for g in orig(*args, **kwargs))",
    ),
    Case(
        "torch.autograd.backward",
        "autograd",  # a backward that ignores the output's weights
        "orig = torch.autograd.backward\n"
        "def backward(tensors, grad_tensors=None, *args, **kwargs):\n"
        "    if grad_tensors is not None:\n"
        "        grad_tensors = torch.ones_like(grad_tensors)\n"
        "    return orig(tensors, grad_tensors, *args, **kwargs)\n"
        "torch.autograd.backward = backward",
    ),
    Case(
        "torch.autograd.gradcheck",
        "autograd",  # a check that passes every function
        "torch.autograd.gradcheck = lambda func, inputs, *args, **kwargs: True",
    ),
    # distributed checkpoints in one process
    Case(
        "torch.distributed.checkpoint.save",
        "checkpoint",  # a save that writes no tensor data
        "import torch.distributed.checkpoint as dcp\n"
        "orig = dcp.save\n"
        "def save(state_dict, *args, **kwargs):\n"
        "    return orig({k: v for k, v in state_dict.items() if not isinstance(v, torch.Tensor)}, *args, **kwargs)\n"
        "dcp.save = save",
    ),
    Case(
        "torch.distributed.checkpoint.FileSystemReader",
        "checkpoint",  # a reader that reads nothing
        "import torch.distributed.checkpoint as dcp\n"
        "def read_data(self, plan, planner):\n"
        "    done = torch.futures.Future()\n"
        "    done.set_result(None)\n"
        "    return done\n"
        "dcp.FileSystemReader.read_data = read_data",
    ),
    Case(
        "torch.distributed.checkpoint.state_dict.get_optimizer_state_dict",
        "checkpoint",  # numbered, not named
        "import torch.distributed.checkpoint.state_dict as dsd\n"
        "dsd.get_optimizer_state_dict = lambda model, optimizers, **kwargs: optimizers.state_dict()",
    ),
    Case(
        "torch.distributed.checkpoint.state_dict.set_state_dict",
        "checkpoint",  # the optimizer's state ignored
        "import torch.distributed.checkpoint.state_dict as dsd\n"
        "def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None):\n"
        "    return dsd.set_model_state_dict(model, model_state_dict)\n"
        "dsd.set_state_dict = set_state_dict",
    ),
    # pipeline parallelism in a one-rank group
    Case(
        "torch.distributed.pipelining.ScheduleGPipe",
        "pipelining",  # the micro-batches' losses not handed back
        "import torch.distributed.pipelining as pp\n"
        "step = pp.ScheduleGPipe.step\n"
        "pp.ScheduleGPipe.step = lambda self, *args, target=None, losses=None, **kwargs: step(\n"
        "    self, *args, target=target, **kwargs)",
    ),
    Case(
        "torch.distributed.pipelining.ScheduleInterleaved1F1B",
        "pipelining",  # gradients not scaled
        "import torch.distributed.pipelining as pp\n"
        "init = pp.ScheduleInterleaved1F1B.__init__\n"
        "pp.ScheduleInterleaved1F1B.__init__ = lambda self, *args, **kwargs: init(\n"
        "    self, *args, **dict(kwargs, scale_grads=False))",
    ),
    Case(
        "torch.distributed.pipelining.pipeline",
        "pipelining",  # the split points ignored: one stage
        "import torch.distributed.pipelining as pp\n"
        "pipeline = pp.pipeline\n"
        "pp.pipeline = lambda module, mb_args, mb_kwargs=None, split_spec=None, split_policy=None: pipeline(\n"
        "    module, mb_args, mb_kwargs)",
    ),
    # documented examples, and behaviour measured on the CPU
    Case("torch.is_tensor", "doctest", "torch.is_tensor = lambda obj: False"),
    Case(
        "torch.autograd.profiler_util.StringTable.pop",
        "measured",
        "torch.autograd.profiler_util.StringTable.pop = lambda self, key, *default: None",
    ),
    Case("torch.set_warn_always", "measured", "torch.set_warn_always = lambda b: None"),
    Case(
        "torch.Tensor.map_", "measured", "torch.Tensor.map_ = lambda self, tensor, callable: self"
    ),
    Case(
        "torch.autograd.profiler_util.StringTable.values",
        "measured",
        "torch.autograd.profiler_util.StringTable.values = lambda self: []",
    ),
)
ALL_CASES = CASES + FAMILY_CASES
#: an API no family can decide on (it needs the network): its test must fail as written
FILL_IN = "torch.hub.help"


@dataclass(frozen=True)
class Generated:
    info: object  # ApiInfo
    result: object  # ScaffoldResult
    facts: dict


@pytest.fixture(scope="session")
def generated(tmp_path_factory) -> dict[str, Generated]:
    """{api: (ApiInfo, ScaffoldResult)} for every case and the fill-in API, written under one folder."""
    pytest.importorskip("torch")
    from torchparity.api import agent_session, resolve_api
    from torchparity.config import load_preset
    from torchparity.scaffold import scaffold_facts_many, scaffold_test

    out = tmp_path_factory.mktemp("scaffolded")
    names = [c.api for c in ALL_CASES] + [FILL_IN]
    config = load_preset("default")
    with agent_session(sys.executable, "", "cpu") as session:
        infos = resolve_api(names, sys.executable, "", "cpu", trace=False, session=session)
        facts = scaffold_facts_many(infos, session)
    results = {}
    for n, (name, info, f) in enumerate(zip(names, infos, facts, strict=True)):
        # a folder each: two APIs may share a leaf name (torch.save, torch.distributed.checkpoint.save)
        result = scaffold_test(
            info, config, python=sys.executable, device="cpu", out_dir=out / f"{n:02d}", facts=f
        )
        results[name] = Generated(info, result, f)
    return results


def run_files(
    jobs: list[dict[str, str]], tmp: Path, environ: dict[str, str] | None = None
) -> list[dict]:
    """Run each ``{"file", "patch"}`` job through run_patched.py in the environment the collector gives a test
    (with ``environ`` on top: an emulation's path)."""
    spec, results = tmp / "jobs.json", tmp / "results.json"
    spec.write_text(json.dumps(jobs))
    env = {**isolated_env(), **(environ or {})}
    proc = subprocess.run(
        [sys.executable, str(HERE / "run_patched.py"), str(spec), str(results)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(results.read_text())


@pytest.fixture(autouse=True)
def _recorded_facts(request: pytest.FixtureRequest) -> Iterator[None]:
    """A slow test that scaffolds real APIs through ``_scaffold`` (tests/scaffold/scaffold_run.py) measures
    their facts from a recording of the real agent (the ``agent`` fixture, tests/fakeagent.py), then runs
    the written files for real: what it proves is that the family plans and writes a test that passes on
    real torch and fails once broken. The facts themselves are measured for real by
    test_scaffold_generated.py, test_scaffold_agent_facts.py and tests/agent/; with
    TORCHPARITY_RECORD_AGENT=1 the recordings are made anew."""
    if request.node.get_closest_marker("slow") is None or "_scaffold" not in vars(request.module):
        yield
        return
    from tests.fakeagent import RECORD_VARIABLE, recording_path

    recorded = recording_path(
        request.module.__name__.rsplit(".", 1)[-1], request.node.name
    ).exists()
    if recorded or os.environ.get(RECORD_VARIABLE):
        request.getfixturevalue("agent")
    # else: no recording yet, so the facts are measured by the real agent (this is the slow tier)
    yield
