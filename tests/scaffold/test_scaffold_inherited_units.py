"""Which members the inherited family takes, and what its plans assert (no torch needed)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import candidates
from torchparity.scaffold.inherited import MODULE, inherited_plan
from torchparity.scaffold.plan import CannotDecide

SCRIPT_MRO = ["torch.jit._script.ScriptModule", MODULE, "builtins.object"]
INTERPRETER_MRO = ["torch.fx.interpreter.Interpreter", "builtins.object"]
TRANSFORMER_MRO = ["torch.fx.interpreter.Transformer", *INTERPRETER_MRO]


def _member(owner: str, leaf: str, public: str):
    res = resolution(
        f"{owner}.{leaf}", "method", owner=owner, owner_kind="class", aliases=(f"{public}.{leaf}",)
    )
    return api_info(res)


def _facts(mro: list[str], defined_on: str = MODULE) -> dict:
    return {"classes": {"api": [], "owner": mro}, "defined_on": defined_on}


def _source(plan) -> str:
    return "".join(m.source for m in plan.methods)


def test_a_member_of_a_module_or_fx_class_goes_to_the_family_first():
    info = _member(
        "torch.jit._script.ScriptModule", "register_state_dict_pre_hook", "torch.jit.ScriptModule"
    )
    assert candidates(info)[0] == "inherited"
    assert (
        candidates(api_info(resolution("torch.jit._script.script_method", "function")))[0]
        == "inherited"
    )
    assert "inherited" not in candidates(api_info(resolution("torch.add", "builtin")))
    # a member the module family has a template for stays the module family's
    assert "inherited" not in candidates(_member(MODULE, "state_dict", "torch.nn.Module"))


@pytest.mark.parametrize(
    "leaf",
    [
        "register_full_backward_hook",
        "register_state_dict_post_hook",
        "register_load_state_dict_post_hook",
        "compile",
        "add_module",
    ],
)
def test_a_script_module_member_of_modules_runs_on_a_scripted_module(leaf):
    info = _member("torch.jit._script.ScriptModule", leaf, "torch.jit.ScriptModule")
    plan = inherited_plan(info, _facts(SCRIPT_MRO), "DEVICE")
    text = _source(plan)
    assert plan.family == "inherited"
    assert "net = torch.jit.script(make(DEVICE))" in text
    assert f"torch.jit.ScriptModule.{leaf}(net" in text  # the API named in its call
    if leaf == "compile":
        assert "import torch._dynamo" in plan.imports


def test_a_plain_module_hook_checks_what_the_hook_changes():
    info = _member(MODULE, "register_full_backward_hook", "torch.nn.Module")
    text = _source(inherited_plan(info, _facts([MODULE, "builtins.object"]), "DEVICE"))
    assert "torch.jit.script" not in text
    assert "torch.tensor([[3.0, -0.5]])" in text  # half the input gradient, as the hook returns


def test_what_is_not_modules_own_or_has_no_template_is_not_decided():
    overridden = _member(
        "torch.jit._script.ScriptModule", "register_state_dict_pre_hook", "torch.jit.ScriptModule"
    )
    with pytest.raises(CannotDecide, match="own"):
        inherited_plan(overridden, _facts(SCRIPT_MRO, "torch.jit._script.ScriptModule"), "DEVICE")
    with pytest.raises(CannotDecide):  # a plain module's add_module is the module family's
        inherited_plan(_member(MODULE, "add_module", "torch.nn.Module"), _facts([MODULE]), "DEVICE")
    with pytest.raises(CannotDecide):
        inherited_plan(
            _member(MODULE, "share_memory", "torch.nn.Module"), _facts([MODULE]), "DEVICE"
        )


def test_fx_get_attr_follows_the_class_that_defines_it():
    transformer = _member("torch.fx.interpreter.Transformer", "get_attr", "torch.fx.Transformer")
    text = _source(
        inherited_plan(transformer, _facts(TRANSFORMER_MRO, TRANSFORMER_MRO[0]), "DEVICE")
    )
    assert "torch.fx.Transformer(gm).transform()" in text and "torch.fx.Proxy" in text
    interpreter = _member("torch.fx.interpreter.Interpreter", "get_attr", "torch.fx.Interpreter")
    text = _source(
        inherited_plan(interpreter, _facts(INTERPRETER_MRO, INTERPRETER_MRO[0]), "DEVICE")
    )
    assert "torch.fx.Interpreter.get_attr(interpreter" in text and "transform()" not in text
    tracer = _member("torch.fx._symbolic_trace.Tracer", "get_fresh_qualname", "torch.fx.Tracer")
    text = _source(
        inherited_plan(tracer, _facts(["torch.fx._symbolic_trace.Tracer"], "x"), "DEVICE")
    )
    assert '"_tensor_constant2"' in text
