"""Paired functions (helper ``pairs``), switches and checkers that got the fill-in.

* ``switch``: a private setter read by its public getter (``_set_grad_enabled`` and
  ``is_grad_enabled``), a prefix before the verb (``_jit_set_X``), a dtype mode, a tensor state set
  back after a draw (``set_rng_state``, ``default_generator.set_state``);
* ``pair``: ``enable_X``/``disable_X`` read back through a reader found by name or by the dispatch
  key they move (functionalization), a class's ``is_enabled`` with its ``enable``/``disable``, and
  ``enable_X(mod)``/``disable_X(mod)`` on an object of the function's module (``FakeQuantize``);
* ``pair`` of a nesting: ``increment``/``decrement``, ``_enter_X``/``_exit_X``, ``push``/``pop``: the
  readers inside and after, the depths returned one level apart;
* ``checker``: a predicate's True and False cases and a validator's accepted and refused cases,
  measured on candidate arguments.

Each is scaffolded for the CPU, passes there, and fails under a targeted break of its API (a setter
that ignores its value, a reader answering one value, a check answering True or accepting everything).
"""

from __future__ import annotations

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow

AO = "import torch.ao.quantization as q\nimport torch.ao.quantization.fake_quantize as fq\n"
SWITCHES = (
    Case("torch._C._set_grad_enabled", "switch", "torch._C._set_grad_enabled = lambda mode: None"),
    Case(
        "torch._C.set_autocast_cpu_dtype",
        "switch",  # the dtype ignored
        "torch.set_autocast_cpu_dtype = torch._C.set_autocast_cpu_dtype = lambda dtype: None",
    ),
    Case(
        "torch.set_rng_state",
        "switch",  # the state not set
        "torch.set_rng_state = torch.random.set_rng_state = lambda state: None",
    ),
    # a prefix before the verb (_jit_texpr_fuser_enabled): the jitgraph family, tried first for _jit_* functions,
    # now writes its test; the switch family is the fallback and the break must still be caught
    Case(
        "torch._C._jit_set_texpr_fuser_enabled",
        "jitgraph",
        "torch._C._jit_set_texpr_fuser_enabled = lambda enabled: None",
    ),
    Case(
        "torch.default_generator.set_state",
        "switch",  # a method of an instance: returns itself, sets nothing
        "real = torch.default_generator\n"
        "class Holder:\n"
        "    def get_state(self):\n"
        "        return real.get_state()\n"
        "    def set_state(self, state):\n"
        "        return self\n"
        "torch.default_generator = Holder()",
    ),
)
PAIRS = (
    Case(
        "torch._enable_functionalization",
        "pair",  # the key never included
        "torch._enable_functionalization = lambda reapply_views=False: None",
    ),
    Case(
        "torch._disable_functionalization",
        "pair",  # the key left included
        "torch._disable_functionalization = lambda: None",
    ),
    Case(
        "torch.sparse.check_sparse_tensor_invariants.is_enabled",
        "pair",  # one answer whatever the state
        "torch.sparse.check_sparse_tensor_invariants.is_enabled = staticmethod(lambda: False)",
    ),
    Case(
        "torch.ao.quantization.enable_observer",
        "pair|kinds",  # the observer left off
        AO + "q.enable_observer = fq.enable_observer = lambda mod: None",
    ),
    Case(
        "torch.ao.quantization.disable_observer",
        "pair|kinds",  # turns it on instead
        AO + "q.disable_observer = fq.disable_observer = fq.enable_observer",
    ),
    Case(
        "torch.ao.quantization.enable_fake_quant",
        "pair|kinds",  # the observer enabled instead
        AO + "q.enable_fake_quant = fq.enable_fake_quant = fq.enable_observer",
    ),
)
NESTING = (
    Case(
        "torch._C.autocast_increment_nesting",
        "pair",  # no deeper
        "torch.autocast_increment_nesting = torch._C.autocast_increment_nesting = lambda: 0",
    ),
    Case(
        "torch._C._functorch._vmap_decrement_nesting",
        "pair",  # pops nothing, answers the level below
        "torch._C._functorch._vmap_decrement_nesting = lambda: torch._C._functorch.maybe_current_level() - 1",
    ),
    Case(
        "torch.autograd.grad_mode._exit_inference_mode",
        "pair|measured",  # the mode left on
        "torch.autograd.grad_mode._exit_inference_mode = lambda mode: None",
    ),
    Case(
        "torch.autograd.graph.increment_version",
        "pair",  # counts by two
        "import torch.autograd.graph as g\nincrement = g.increment_version\n"
        "g.increment_version = lambda t: (increment(t), increment(t))[0]",
    ),
)
CHECKERS = (
    Case(
        "torch.Tensor.is_coalesced",
        "checker|kinds",
        "torch.Tensor.is_coalesced = lambda self: True",
    ),
    Case(
        "torch.serialization._is_zipfile",
        "checker",  # the zip magic not read
        "torch.serialization._is_zipfile = lambda f: False",
    ),
    Case(
        "torch._functorch.vmap._check_randomness_arg",
        "checker",  # everything accepted
        "import torch._functorch.vmap as v\nv._check_randomness_arg = lambda randomness: None",
    ),
    Case(
        "torch._check",
        "checker",  # a bare verb: nothing refused
        "torch._check = lambda cond, message=None: None",
    ),
    Case(
        "torch._assert",
        "checker",  # given its message too: nothing refused
        "torch._assert = lambda condition, message: None",
    ),
)
CASES = SWITCHES + PAIRS + NESTING + CHECKERS


