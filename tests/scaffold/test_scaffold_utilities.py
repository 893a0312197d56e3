"""Python-level torch utilities with documented behaviour and no other template.

Futures, shared multiprocessing values, autocast entry and exit, the compile
caches' reset, ``mark_dynamic`` and ``torch.cond``, each scaffolded for the CPU
(and, but for the three that need dynamo, which cannot start in the emulation's
forked children, for the emulated npu), passing there, and failing under a
targeted break: a future whose callbacks never run or whose error is lost, a
shared value that is a private copy, autocast entered disabled or never
left, a reset that clears nothing, a mark that is ignored, a ``cond``
that always takes the true branch; and the symbolic-shape helpers
(``constrain_range`` ignoring the upper bound, ``constrain_unify`` the wrong way
round, ``compute_unbacked_bindings`` consuming on a peek, a symbol's value off by
one), a static address always guarded, and ``from_numpy`` copying the array.
The same file's breaks of a fake tensor reporting another device, a
``torch.dtype`` that the dtypes are not instances of, a ``torch.device``
dropping its index, a stale config copy, ``warn_only`` ignored and operators
registered under another name or namespace hold against the families that
take those APIs (``fake``, ``typeobject``, ``config``, ``signature``,
``library``).
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

SYM = "torch.fx.experimental.symbolic_shapes"
_SYM = f"import {SYM} as sym\n"
#: a shared value breaks as a private object with a lock of its own
_PRIVATE = "from threading import Lock\n"
CASES = (
    Case(
        "torch.futures.Future",
        "utility",  # callbacks never run
        "torch.futures.Future.add_done_callback = lambda self, callback: None",
    ),
    Case(
        "torch._C.Future",
        "utility",  # the C class: its done callbacks never run
        "class F(torch._C.Future):\n    def add_done_callback(self, fn):\n        pass\n"
        "torch._C.Future = torch.Future = F",
    ),
    Case(
        "torch.futures.Future.set_exception",
        "utility",  # the error is lost: a result instead
        "torch.futures.Future.set_exception = lambda self, result: self.set_result(None)",
    ),
    Case(
        "torch.futures.Future.then",
        "utility",  # the chained future holds the parent's value
        "orig = torch.futures.Future.then\n"
        "torch.futures.Future.then = lambda self, callback: orig(self, lambda f: f.wait())",
    ),
    Case(
        "torch.futures.collect_all",
        "utility",  # done before every future is
        "torch.futures.collect_all = lambda futures: futures[0].then(lambda f: futures)",
    ),
    Case(
        "torch.multiprocessing.Value",
        "utility",
        _PRIVATE
        + (  # a private copy, not shared memory
            "class FakeValue:\n"
            "    def __init__(self, typecode, value, lock=True):\n"
            "        self.value = value\n"
            "        if lock:\n"
            "            self.get_lock = Lock\n"
            "torch.multiprocessing.Value = FakeValue"
        ),
    ),
    Case(
        "torch.multiprocessing.Array",
        "utility",
        _PRIVATE
        + (  # a plain list
            "class FakeArray(list):\n"
            "    get_lock = Lock\n"
            "torch.multiprocessing.Array = lambda typecode, values: FakeArray(\n"
            "    values if isinstance(values, list) else [0.0] * values)"
        ),
    ),
    Case(
        "torch.amp._enter_autocast",
        "utility",  # entered disabled
        "import torch.amp.autocast_mode as am\n"
        "orig = am._enter_autocast\n"
        "torch.amp._enter_autocast = lambda device, dtype, enabled, cache: orig(device, dtype, False, cache)",
    ),
    Case(
        "torch.amp.autocast_mode._exit_autocast",
        "utility",  # never leaves
        "torch.amp.autocast_mode._exit_autocast = lambda mode: None",
    ),
    Case(
        "torch.compiler.reset", "utility", "torch.compiler.reset = lambda: None"
    ),  # clears nothing
    Case(
        "torch._dynamo.mark_dynamic",
        "utility",  # the mark ignored
        "import torch._dynamo\ntorch._dynamo.mark_dynamic = lambda t, index, **k: None",
    ),
    Case(
        "torch.cond",
        "utility",  # always the true branch
        "torch.cond = lambda pred, true_fn, false_fn, operands: true_fn(*operands)",
    ),
    Case(
        "torch._subclasses.fake_tensor.FakeTensor",
        "fake",  # reports another device
        "from torch._subclasses.fake_tensor import FakeTensor\n"
        "FakeTensor.device = property(lambda self: torch.device('meta'))",
    ),
    Case("torch.dtype", "typeobject", "torch.dtype = type('dtype', (), {})"),  # a class of its own
    Case(
        "torch.device",
        "typeobject",  # the index dropped
        "orig = torch.device\ntorch.device = lambda kind, index=None: orig(kind.split(':')[0])",
    ),
    Case(
        "torch._dynamo.mark_static_address",
        "utility",  # always guarded
        "import torch._dynamo\ntorch._dynamo.mark_static_address = "
        "lambda t, guard=False: setattr(t, '_dynamo_static_input_type', 'guarded')",
    ),
    Case(
        "torch._inductor.config.get_config_copy",
        "config",  # a stale copy
        "import torch._inductor.config as ic\nsnapshot = ic.get_config_copy()\n"
        "ic.__dict__['get_config_copy'] = lambda: dict(snapshot)",
    ),
    Case(
        "torch.use_deterministic_algorithms",
        "signature",  # warn_only ignored
        "orig = torch.use_deterministic_algorithms\n"
        "torch.use_deterministic_algorithms = lambda mode, *, warn_only=False: orig(mode)",
    ),
    Case(
        "torch.library.custom_op",
        "library",  # registers under another name
        "orig = torch.library.custom_op\n"
        "torch.library.custom_op = lambda name, *a, **k: orig(name.replace('::', '::other_'), *a, **k)",
    ),
    Case(
        "torch.library.Library",
        "library",  # another namespace
        "orig = torch.library.Library\ntorch.library.Library = lambda ns, kind, *a: orig(ns + '_other', kind, *a)",
    ),
    Case(
        "torch.from_numpy",
        "utility",  # a copy, not the array's memory
        "orig = torch.from_numpy\ntorch.from_numpy = lambda a: orig(a).clone()",
    ),
    Case(
        f"{SYM}.constrain_range",
        "utility",  # the upper bound ignored
        _SYM
        + "orig = sym.constrain_range\nsym.constrain_range = lambda a, *, min, max=None: orig(a, min=min)",
    ),
    Case(
        f"{SYM}.constrain_unify",
        "utility",  # the wrong way round
        _SYM + "orig = sym.constrain_unify\nsym.constrain_unify = lambda a, b: orig(b, a)",
    ),
    Case(
        f"{SYM}.compute_unbacked_bindings",
        "utility",  # a peek that consumes the pending symbols
        _SYM + "orig = sym.compute_unbacked_bindings\n"
        "sym.compute_unbacked_bindings = lambda env, value, old=None, peek=False: orig(env, value, old)",
    ),
    Case(
        f"{SYM}.ShapeEnv.add_backed_var_to_val",
        "utility",  # off by one
        _SYM + "orig = sym.ShapeEnv.add_backed_var_to_val\n"
        "sym.ShapeEnv.add_backed_var_to_val = lambda self, expr, val: orig(self, expr, val + 1)",
    ),
)
#: dynamo cannot start on the emulated npu in the forked children the files run in
NPU_CASES = tuple(
    c
    for c in CASES
    if c.api not in ("torch.compiler.reset", "torch._dynamo.mark_dynamic", "torch.cond")
)


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("utilities"))
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
        tmp_path_factory.mktemp("utilities-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    _check_families(NPU_CASES, results)
    _passes_and_fails_once_broken(NPU_CASES, results, tmp_path, npu.environ())
