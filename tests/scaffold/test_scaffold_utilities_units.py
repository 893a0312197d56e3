"""Which APIs the utility family takes, and what its plans assert (no torch needed)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import candidates
from torchparity.scaffold.plan import CannotDecide
from torchparity.scaffold.utilities import utility_kind, utility_plan


def _source(plan) -> str:
    return "".join(m.source for m in plan.methods)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("torch.multiprocessing.Value", "shared"),
        ("torch.amp.autocast_mode._exit_autocast", "autocast"),
        ("torch.compiler.reset", "reset"),
        ("torch._dynamo.decorators.mark_dynamic", "dynamic"),
        ("torch.cond", "cond"),
        ("torch.futures.collect_all", "future"),
        ("torch.fx.experimental.symbolic_shapes.constrain_unify", "symbolic"),
        ("torch._dynamo.mark_static_address", "static"),
        ("torch.from_numpy", "from_numpy"),
    ],
)
def test_each_utility_goes_to_the_family_first(name, kind):
    info = api_info(resolution(name, "function"))
    assert utility_kind(info) == kind
    assert candidates(info)[0] == "utility"


@pytest.mark.parametrize(
    ("name", "kind", "family"),
    [
        ("torch._subclasses.fake_tensor.FakeTensor", "class", "fake"),
        ("torch.dtype", "class", "typeobject"),
        ("torch._functorch.config.get_config_copy", "method", "config"),
        ("torch.library.Library", "class", "library"),
    ],
)
def test_kinds_with_a_family_of_their_own_are_not_utilities(name, kind, family):
    info = api_info(resolution(name, kind))
    assert utility_kind(info) == "" and candidates(info)[0] == family


def test_a_future_member_is_named_through_its_class():
    res = resolution(
        "torch.jit.Future.then", "method", owner="torch.jit.Future", owner_kind="class"
    )
    text = _source(utility_plan(api_info(res), {}, "DEVICE"))
    assert "torch.jit.Future.then(fut, lambda f: f.wait() * 2)" in text
    assert "torch.tensor([2.0, 4.0])" in text  # the chained result, by hand


def test_autocast_entry_is_left_by_its_exit_whichever_is_tested():
    enter = _source(
        utility_plan(api_info(resolution("torch.amp._enter_autocast", "function")), {}, "DEVICE")
    )
    exit_ = _source(
        utility_plan(api_info(resolution("torch.amp._exit_autocast", "function")), {}, "DEVICE")
    )
    for text in (enter, exit_):
        assert "mode = torch.amp._enter_autocast(device_type, dtype, True, None)" in text
        assert "torch.amp._exit_autocast(mode)" in text
        assert "self.assertFalse(after)" in text


def test_what_is_no_utility_is_not_decided():
    info = api_info(resolution("torch.multiprocessing.spawn", "function"))
    assert utility_kind(info) == ""
    with pytest.raises(CannotDecide):
        utility_plan(info, {}, "DEVICE")


def test_a_shape_env_member_is_named_through_its_class_and_imports_sympy():
    owner = "torch.fx.experimental.symbolic_shapes.ShapeEnv"
    res = resolution(f"{owner}.add_backed_var_to_val", "method", owner=owner, owner_kind="class")
    plan = utility_plan(api_info(res), {}, "DEVICE")
    assert f"{owner}.add_backed_var_to_val(env, symbol, 5)" in _source(plan)
    assert "import sympy" in plan.imports
