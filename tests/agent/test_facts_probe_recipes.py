"""The receivers the probe builds for a member, on real torch classes.

* a member a base class leaves to its subclasses (``Distribution.stddev`` needs the variance a subclass
  defines) is measured on a concrete subclass that inherits the member as it is, so a stand-in of the
  member is still reached; no subclass that overrides it stands for it;
* a pruning method is measured as applied to a module (the forward pre-hook a pruning call leaves), and
  a parameter named like a variable its setup made (``remove(module)``) is given that variable first; no
  pruning recipe draws a mask on the device;
* distributions with agreeing parameters, torch.monitor's Stat and Event (written with ``datetime``), a
  QAT module with the qconfig its error asks for, a ParameterDict, a written package and others have
  recipes; an in-place member whose result is double gets a double receiver;
* a static method of a module class is given an instance for its model, an optimizer that stepped, and
  its siblings' results;
* a tensor's receivers include a scalar result of a graph (``backward`` fills its leaf's gradient); a
  fused module's parts are built from their parameter names (``LinearReLU(linear, relu)``), its
  ``forward`` tried before its container methods; a profiler that recorded a product is a receiver; a
  class whose recipes reach an instance another way (``torch.Tensor``'s) is still constructed itself.
"""

from __future__ import annotations

import inspect

import pytest

from tests.agent.probe_fixtures import _calls, _facts, _probe
from tests.lazy import torch  # imported on first use, not at collection
from torchparity.agent.api.objects import walk
from torchparity.agent.api.resolve import resolve
from torchparity.agent.facts import probe as fp


@pytest.mark.slow
def test_an_in_place_member_whose_result_is_double_gets_a_double_receiver() -> None:
    res = resolve("torch.Tensor.float_power_")
    engine = fp.Engine(torch, res, walk(res["path"]).obj, torch.Tensor, "cpu")
    valid, _ = engine.scenarios()
    assert valid
    assert "dtype=torch.float64" in valid[0].setup[0], valid[0].setup
    assert ["same", "result", "x"] in valid[0].checks and any(
        c[0] == "tensor" and c[1] == "x" for c in valid[0].checks
    ), valid[0].checks


@pytest.mark.slow
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


@pytest.mark.slow
def test_no_subclass_that_overrides_the_member_stands_for_it() -> None:
    # every subclass defines its own variance: none would reach Distribution.variance
    valid, _ = _probe("torch.distributions.distribution.Distribution.variance")
    assert valid == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "torch.nn.utils.prune.L1Unstructured.remove",
        "torch.nn.utils.prune.RandomStructured.apply_mask",
        "torch.nn.utils.prune.PruningContainer.remove",
    ],
)
def test_a_pruning_method_acts_on_the_module_it_was_applied_to(name: str) -> None:
    valid, _ = _probe(name)
    assert valid, name
    sc = valid[0]
    assert any(line.startswith("torch.nn.utils.prune.") for line in sc.setup), sc.setup
    assert sc.call.endswith("(module)"), sc.call


@pytest.mark.slow
def test_a_mask_is_computed_by_the_container_of_two_prunings() -> None:
    valid, _ = _probe("torch.nn.utils.prune.PruningContainer.compute_mask")
    assert valid
    setup = "\n".join(valid[0].setup)
    assert "l1_unstructured" in setup and "random_structured" in setup
    ns: dict[str, object] = {"torch": torch, "DEVICE": torch.device("cpu")}
    exec(setup, ns)
    assert type(ns["method"]).__name__ == "PruningContainer"


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "torch.distributions.multivariate_normal.MultivariateNormal.mean",
        "torch.distributions.lowrank_multivariate_normal.LowRankMultivariateNormal.variance",
        "torch.distributions.wishart.Wishart.mode",
        "torch.distributions.independent.Independent.variance",
        "torch.distributions.mixture_same_family.MixtureSameFamily.mean",
    ],
)
def test_distributions_with_agreeing_parameters_are_built_from_recipes(name: str) -> None:
    valid, _ = _probe(name)
    made = [sc for sc in valid if sc.setup]
    assert made, name
    assert made[0].setup[0].startswith("distribution = _OWNER_("), made[0].setup
    assert any(c[0] == "tensor" for c in made[0].checks), made[0].checks


@pytest.mark.slow
def test_a_qat_module_is_built_with_the_qconfig_its_error_asks_for() -> None:
    valid, _ = _probe("torch.ao.nn.intrinsic.qat.ConvBnReLU2d")
    assert valid
    assert "qconfig=torch.ao.quantization.get_default_qat_qconfig(" in valid[0].call, valid[0].call


