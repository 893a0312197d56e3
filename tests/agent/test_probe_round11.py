"""The probe's eleventh-round rules, on real torch classes.

* torch.monitor's Stat and Event have recipes (a stat that has seen two values; an event with a fixed
  time), written with ``datetime``, which the probe's namespace and the measured test both import;
* a name whose module is hidden by a function of the same name resolves through the module;
* a ``process_group`` parameter is given the probe's world group, ``primals``/``tangents`` a tuple of
  one tensor (a ``device_type`` is not given the device's type: what a call answers for the CPU's type,
  an autocast dtype, is not what it answers for another device's);
* a docstring's ``as_subclass(cls)`` keeps ``cls`` as an argument (only an inspected signature names a receiver);
* an enum class is probed through its members (in order, by name, by value); a str enum's member is
  held as its text, any enum member by its class and name; a small storage by its device and bytes;
* a call that an error asks for first (``consolidate_state_dict(to=0)``) is made first;
* a parameter named ``parameters`` is given parameters holding gradients when plain tensors find no call;
* a Node parameter is another node of the receiver's traced graph, whose node names are observed in order;
* FSDP has a recipe (a one-process group, the module on the device named to FSDP); a static method of
  a module class is given an instance for its model, an optimizer that stepped, and its siblings' results.
"""

from __future__ import annotations

import pytest

from tests.agent.test_probe_round10 import _facts  # noqa: E402
from tests.lazy import torch  # noqa: E402  (imported on first use: fast tests here need none)
from torchparity.agent import facts_probe as fp  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("name, check", [
    ("torch.monitor.Stat.name", ["eq", "result", "'probe.stat'"]),
    ("torch.monitor.Stat.count", ["eq", "result", "2"]),
    ("torch.monitor.Event.data", ["eq", "result['step']", "3"]),
])
def test_monitor_objects_have_recipes(name: str, check: list) -> None:
    out = _facts(name)
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert "datetime." in "\n".join(sc["setup"])
    assert check in sc["checks"], sc["checks"]


@pytest.mark.slow
def test_a_process_group_parameter_is_given_the_world_group() -> None:
    """``DeviceMesh.from_group(group, device_type)``: the probe's one-process group."""
    out = _facts("torch.distributed.device_mesh.DeviceMesh.from_group")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["setup"] == ["group = torch.distributed.group.WORLD"]
    assert sc["call"].startswith("_OWNER_.from_group(group, ")
    assert ["tensor", "result.mesh", "torch.tensor([0], dtype=torch.int32)"] in sc["checks"]
    assert any("init_process_group" in line for line in sc["prelude"])


@pytest.mark.slow
def test_primals_and_tangents_are_tuples() -> None:
    out = _facts("torch.func.jvp")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert "primals = (torch.tensor([1.0, -2.0, 3.0], device=DEVICE),)" in sc["setup"]
    assert ["tensor", "result[0]", "torch.tensor([1.0, 0.0, 3.0], dtype=torch.float32)"] in sc["checks"]


@pytest.mark.slow
def test_a_docstring_cls_is_an_argument() -> None:
    out = _facts("torch.Tensor.as_subclass")
    assert out["valid"], out["problem"]
    assert out["valid"][0]["call"].startswith("x.as_subclass(")


@pytest.mark.slow
@pytest.mark.parametrize("name, call, check", [
    ("torch.distributed.elastic.events.api.EventSource", "list(_API_)", ["eq", "result", "['AGENT', 'WORKER']"]),
    ("torch.distributed.elastic.events.api.EventSource", "_API_('AGENT')", ["eq", "result.name", "'AGENT'"]),
    ("torch.distributed.rpc.BackendType", "_API_['TENSORPIPE']", ["eq", "result.name", "'TENSORPIPE'"]),
])
def test_an_enum_is_probed_through_its_members(name: str, call: str, check: list) -> None:
    out = _facts(name)
    calls = {sc["call"]: sc["checks"] for sc in out["valid"]}
    assert call in calls, list(calls)
    assert check in calls[call]


@pytest.mark.slow
def test_a_small_storage_is_observed_by_its_bytes() -> None:
    out = _facts("torch.UntypedStorage.byteswap")
    assert out["valid"], out["problem"]
    checks = [c for sc in out["valid"] for c in sc["checks"]]
    assert ["eq", "storage.cpu().tolist()", "[4, 3, 2, 1, 8, 7, 6, 5]"] in checks


@pytest.mark.slow
def test_the_call_an_error_asks_for_is_made_first() -> None:
    out = _facts("torch.distributed.optim.ZeroRedundancyOptimizer.state_dict")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["setup"][-1].endswith(".consolidate_state_dict(to=0)")
    assert ["eq", "list(result)", "['state', 'param_groups']"] in sc["checks"]


@pytest.mark.slow
def test_fsdp_has_a_recipe() -> None:
    out = _facts("torch.distributed.fsdp.FullyShardedDataParallel.clip_grad_norm_")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["call"] == "fsdp.clip_grad_norm_(1)"
    assert sc["checks"] == [["tensor", "result", "torch.tensor(2.8284270763397217, dtype=torch.float32)"]]


