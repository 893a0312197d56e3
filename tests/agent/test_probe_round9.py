"""The probe's ninth-round rules, on real torch classes.

* a member a base class leaves to its subclasses (``Distribution.stddev`` needs the variance a subclass
  defines) is measured on a concrete subclass that inherits the member as it is, so a stand-in of the
  member is still reached;
* a pruning method is measured as applied to a module (the forward pre-hook a pruning call leaves), and
  a parameter named like a variable its setup made (``remove(module)``) is given that variable first.
"""

from __future__ import annotations

import inspect

import pytest

torch = pytest.importorskip("torch")

from torchparity.agent import facts_probe as fp  # noqa: E402
from torchparity.agent.objects import walk  # noqa: E402
from torchparity.agent.resolve import resolve  # noqa: E402


def _probe(name: str) -> tuple[list[fp.Scenario], list[fp.Scenario]]:
    res = resolve(name)
    hit = walk(res["path"])
    owner = hit.parent if isinstance(hit.parent, type) else None
    return fp.Engine(torch, res, hit.obj, owner, "cpu").scenarios()


def test_a_base_class_member_is_measured_on_a_subclass_that_inherits_it() -> None:
    base = torch.distributions.Distribution
    valid, _ = _probe("torch.distributions.distribution.Distribution.stddev")
    assert valid
    sc = valid[0]
    made = sc.setup[0].split(" = ", 1)[1]
    cls = eval(made.split("(", 1)[0], {"torch": torch})
    assert cls is not base and issubclass(cls, base)
    assert inspect.getattr_static(cls, "stddev") is inspect.getattr_static(base, "stddev")
    assert sc.call == sc.receiver + ".stddev"


def test_no_subclass_that_overrides_the_member_stands_for_it() -> None:
    # every subclass defines its own variance: none would reach Distribution.variance
    valid, _ = _probe("torch.distributions.distribution.Distribution.variance")
    assert valid == []


@pytest.mark.parametrize("name", [
    "torch.nn.utils.prune.RandomUnstructured.remove",
    "torch.nn.utils.prune.RandomStructured.apply_mask",
    "torch.nn.utils.prune.PruningContainer.remove",
])
def test_a_pruning_method_acts_on_the_module_it_was_applied_to(name: str) -> None:
    valid, _ = _probe(name)
    assert valid, name
    sc = valid[0]
    assert any(line.startswith("torch.nn.utils.prune.") for line in sc.setup), sc.setup
    assert sc.call.endswith("(module)"), sc.call


def test_a_mask_is_computed_by_the_container_of_two_prunings() -> None:
    valid, _ = _probe("torch.nn.utils.prune.PruningContainer.compute_mask")
    assert valid
    setup = "\n".join(valid[0].setup)
    assert "l1_unstructured" in setup and "random_unstructured" in setup
    ns: dict[str, object] = {"torch": torch, "DEVICE": torch.device("cpu")}
    exec(setup, ns)
    assert type(ns["method"]).__name__ == "PruningContainer"


@pytest.mark.parametrize(("name", "check"), [
    ("torch.distributed.rpc.remote", ["eq", "result.to_here()", "0"]),  # read before the agent shuts down
    ("torch.distributed.rpc.rpc_async", ["eq", "result.wait()", "0"]),
])
def test_an_rpc_runs_on_a_one_worker_agent_and_its_result_is_awaited(name: str, check: list[str]) -> None:
    res = resolve(name)
    out = fp.probe_facts(torch, res, walk(res["path"]).obj, None, "cpu")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["prelude"] == list(fp.RPC_AGENT), sc["prelude"]
    assert "int)" in sc["call"], sc["call"]  # a function that pickles and is no torch builtin
    assert check in sc["checks"], sc["checks"]
    assert not torch.distributed.rpc.api._is_current_rpc_agent_set()


def test_a_future_is_observed_by_what_it_completes_with() -> None:
    from torchparity.agent.observe import observe

    fut = torch.futures.Future()
    fut.set_result(torch.tensor([1.0, 2.0]))
    assert observe(torch, fut, "result")[1] == ["tensor", "result.wait()",
                                                "torch.tensor([1.0, 2.0], dtype=torch.float32)"]