def test_each_gets_a_real_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("pairs"))
    # a case may name the families that can win it since the families were merged ("pair|kinds":
    # the kinds family, tried before measured, also holds a fake-quantize module's switch); each is real
    wrong = [
        (c.api, results[c.api].family, results[c.api].fill_in[:1])
        for c in CASES
        if results[c.api].family not in c.family.split("|")
    ]
    assert not wrong, "\n".join(map(str, wrong))
    for case in CASES:
        assert not results[case.api].notes, (
            case.api,
            results[case.api].notes,
        )  # every template test passes
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_the_agent_measures_pairs_and_checkers_and_restores_the_state():
    torch = pytest.importorskip("torch")
    from torchparity.agent.facts.checker import checker_facts
    from torchparity.agent.facts.dispatch_keys import dispatch_tls
    from torchparity.agent.facts.pairs import pair_facts

    tls = dispatch_tls(torch)
    facts = pair_facts(
        torch, torch._enable_functionalization, None, {"path": "torch._enable_functionalization"}
    )
    assert facts["kind"] == "toggle" and facts["enable"] == "_API_"
    assert [
        "torch._C._dispatch_tls_is_dispatch_key_included(torch._C.DispatchKey.Functionalize)",
        "True",
        "False",
    ] in facts["readers"]
    assert dispatch_tls(torch) == tls  # the state found is the state left
    facts = pair_facts(torch, torch.is_grad_enabled, None, {"path": "torch.is_grad_enabled"})
    assert facts["kind"] == "getter" and facts["setter"].endswith("_set_grad_enabled")
    assert facts["switch"]["accepted"] == [True, False] and torch.is_grad_enabled()
    assert not pair_facts(torch, torch.cos, None, {"path": "torch.cos"})["found"]
    coalesced = checker_facts(torch, torch.Tensor.is_coalesced, torch.Tensor, "cpu")
    assert (
        coalesced["kind"] == "predicate"
        and len(coalesced["true"]) == 1
        and len(coalesced["false"]) == 1
    )
    assert all(exc == "RuntimeError" for _, exc in coalesced["refused"])
    signed = checker_facts(
        torch, torch.is_floating_point, None, "cpu"
    )  # a word: TypeError, not a refusal
    assert signed["kind"] == "predicate" and not signed["refused"]
