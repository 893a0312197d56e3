"""``scaffold/families.py`` without an interpreter: a candidate family is kept only when it passes and a
stand-in breaks it, and ``build_plan`` falls through to the next family otherwise.
"""

from __future__ import annotations

from tests.scaffold.scaffold_fixtures import _scenario, api_info, resolution
from torchparity.scaffold import build_plan
from torchparity.scaffold.families import NOT_CAUGHT, checked_plan
from torchparity.scaffold.nn import nn_plan


# -- choosing among checked candidates ---------------------------------------------------------------
def _plan():
    facts = {
        "classes": {
            "api": ["torch.nn.modules.container.ModuleList", "torch.nn.modules.module.Module"]
        },
        "members": ["append", "extend", "insert", "pop"],
    }
    return nn_plan(api_info(resolution("torch.nn.ModuleList", "class")), facts, "DEVICE")


def test_a_candidate_is_kept_only_when_it_passes_and_a_stand_in_breaks_it():
    plan = _plan()
    (test,) = plan.tests
    passed = {"clean": {"outcomes": {test: {"status": "pass"}}}}
    caught = dict(
        passed, broken={"standin": {"replaced": ["x"]}, "outcomes": {test: {"status": "fail"}}}
    )
    uncaught = dict(
        passed, broken={"standin": {"replaced": ["x"]}, "outcomes": {test: {"status": "pass"}}}
    )
    assert checked_plan(plan, caught) is plan
    assert checked_plan(plan, uncaught) == NOT_CAUGHT
    assert checked_plan(plan, uncaught, require_catch=False) is plan
    failed = {
        "clean": {"outcomes": {test: {"status": "fail", "message": "AssertionError: 1 != 2"}}}
    }
    assert "did not pass on the CPU (" in checked_plan(plan, failed)
    # a stand-in that could not be installed decides nothing
    assert (
        checked_plan(plan, dict(passed, broken={"standin": {"replaced": []}, "outcomes": {}}))
        is plan
    )


def test_build_plan_falls_through_to_the_next_family_and_never_keeps_an_uncaught_one():
    info = api_info(resolution("torch.nn.ModuleList", "class"))
    facts = {
        "classes": {
            "api": ["torch.nn.modules.container.ModuleList", "torch.nn.modules.module.Module"]
        },
        "members": ["append"],
        "probe": {"valid": [_scenario(call="_API_()", checks=[["eq", "len(result)", "0"]])]},
    }
    name = _plan().tests[0]
    ok = {"outcomes": {name: {"status": "pass"}, "test_ModuleList": {"status": "pass"}}}
    not_caught = {"standin": {"replaced": ["torch.nn.ModuleList"]}, "outcomes": ok["outcomes"]}
    facts["checked"] = {
        "module": {"clean": ok, "broken": not_caught},
        "measured": {"clean": ok, "broken": {"standin": {"replaced": ["x"]}, "outcomes": {}}},
    }
    assert build_plan(info, facts, "DEVICE").family == "measured"
    facts["checked"]["measured"]["broken"] = not_caught
    plan = build_plan(info, facts, "DEVICE")
    assert (
        plan.family == "fill-in" and NOT_CAUGHT in plan.fill_in[0]
    )  # the reason is in the fill-in
    facts["checked"] = {
        k: {"clean": {"outcomes": {}, "error": "the file does not import"}}
        for k in ("module", "measured")
    }
    assert build_plan(info, facts, "DEVICE").family == "fill-in"