def test_no_pruning_recipe_draws_a_mask_on_the_device() -> None:
    from torchparity.agent.facts import recipes

    # random_unstructured draws with rand_like on the device: a mask measured here would not hold there
    assert "torch.nn.utils.prune.RandomUnstructured" not in recipes.RECIPES
    for name, recipe in recipes.RECIPES.items():
        if name.startswith("torch.nn.utils.prune."):
            assert not any("random_unstructured" in line for line in recipe), name


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, check",
    [
        ("torch.monitor.Stat.name", ["eq", "result", "'probe.stat'"]),
        ("torch.monitor.Stat.count", ["eq", "result", "2"]),
        ("torch.monitor.Event.data", ["eq", "result['step']", "3"]),
    ],
)
def test_monitor_objects_have_recipes(name: str, check: list) -> None:
    out = _facts(name)
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert "datetime." in "\n".join(sc["setup"])
    assert check in sc["checks"], sc["checks"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, line, check",
    [
        (
            "torch.distributed.fsdp.FullyShardedDataParallel.optim_state_dict",
            "optim.step()",
            ["eq", "list(result['state'])", "['weight', 'bias']"],
        ),
        (
            "torch.distributed.fsdp.FullyShardedDataParallel.shard_full_optim_state_dict",
            "full_optim_state_dict = _OWNER_.full_optim_state_dict(model=model, optim=optim)",
            ["eq", "list(result)", "['state', 'param_groups']"],
        ),
    ],
)
def test_a_static_method_of_a_module_class_is_given_an_instance(
    name: str, line: str, check: list
) -> None:
    """``optim_state_dict(model, optim)``: the recipe's FSDP module, an Adam that stepped over it, and a
    parameter named after a sibling static method holds that method's result."""
    out = _facts(name)
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert "model = fsdp" in sc["setup"] and line in sc["setup"]
    assert check in sc["checks"], sc["checks"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, call, check",
    [
        # two distributions for a Distribution annotation
        ("torch.distributions.kl.kl_divergence", "_API_(p, q)", None),
        # a container with one entry: clearing it leaves an empty state
        (
            "torch.nn.ParameterDict.clear",
            "params.clear()",
            ["eq", "list(params.state_dict())", "[]"],
        ),
        # a package written first
        (
            "torch.package.PackageImporter.python_version",
            "importer.python_version()",
            ["eq", "result", repr(__import__("platform").python_version())],
        ),
        # a backend holding a state; bytes are held by value
        (
            "torch.distributed.elastic.rendezvous.c10d_rendezvous_backend.C10dRendezvousBackend.get_state",
            "backend.get_state()",
            ["eq", "result", "(b'probe-state', b'cHJvYmUtc3RhdGU=')"],
        ),
    ],
)
def test_more_recipes(name: str, call: str, check: list | None) -> None:
    out = _facts(name)
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["call"].startswith(call), sc["call"]
    assert check is None or check in sc["checks"], sc["checks"]


@pytest.mark.slow
def test_backward_is_called_on_a_scalar_result_and_fills_the_leaf_gradient() -> None:
    sc = _calls("torch.Tensor.backward")["x.backward()"]
    assert sc["setup"][-1] == "x = (leaf * leaf).sum()"
    assert ["tensor", "leaf.grad", "torch.tensor([2.0, -4.0, 6.0], dtype=torch.float32)"] in sc[
        "checks"
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, ctor, call, shape",
    [
        (
            "torch.ao.nn.intrinsic.LinearReLU",
            "_API_(torch.nn.Linear(3, 2, device=DEVICE), torch.nn.ReLU())",
            "linear_re_lu.forward(input)",
            "[2]",
        ),
        (
            "torch.ao.nn.intrinsic.ConvBnReLU2d",
            "_API_(torch.nn.Conv2d(2, 2, 1, device=DEVICE), torch.nn.BatchNorm2d(2, device=DEVICE), torch.nn.ReLU())",
            "conv_bn_re_lu2d.forward(input)",
            "[1, 2, 4, 4]",
        ),
    ],
)
def test_a_fused_module_is_built_from_its_parts_and_its_forward_comes_first(
    name: str, ctor: str, call: str, shape: str
) -> None:
    out = _facts(name)
    assert out["valid"], out["problem"]
    calls = [sc["call"] for sc in out["valid"]]
    assert calls[0] == ctor, calls
    assert call in calls, calls
    later = [i for i, c in enumerate(calls) if ".add_module(" in c]
    assert later and calls.index(call) < min(later), calls  # forward before the container's methods
    sc = out["valid"][calls.index(call)]
    assert ["eq", "result.shape", f"torch.Size({shape})"] in sc["checks"]


@pytest.mark.slow
def test_a_profiler_that_recorded_a_product_is_a_receiver() -> None:
    sc = _calls("torch.profiler._KinetoProfile.key_averages")["profiler.key_averages()"]
    assert "profiler.stop()" in sc["setup"]
    assert ["type", "result", "torch.autograd.profiler_util.EventList"] in sc["checks"]


@pytest.mark.slow
def test_a_class_reached_another_way_by_its_recipes_is_still_constructed() -> None:
    calls = _calls("torch.Tensor")
    assert "_API_()" in calls
    assert ["tensor", "result", "torch.tensor([], dtype=torch.float32)"] in calls["_API_()"][
        "checks"
    ]