@pytest.mark.slow
def test_a_scheduler_made_of_others_is_built_from_two() -> None:
    from torchparity.agent.facts_domain import scheduler_facts

    chained = scheduler_facts(torch, torch.optim.lr_scheduler.ChainedScheduler)
    assert chained["problem"] == "" and chained["args"].startswith("[torch.optim.lr_scheduler.StepLR(optimizer,")
    assert chained["lrs"] == "[0.25, 0.25, 0.125]" and chained["last_epoch"] is None  # it keeps no epoch
    sequential = scheduler_facts(torch, torch.optim.lr_scheduler.SequentialLR)
    assert sequential["args"].startswith("optimizer, [") and sequential["last_epoch"] == 3
    step = scheduler_facts(torch, torch.optim.lr_scheduler.StepLR)
    assert step["args"] is None and step["kwargs"] == "step_size=1, gamma=0.5"


@pytest.mark.slow
def test_a_str_enum_member_is_spelled_as_its_text() -> None:
    import importlib

    from torchparity.agent.facts_literal import literal
    from torchparity.agent.observe import observe

    source = importlib.import_module("torch.distributed.elastic.events.api").EventSource.AGENT
    importlib.import_module("torch.distributed.rpc")
    assert literal(source) == "'AGENT'"
    assert observe(torch, torch.distributed.rpc.BackendType.TENSORPIPE, "r") == [
        ["type", "r", "torch.distributed.rpc.backend_registry.BackendType"], ["eq", "r.name", "'TENSORPIPE'"]]


@pytest.mark.slow
@pytest.mark.parametrize("name, line, check", [
    ("torch.distributed.fsdp.FullyShardedDataParallel.optim_state_dict", "optim.step()",
     ["eq", "list(result['state'])", "['weight', 'bias']"]),
    ("torch.distributed.fsdp.FullyShardedDataParallel.shard_full_optim_state_dict",
     "full_optim_state_dict = _OWNER_.full_optim_state_dict(model=model, optim=optim)",
     ["eq", "list(result)", "['state', 'param_groups']"]),
])
def test_a_static_method_of_a_module_class_is_given_an_instance(name: str, line: str, check: list) -> None:
    """``optim_state_dict(model, optim)``: the recipe's FSDP module, an Adam that stepped over it, and a
    parameter named after a sibling static method holds that method's result."""
    out = _facts(name)
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert "model = fsdp" in sc["setup"] and line in sc["setup"]
    assert check in sc["checks"], sc["checks"]


@pytest.mark.parametrize("message, asked", [
    ("Please call `consolidate_state_dict(to=0)` on all ranks beforehand if you meant to save it",
     [("consolidate_state_dict", "to=0")]),
    ("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.", []),
    ("do not call forward() twice; call self.eval() first", [("eval", "")]),
])
def test_only_a_call_asked_for_first_is_noted(message: str, asked: list) -> None:
    engine = fp.Engine(torch, {"path": "x", "canonical": "x"}, None, None, "cpu")
    engine._note_asked_call(message)
    assert engine.asked_calls == asked


@pytest.mark.slow
@pytest.mark.parametrize("name, call, check", [
    # two distributions for a Distribution annotation
    ("torch.distributions.kl.kl_divergence", "_API_(p, q)", None),
    # a container with one entry: clearing it leaves an empty state
    ("torch.nn.ParameterDict.clear", "params.clear()", ["eq", "list(params.state_dict())", "[]"]),
    # a package written first
    ("torch.package.PackageImporter.python_version", "importer.python_version()",
     ["eq", "result", repr(__import__("platform").python_version())]),
    # a backend holding a state; bytes are held by value
    ("torch.distributed.elastic.rendezvous.c10d_rendezvous_backend.C10dRendezvousBackend.get_state",
     "backend.get_state()", ["eq", "result", "(b'probe-state', b'cHJvYmUtc3RhdGU=')"]),
])
def test_more_recipes(name: str, call: str, check: list | None) -> None:
    out = _facts(name)
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["call"].startswith(call), sc["call"]
    assert check is None or check in sc["checks"], sc["checks"]


@pytest.mark.slow
@pytest.mark.parametrize("name, call, names", [
    ("torch.fx.Node.append", "node.append(list(gm.graph.nodes)[0])", "['_0', 'input_1', '_1', 'output']"),
    ("torch.fx.Node.prepend", "node.prepend(list(gm.graph.nodes)[2])", "['input_1', '_1', '_0', 'output']"),
])
def test_a_node_parameter_is_another_node_of_the_traced_graph(name: str, call: str, names: str) -> None:
    """Its effect shows in the order of the graph's node names (two call_module nodes swapped)."""
    out = _facts(name)
    calls = {sc["call"]: sc["checks"] for sc in out["valid"]}
    assert call in calls, list(calls)
    assert ["eq", "[n.name for n in gm.graph.nodes]", names] in calls[call]


@pytest.mark.slow
def test_parameters_are_given_gradients_when_plain_tensors_find_no_call() -> None:
    out = _facts("torch.nn.utils.clip_grad_value_")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["setup"][0].startswith("parameters = [torch.nn.Parameter(")
    assert ["tensor", "parameters[0].grad", "torch.tensor([0.25, -0.5, 0.5], dtype=torch.float32)"] in sc["checks"]
