"""TorchScript IR and jit internals (the ``jitgraph`` family).

Passes, helpers and IR classes of ``torch._C`` and a few torch.jit/torch.fx
helpers, each scaffolded for the CPU (and for the emulated npu), ruff-clean,
passing there, and failing under a targeted break of its own behaviour: a dead
code elimination that removes nothing, an add-relu fusion that fuses nothing, an
inliner that inlines nothing, an interpreter that returns its input, the
operator of ``aten::sub`` for ``aten::add``, the ``out`` schema dropped, a
switch that returns the new value instead of the old one, a ``Node.kind`` that
names another operator, a ``Graph`` whose ``addInput`` adds two inputs, a
tensor-expression kernel that returns its input, ``enable`` that leaves
scripting off, ``isinstance`` ignoring the element type, ``split_module`` that
puts every node in one partition, a ``Proxy`` whose ``*`` records an ``add``,
``Final`` read as ``Optional`` (an attribute, not a constant), ``_overload``
registering nothing, a ``NotSupportedError`` that is no ``FrontendError``,
frozen optimizations that fold nothing.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import (
    _check_families,
    _passes_and_fails_once_broken,
    _scaffold,
)
from tests.scaffold.test_scaffold_generated import RUFF

pytestmark = pytest.mark.slow

C = "torch._C."
CASES = (
    Case(
        C + "_jit_pass_dce", "jitgraph", "torch._C._jit_pass_dce = lambda graph: None"
    ),  # removes nothing
    Case(
        C + "_jit_pass_fuse_add_relu",
        "jitgraph",  # fuses nothing, only cleans up
        "torch._C._jit_pass_fuse_add_relu = torch._C._jit_pass_dce",
    ),
    Case(C + "_jit_pass_inline", "jitgraph", "torch._C._jit_pass_inline = lambda graph: None"),
    Case(
        C + "_jit_interpret_graph",
        "jitgraph",  # the input back, the graph not run
        "torch._C._jit_interpret_graph = lambda graph, args: args[0]",
    ),
    Case(
        C + "_jit_get_operation",
        "jitgraph",  # another operator
        "orig = torch._C._jit_get_operation\n"
        "torch._C._jit_get_operation = lambda name: orig(name.replace('add', 'sub'))",
    ),
    Case(
        C + "_jit_get_schemas_for_operator",
        "jitgraph",  # the out= overload dropped
        "orig = torch._C._jit_get_schemas_for_operator\n"
        "torch._C._jit_get_schemas_for_operator = lambda name: [s for s in orig(name) if not s.overload_name]",
    ),
    Case(
        C + "_jit_set_profiling_executor",
        "jitgraph",  # the new value returned, not the old one
        "orig = torch._C._jit_set_profiling_executor\n"
        "torch._C._jit_set_profiling_executor = lambda flag: (orig(flag), flag)[1]",
    ),
    Case(
        C + "Node",
        "jitgraph",  # names another operator
        "orig = torch._C.Node.kind\ntorch._C.Node.kind = lambda self: orig(self).replace('mul', 'add')",
    ),
    Case(
        C + "Graph",
        "jitgraph",  # two inputs for one
        "class G(torch._C.Graph):\n"
        "    def addInput(self, *args):\n"
        "        value = super().addInput(*args)\n"
        "        super().addInput()\n"
        "        return value\n"
        "torch._C.Graph = torch.Graph = G",
    ),
    Case(
        C + "_te.TensorExprKernel",
        "jitgraph",  # the input back
        "class K(torch._C._te.TensorExprKernel):\n"
        "    def run(self, inputs):\n"
        "        return inputs[0]\n"
        "torch._C._te.TensorExprKernel = K",
    ),
    Case(
        "torch.jit._state.enable",
        "jitgraph",
        "import torch.jit._state\ntorch.jit._state.enable = lambda: None",
    ),
    Case(
        "torch.jit.isinstance",
        "jitgraph",  # the element type ignored
        "import typing\n"
        "torch.jit.isinstance = lambda obj, kind: isinstance(obj, typing.get_origin(kind) or kind)",
    ),
    Case(
        "torch.fx.passes.split_module.split_module",
        "jitgraph",  # one partition for every node
        "import torch.fx.passes.split_module as sm\n"
        "orig = sm.split_module\n"
        "sm.split_module = lambda m, root, callback, *a, **k: orig(m, root, lambda node: 0, *a, **k)",
    ),
    Case(
        "torch.jit.Final",
        "jitgraph",  # an attribute, not a constant (it is typing.Final, spelled so)
        "import typing\ntyping.Final = torch.jit.Final = typing.Optional",
    ),
    Case(
        "torch.jit._overload", "jitgraph", "torch.jit._overload = lambda fn: fn"
    ),  # nothing registered
    Case(
        "torch.jit.frontend.NotSupportedError",
        "jitgraph",  # no longer a FrontendError
        "import torch.jit.frontend as fe\nfe.NotSupportedError = type('NotSupportedError', (Exception,), {})",
    ),
    Case(
        "torch.jit.run_frozen_optimizations",
        "jitgraph",  # folds nothing
        "torch.jit.run_frozen_optimizations = lambda module, *a, **k: None",
    ),
    Case(
        "torch.fx.Proxy",
        "jitgraph",  # `*` records an add
        "import torch.fx\ntorch.fx.Proxy.__mul__ = torch.fx.Proxy.__add__",
    ),
)
#: the tensor-expression kernel is compiled for the CPU only
NPU_CASES = tuple(c for c in CASES if c.api != C + "_te.TensorExprKernel")


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("jitgraph"))
    _check_families(CASES, results)
    proc = subprocess.run(
        [*RUFF, *(results[c.api].path for c in CASES)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-4000:]
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        NPU_CASES,
        [c.api for c in NPU_CASES],
        tmp_path_factory.mktemp("jitgraph-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    _check_families(NPU_CASES, results)
    _passes_and_fails_once_broken(NPU_CASES, results, tmp_path, npu.environ())
