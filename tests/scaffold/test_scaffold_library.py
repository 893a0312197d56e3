"""The ``library`` family: custom operators through ``torch.library``.

``custom_op``, ``Library`` and its ``define``/``impl``, the functions ``define``,
``impl``, ``register_autograd`` and ``impl_abstract`` are scaffolded for the CPU
and for the emulated npu (kernels under ``PrivateUse1``), pass there, and fail
under a targeted break: kernels whose values are off, a schema that loses its
default or its argument name, a kernel registered for every key, a backward
with the wrong sign, a fake kernel of the wrong shape.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow

CASES = (
    Case(
        "torch.library.custom_op",
        "library",  # the kernel's values are off by one
        "import functools\n"
        "orig = torch.library.custom_op\n"
        "def custom_op(name, fn=None, /, **k):\n"
        "    def deco(f):\n"
        "        @functools.wraps(f)\n"
        "        def g(*a, **kw):\n"
        "            out = f(*a, **kw)\n"
        "            return out + 1 if isinstance(out, torch.Tensor) else out\n"
        "        return orig(name, **k)(g)\n"
        "    return deco\n"
        "torch.library.custom_op = custom_op",
    ),
    Case(
        "torch.library.Library",
        "library",  # kernels registered through it return zeros
        "L = torch.library.Library\norig = L.impl\n"
        "L.impl = lambda self, name, fn, key='', **k: orig(self, name, lambda *a: fn(*a) * 0, key, **k)",
    ),
    Case(
        "torch.library.Library.define",
        "library",  # the default is dropped
        "L = torch.library.Library\norig = L.define\n"
        "L.define = lambda self, schema, *a, **k: orig(self, schema.replace('=2', ''), *a, **k)",
    ),
    Case(
        "torch.library.Library.impl",
        "library",  # registered for every key, whatever key is given
        "L = torch.library.Library\norig = L.impl\n"
        "L.impl = lambda self, name, fn, key='', **k: orig(self, name, fn, 'CompositeExplicitAutograd', **k)",
    ),
    Case(
        "torch.library.define",
        "library",  # the argument is renamed
        "orig = torch.library.define\n"
        "torch.library.define = lambda q, schema, **k: orig(q, schema.replace('Tensor x', 'Tensor self'), **k)",
    ),
    Case(
        "torch.library.impl",
        "library",  # the kernel's values are doubled
        "orig = torch.library.impl\n"
        "torch.library.impl = lambda q, types, func=None, **k: orig(q, types, lambda *a: func(*a) * 2, **k)",
    ),
    Case(
        "torch.library.register_autograd",
        "library",  # the backward's sign is flipped
        "orig = torch.library.register_autograd\n"
        "torch.library.register_autograd = lambda op, bw, **k: orig(op, lambda ctx, g: -bw(ctx, g), **k)",
    ),
    Case(
        "torch.library.impl_abstract",
        "library",  # the fake kernel keeps the input's shape
        "orig = torch.library.impl_abstract\n"
        "torch.library.impl_abstract = lambda q, func=None, **k: "
        "(lambda f: orig(q, **k)(lambda x: x.new_empty(x.shape)))",
    ),
)


def _check(results, device_line):
    for case in CASES:
        res = results[case.api]
        assert res.family == case.family, (case.api, res.fill_in)
        assert not res.notes, (case.api, res.notes)
        assert device_line in Path(res.path).read_text(), case.api


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("library"))
    _check(results, 'DEVICE = torch.device("cpu")')
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        CASES,
        [c.api for c in CASES],
        tmp_path_factory.mktemp("library-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    _check(results, 'DEVICE = torch.device("npu:0")')
    _passes_and_fails_once_broken(CASES, results, tmp_path, npu.environ())
