"""Members reached through a class that inherits them, and fx members with no template.

``torch.jit.ScriptModule.register_state_dict_pre_hook`` is ``torch.nn.Module``'s
own function: its test is Module's member test run on a scripted module. Each is
scaffolded for the CPU (and, but for ``Module.compile``, whose dynamo cannot
start in the emulation's forked children, for the emulated npu), passes there,
and fails under a targeted break: a hook whose return value is dropped, a hook
given a copy of what it should change or the wrong prefix, a backward hook
recorded as a forward one, ``compile`` that does nothing or ignores its backend,
``add_module`` under another name, ``script_method`` that compiles nothing,
``get_attr`` returning a copy or a value instead of a proxy, and a
``get_fresh_qualname`` that hands out the same name twice.
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

_ORIG = "orig = {}.{}\n"


def _wrap(cls: str, leaf: str, body: str) -> str:
    """A patch replacing ``cls.leaf`` by ``body`` (which may call the real one as ``orig``)."""
    return _ORIG.format(cls, leaf) + f"{cls}.{leaf} = {body}"


SM = "torch.jit.ScriptModule"
M = "torch.nn.Module"
CASES = (
    Case(
        f"{SM}.register_full_backward_hook",
        "inherited",  # recorded as a forward hook
        f"{SM}.register_full_backward_hook = lambda self, hook, prepend=False: "
        "torch.nn.Module.register_forward_hook(self, lambda *a: None)",
    ),
    Case(
        f"{SM}.register_full_backward_pre_hook",
        "inherited",
        f"{SM}.register_full_backward_pre_hook = lambda self, hook, prepend=False: "
        "torch.nn.Module.register_forward_pre_hook(self, lambda *a: None)",
    ),
    Case(
        f"{SM}.register_state_dict_pre_hook",
        "inherited",  # the hook gets the wrong prefix
        _wrap(
            SM,
            "register_state_dict_pre_hook",
            "lambda self, hook: orig(self, lambda m, p, k: hook(m, '', k))",
        ),
    ),
    Case(
        f"{SM}.register_state_dict_post_hook",
        "inherited",  # the hook changes a copy of the state
        _wrap(
            SM,
            "register_state_dict_post_hook",
            "lambda self, hook: orig(self, lambda m, sd, p, md: hook(m, dict(sd), p, md))",
        ),
    ),
    Case(
        f"{SM}.register_load_state_dict_post_hook",
        "inherited",  # the hook clears a copy of the keys
        _wrap(
            SM,
            "register_load_state_dict_post_hook",
            "lambda self, hook: orig(self, lambda m, k: hook(m, type(k)(list(k.missing_keys), "
            "list(k.unexpected_keys))))",
        ),
    ),
    Case(
        f"{SM}.register_load_state_dict_pre_hook",
        "inherited",  # accepted on a ScriptModule
        f"{SM}.register_load_state_dict_pre_hook = lambda self, hook: None",
    ),
    Case(f"{SM}.compile", "inherited", f"{SM}.compile = lambda self, *a, **k: None"),
    Case(
        f"{SM}.add_module",
        "inherited",  # under another name
        _wrap(SM, "add_module", "lambda self, name, module: orig(self, name + '_', module)"),
    ),
    Case(
        f"{SM}.register_module",
        "inherited",
        f"{SM}.register_module = lambda self, name, module: None",
    ),
    Case(
        "torch.jit.script_method", "inherited", "torch.jit.script_method = lambda fn: fn"
    ),  # compiles nothing
    Case(
        f"{M}.register_full_backward_hook",
        "inherited",  # the hook's return value dropped
        _wrap(
            M,
            "register_full_backward_hook",
            "lambda self, hook, prepend=False: orig(self, lambda m, gi, go: (hook(m, gi, go), None)[1])",
        ),
    ),
    Case(
        f"{M}.register_full_backward_pre_hook",
        "inherited",
        _wrap(
            M,
            "register_full_backward_pre_hook",
            "lambda self, hook, prepend=False: orig(self, lambda m, go: (hook(m, go), None)[1])",
        ),
    ),
    Case(
        f"{M}.register_load_state_dict_pre_hook",
        "inherited",  # the hook fills a copy of the state
        _wrap(
            M,
            "register_load_state_dict_pre_hook",
            "lambda self, hook: orig(self, lambda m, sd, *rest: hook(m, dict(sd), *rest))",
        ),
    ),
    Case(
        f"{M}.compile",
        "inherited",  # the backend ignored
        _wrap(M, "compile", "lambda self, *a, **k: orig(self, backend='eager')"),
    ),
    Case(
        "torch.fx.Transformer.get_attr",
        "inherited",  # the value, as Interpreter fetches it, not a proxy
        "torch.fx.Transformer.get_attr = torch.fx.Interpreter.get_attr",
    ),
    Case(
        "torch.fx.Interpreter.get_attr",
        "inherited",  # a copy of the attribute
        "torch.fx.Interpreter.get_attr = lambda self, target, args, kwargs: "
        "self.fetch_attr(target).detach().clone()",
    ),
    Case(
        "torch.fx.Tracer.get_fresh_qualname",
        "inherited",  # the same name twice
        "torch.fx.Tracer.get_fresh_qualname = lambda self, prefix: prefix + '0'",
    ),
)
#: dynamo cannot start on the emulated npu in the forked children the files run in
NPU_CASES = tuple(c for c in CASES if c.api != f"{M}.compile")


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("inherited"))
    _check_families(CASES, results)
    proc = subprocess.run(
        [*RUFF, *(results[c.api].path for c in CASES)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-4000:]
    scripted = [c for c in CASES if c.api.startswith(SM) and "compile" not in c.api]
    for case in scripted:  # the base's member test, on a scripted module
        assert "torch.jit.script(make(DEVICE))" in open(results[case.api].path).read(), case.api
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_they_run_on_the_emulated_npu_and_fail_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    from torchparity.emulated import EMULATIONS

    npu = EMULATIONS["npu"]
    results, _ = _scaffold(
        NPU_CASES,
        [c.api for c in NPU_CASES],
        tmp_path_factory.mktemp("inherited-npu"),
        npu.module,
        npu.device,
        npu.environ(),
        "torch_npu",
    )
    _check_families(NPU_CASES, results)
    for case in NPU_CASES:
        assert 'DEVICE = torch.device("npu:0")' in open(results[case.api].path).read(), case.api
    _passes_and_fails_once_broken(NPU_CASES, results, tmp_path, npu.environ())
