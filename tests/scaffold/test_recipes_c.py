"""The recipe tables of the autograd, config, lazy, doctest, recorded, context, optim,
package, generator, kinds and opinfo families: each entry is read by its family's code and shows in
what the family writes (hand-made records and facts, no torch)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold import candidates
from torchparity.scaffold import plan as plans
from torchparity.scaffold.autograd import autograd_plan
from torchparity.scaffold.configs import config_plan
from torchparity.scaffold.context import context_plan
from torchparity.scaffold.doctest import on_device
from torchparity.scaffold.families import autograd as autograd_family
from torchparity.scaffold.families import generator as generator_family
from torchparity.scaffold.lazy import lazy_plan, lazy_role
from torchparity.scaffold.operators import opinfo_plan
from torchparity.scaffold.optim import optim_plan
from torchparity.scaffold.package import package_plan
from torchparity.scaffold.plan import CannotDecide
from torchparity.scaffold.recipes import autograd as autograd_recipes
from torchparity.scaffold.recipes import config as config_recipes
from torchparity.scaffold.recipes import context as context_recipes
from torchparity.scaffold.recipes import doctest as doctest_recipes
from torchparity.scaffold.recipes import kinds as kinds_recipes
from torchparity.scaffold.recipes import lazy as lazy_recipes
from torchparity.scaffold.recipes import opinfo as opinfo_recipes
from torchparity.scaffold.recipes import optim as optim_recipes
from torchparity.scaffold.recipes import package as package_recipes
from torchparity.scaffold.recipes import recorded as recorded_recipes
from torchparity.scaffold.recipes import runtime as runtime_recipes
from torchparity.scaffold.recorded import recorded_kind
from torchparity.scaffold.snippets import snippet, variants


def _body(plan: plans.TestPlan) -> str:
    return "".join(m.source for m in plan.methods)


def _squeezed(text: str) -> str:
    """``text`` without its white space and the brackets a wrapped line adds."""
    return "".join(c for c in text if not c.isspace() and c not in "()")


# -- autograd --------------------------------------------------------------------------------------
@pytest.mark.parametrize("leaf", variants("autograd"))
def test_each_autograd_call_gets_its_test_where_it_is_spelled(leaf: str) -> None:
    if leaf in autograd_recipes.ENGINE_CALLS:
        engine = f"torch.autograd.Variable.{autograd_recipes.ENGINE_ATTRIBUTE}.{leaf}"
        res = resolution(f"torch._C._EngineBase.{leaf}", "method", aliases=(engine,))
    else:
        res = resolution(f"{autograd_recipes.AUTOGRAD_NAMESPACE}{leaf}", "function")
    plan = autograd_plan(api_info(res), {}, "DEVICE")
    scenario = snippet("autograd", leaf)
    assert scenario is not None
    assert plan.summary.startswith(scenario.what + ", on the device")
    assert autograd_family.applies(api_info(resolution(f"torch.autograd.{leaf}", "function")), "")
    with pytest.raises(CannotDecide):  # spelled elsewhere: no test
        autograd_plan(api_info(resolution(f"torch.other.{leaf}", "function")), {}, "DEVICE")


# -- config ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("leaf", sorted(config_recipes.CONFIG_METHODS))
def test_each_config_method_gets_its_lines(leaf: str) -> None:
    module = "torch._inductor." + config_recipes.CONFIG_MODULE_SUFFIX
    plan = config_plan(api_info(resolution(f"{module}.{leaf}", "function")), {}, "DEVICE")
    method = config_recipes.CONFIG_METHODS[leaf]
    assert plan.tests == [f"test_{leaf}_{method['test']}"]
    body = _body(plan)
    names = {"S": f"{module}.{leaf}", "C": module}
    for line in (
        method["entries"],
        *config_recipes.PICK,
        *config_recipes.CONFIG_TESTS[method["test"]],
    ):
        assert _squeezed(line.format(**names)) in _squeezed(body), line
    assert plan.summary == method["what"].format(**names) + "."


# -- lazy ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(lazy_recipes.LAZY_ROLES))
def test_each_lazy_name_takes_its_role(name: str) -> None:
    info = api_info(resolution(name, "class"))
    role = lazy_recipes.LAZY_ROLES[name]
    assert lazy_role(info) == role
    assert lazy_plan(info, {}, "DEVICE").stem == "uninitialized_" + role.replace(".", "_")


# -- doctest ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("factory", doctest_recipes.FACTORIES)
def test_each_factory_of_an_example_gets_the_device(factory: str) -> None:
    namespace = doctest_recipes.FACTORY_NAMESPACE
    keyword = doctest_recipes.DEVICE_KEYWORD
    assert (
        on_device(f"x = {namespace}.{factory}()\n")
        == f"x = {namespace}.{factory}({keyword}=device)\n"
    )
    assert (
        on_device(f"x = {namespace}.{factory}(2)\n")
        == f"x = {namespace}.{factory}(2, {keyword}=device)\n"
    )
    kept = f"x = {namespace}.{factory}(2, {keyword}='cpu')\n"
    assert on_device(kept) == kept


@pytest.mark.parametrize("namespace", doctest_recipes.MODULE_NAMESPACES)
def test_a_module_an_example_builds_goes_to_the_device_and_a_parameter_does_not(
    namespace: str,
) -> None:
    assert (
        on_device(f"m = {namespace}.Linear(5, 3)\n") == f"m = {namespace}.Linear(5, 3).to(device)\n"
    )
    for cls in doctest_recipes.NOT_MODULES:
        kept = f"p = {namespace}.{cls}(w)\n"
        assert on_device(kept) == kept


# -- recorded -------------------------------------------------------------------------
@pytest.mark.parametrize("namespace", recorded_recipes.BUILTIN_MODULES)
def test_each_recorded_builtin_module_holds_aten_operators(namespace: str) -> None:
    assert recorded_kind(api_info(resolution(f"{namespace}gelu", "builtin")))
    assert not recorded_kind(api_info(resolution(f"{namespace}gelu", "class")))


def test_an_operator_overload_by_its_ops_name_is_recorded() -> None:
    assert recorded_kind(api_info(resolution("torch.ops.aten.add.Tensor", "builtin")))
    assert not recorded_kind(api_info(resolution("torch.ops.aten", "builtin")))


# -- context ---------------------------------------------------------------------------------------
CLASS = "torch.autograd.grad_mode.set_grad_enabled"


def _context_facts(member: str | None) -> dict[str, Any]:
    runs = [
        {
            "args": [m],
            "before": {"grad_mode": b},
            "after_construct": {"grad_mode": b},
            "inside": {"grad_mode": m},
            "after_exit": {"grad_mode": b},
        }
        for m in (False, True)
        for b in (False, True)
    ]
    return {
        "python_version": "3.8",
        "context": {
            "states": [{"name": "grad_mode", "available": True, "values": [False, True]}],
            "member": member,
            "runs": runs,
            "decorator_runs": [],
            "decorator": False,
            "params": ["mode"],
            "mode_param": "mode",
            "mode_attrs": ["mode"],
            "problem": "",
        },
    }


#: what each use of a member writes in the test
USE_LINES = {
    "construct": f"self.assertIsInstance(ctx, {CLASS})",
    "clone": "cloned = ctx.clone()",
    "explicit": "ctx.__exit__(None, None, None)",
}


@pytest.mark.parametrize("member", list(context_recipes.CONTEXT_MEMBERS), ids=repr)
def test_each_context_member_gets_the_test_of_its_use(member: str | None) -> None:
    recipe = context_recipes.CONTEXT_MEMBERS[member]
    if member is None:
        res = resolution(CLASS, "context-manager")
    else:
        res = resolution(f"{CLASS}.{member}", "method", owner=CLASS, owner_kind="context-manager")
    plan = context_plan(api_info(res), _context_facts(member), "DEVICE")
    body = _body(plan)
    assert USE_LINES[recipe["use"]] in body
    assert all(line not in body for use, line in USE_LINES.items() if use != recipe["use"])
    assert plan.summary.startswith(recipe["what"] + ", ")
    assert dict(plan.coverage)["正常传参场景"].startswith(recipe["normal"] + "构造、进入、退出时")


def test_a_context_member_without_a_recipe_gets_none() -> None:
    res = resolution(f"{CLASS}.foo", "method", owner=CLASS, owner_kind="context-manager")
    with pytest.raises(CannotDecide, match="has no template"):
        context_plan(api_info(res), _context_facts("foo"), "DEVICE")


# -- optim -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("leaf", sorted(optim_recipes.OPTIMIZER_MEMBERS))
def test_each_optimizer_member_gets_its_lines(leaf: str) -> None:
    owner = "torch.optim.Adam"
    res = resolution(f"{owner}.{leaf}", "method", owner=owner)
    facts = {"optim": {"kind": "optimizer", "ctor": ", lr=0.1"}}
    body = _body(optim_plan(api_info(res), facts, "DEVICE"))
    for line in optim_recipes.OPTIMIZER_MEMBERS[leaf]:
        assert "        " + line.format(owner=owner, device="DEVICE") + "\n" in body, line
    assert ("add_param_group" in body) == bool(optim_recipes.OPTIMIZER_MEMBERS[leaf])


@pytest.mark.parametrize("leaf", optim_recipes.SCHEDULER_MEMBERS)
def test_each_scheduler_member_gets_a_test(leaf: str) -> None:
    owner = "torch.optim.lr_scheduler.StepLR"
    res = resolution(f"{owner}.{leaf}", "method", owner=owner)
    facts = {"optim": {"kind": "scheduler", "lrs": "[1.0, 0.1, 0.01]", "last_lr": "[0.01]"}}
    assert optim_plan(api_info(res), facts, "DEVICE").family == "optim"


def test_an_optimizer_member_without_a_recipe_gets_none() -> None:
    res = resolution("torch.optim.Adam.foo", "method", owner="torch.optim.Adam")
    with pytest.raises(CannotDecide, match="no optimizer template"):
        optim_plan(api_info(res), {"optim": {"kind": "optimizer"}}, "DEVICE")


# -- package ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cls", "leaf"),
    [
        (cls, leaf)
        for cls, side in package_recipes.PACKAGE_SIDES.items()
        for leaf in package_recipes.PACKAGE_MEMBERS[side]
    ],
)
def test_each_package_member_gets_its_lines(cls: str, leaf: str) -> None:
    owner = f"torch.package.{cls}"
    res = resolution(f"{owner}.{leaf}", "method", owner=owner)
    body = _body(package_plan(api_info(res), {}, "DEVICE"))
    lines = package_recipes.PACKAGE_MEMBERS[package_recipes.PACKAGE_SIDES[cls]][leaf]
    for line in lines:
        assert "        " + line.format(C=owner) + "\n" in body, line
    assert ("reread" in body) == bool(lines)


def test_a_package_class_gets_its_side() -> None:
    for cls in package_recipes.PACKAGE_SIDES:
        plan = package_plan(api_info(resolution(f"torch.package.{cls}", "class")), {}, "DEVICE")
        assert f"torch.package.{cls}(buffer)" in _body(plan)


# -- generator, kinds, opinfo ----------------------------------------------------------------------
@pytest.mark.parametrize("cls", runtime_recipes.GENERATOR_CLASSES)
def test_the_generator_class_and_its_members_are_the_generator_family_s(cls: str) -> None:
    assert generator_family.applies(api_info(resolution(cls, "class")), "")
    member = resolution(f"{cls}.seed", "method", owner=cls)
    assert generator_family.applies(api_info(member), "")
    assert not generator_family.applies(api_info(resolution("torch.Random.seed", "method")), "")


@pytest.mark.parametrize("cls", kinds_recipes.TENSOR_CLASSES)
def test_a_tensor_property_is_tried_by_kinds(cls: str) -> None:
    assert "kinds" in candidates(api_info(resolution(f"{cls}.real", "property", owner=cls)), "")
    other = resolution("torch.Size.real", "property", owner="torch.Size")
    assert "kinds" not in candidates(api_info(other), "")


def _opinfo_facts() -> dict[str, Any]:
    return {
        "opinfo": {
            "found": True,
            "name": "add",
            "variant_test_name": "",
            "call": "method",
            "reference": "float64",
            "dtypes": ["float32"],
            "excluded": [],
            "tolerances": {},
            "error_inputs": {"count": 0},
        },
    }


def test_only_a_member_of_the_method_call_owner_keeps_the_opinfo_s_method_call() -> None:
    owner = opinfo_recipes.METHOD_CALL_OWNER
    res = resolution(f"{owner}.add", "method", owner=owner)
    assert f"{owner}.add(dev.input" in _body(opinfo_plan(api_info(res), _opinfo_facts(), "DEVICE"))
    res = resolution("torch.add", "builtin")
    assert "torch.add(dev.input" in _body(opinfo_plan(api_info(res), _opinfo_facts(), "DEVICE"))
