"""Which APIs the jitgraph family takes, what its plans spell, and what the agent measures for it."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import candidates
from torchparity.scaffold.jitgraph import (
    jitgraph_applies,
    jitgraph_only,
    jitgraph_plan,
    scenario_lines,
)
from torchparity.scaffold.plan import CannotDecide


def _source(plan) -> str:
    return "".join(m.source for m in plan.methods)


@pytest.mark.parametrize("name", ["torch._C._jit_pass_dce", "torch._C._jit_pass_inline"])
def test_a_pass_taking_ir_asks_only_this_family(name):
    info = api_info(resolution(name, "builtin", signature="(arg0: torch::jit::Graph) -> None"))
    assert jitgraph_only(info)
    assert candidates(info) == ["jitgraph", "fill-in"]


def test_a_helper_taking_plain_values_keeps_the_other_families_after_it():
    info = api_info(
        resolution(
            "torch._C._jit_get_operation", "builtin", signature="(qualified_name: str) -> tuple"
        )
    )
    assert jitgraph_applies(info) and not jitgraph_only(info)
    fams = candidates(info)
    assert fams[0] == "jitgraph" and "signature" in fams and fams[-1] == "fill-in"


@pytest.mark.parametrize(
    ("name", "kind", "owner"),
    [
        ("torch._C.Graph", "class", None),
        ("torch._C._te.TensorExprKernel", "class", None),
        ("torch._C.Graph.findNode", "method", "torch._C.Graph"),
    ],
)
def test_ir_classes_are_taken_and_their_members_are_not(name, kind, owner):
    info = api_info(resolution(name, kind, owner=owner, owner_kind="class" if owner else None))
    assert jitgraph_applies(info) is (owner is None)


def test_other_torch_c_names_are_not_taken():
    assert not jitgraph_applies(api_info(resolution("torch._C._get_tracing_state", "builtin")))
    assert not jitgraph_applies(api_info(resolution("torch._C._jit_pass_dce.x", "builtin")))


def test_measured_lines_become_exact_assertions_and_the_api_is_spelled():
    lines = [
        "graph = make()",
        ["=", "API(graph)", "None", ""],
        ["=", "kinds(graph)", "['aten::mul']", "by hand"],
        "! self.assertEqual(out.device.type, DEVICE.type)",
    ]
    body = scenario_lines(lines, [], "torch._C._jit_pass_dce", "DEVICE")
    assert body == [
        "graph = make()",
        "self.assertIs(torch._C._jit_pass_dce(graph), None)",
        "self.assertEqual(kinds(graph), ['aten::mul'])  # by hand",
        "self.assertEqual(out.device.type, DEVICE.type)",
    ]


def test_a_switch_is_put_back_in_a_finally():
    body = scenario_lines(
        ["old = API(True)", ["=", "API(False)", "True", ""]], ["API(old)"], "torch._C.f", "D"
    )
    assert body == [
        "old = torch._C.f(True)",
        "try:",
        "    self.assertIs(torch._C.f(False), True)",
        "finally:",
        "    torch._C.f(old)",
    ]


def test_no_facts_or_nothing_measured_cannot_decide():
    info = api_info(resolution("torch._C._jit_pass_dce", "builtin"))
    with pytest.raises(CannotDecide, match="no scenario"):
        jitgraph_plan(info, {"jitgraph": {"found": False, "problem": "no scenario"}}, "DEVICE")
    with pytest.raises(CannotDecide, match="measured nothing"):
        jitgraph_plan(info, {"jitgraph": {"found": True, "lines": ["x = 1"]}}, "DEVICE")


@pytest.mark.slow
def test_the_agent_measures_a_pass_on_the_cpu_and_the_plan_writes_it():
    torch = pytest.importorskip("torch")
    from torchparity.agent.facts.jitgraph import jitgraph_facts

    res = {"path": "torch._C._jit_pass_dce", "canonical": "torch._C._jit_pass_dce"}
    facts = jitgraph_facts(torch, torch._C._jit_pass_dce, res)
    assert facts["found"], facts
    measured = [line for line in facts["lines"] if isinstance(line, list)]
    kinds = [m[2] for m in measured if m[1] == "[n.kind() for n in graph.nodes()]"]
    assert kinds == [
        "['prim::Constant', 'aten::add', 'aten::mul', 'aten::relu']",
        "['prim::Constant', 'aten::add', 'aten::mul']",
    ]  # the dead relu removed
    assert ["=", "out.cpu().tolist()", "[2.0, 8.0, 18.0]", ""] in measured  # (x + x) * x
    info = api_info(resolution("torch._C._jit_pass_dce", "builtin"))
    text = _source(jitgraph_plan(info, {"jitgraph": facts}, "DEVICE"))
    assert "self.assertIs(torch._C._jit_pass_dce(graph), None)" in text
    assert "device=DEVICE" in text


@pytest.mark.slow
def test_the_agent_puts_a_switch_back():
    torch = pytest.importorskip("torch")
    from torchparity.agent.facts.jitgraph import jitgraph_facts

    before = torch._C._jit_set_profiling_executor(True)
    torch._C._jit_set_profiling_executor(before)
    res = {
        "path": "torch._C._jit_set_profiling_executor",
        "canonical": "torch._C._jit_set_profiling_executor",
    }
    facts = jitgraph_facts(torch, torch._C._jit_set_profiling_executor, res)
    assert facts["found"] and facts["restore"] == ["API(old)"]
    assert torch._C._jit_set_profiling_executor(before) == before  # as it was


@pytest.mark.slow
def test_an_api_without_a_scenario_says_so():
    torch = pytest.importorskip("torch")
    from torchparity.agent.facts.jitgraph import jitgraph_facts

    facts = jitgraph_facts(
        torch, torch._C._jit_run_cpp_tests, {"path": "torch._C._jit_run_cpp_tests"}
    )
    assert not facts["found"] and "no TorchScript IR scenario" in facts["problem"]
