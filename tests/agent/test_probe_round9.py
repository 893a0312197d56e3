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

from tests.lazy import torch  # noqa: E402  (imported on first use: fast tests here need none)
from torchparity.agent import facts_probe as fp  # noqa: E402
from torchparity.agent.objects import walk  # noqa: E402
from torchparity.agent.resolve import resolve  # noqa: E402


def _probe(name: str) -> tuple[list[fp.Scenario], list[fp.Scenario]]:
    res = resolve(name)
    hit = walk(res["path"])
    owner = hit.parent if isinstance(hit.parent, type) else None
    return fp.Engine(torch, res, hit.obj, owner, "cpu").scenarios()


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
@pytest.mark.parametrize("name", [
    "torch.nn.utils.prune.L1Unstructured.remove",
    "torch.nn.utils.prune.RandomStructured.apply_mask",
    "torch.nn.utils.prune.PruningContainer.remove",
])
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


@pytest.mark.slow
def test_a_future_is_observed_by_what_it_completes_with() -> None:
    from torchparity.agent.observe import observe

    fut = torch.futures.Future()
    fut.set_result(torch.tensor([1.0, 2.0]))
    assert observe(torch, fut, "result")[1] == ["tensor", "result.wait()",
                                                "torch.tensor([1.0, 2.0], dtype=torch.float32)"]


@pytest.mark.slow
def test_a_linear_algebra_input_is_a_square_matrix_when_an_error_asks_for_one() -> None:
    valid, _ = _probe("torch.slogdet")
    assert valid
    assert any("[[2.0, 1.0], [1.0, 3.0]]" in line for line in valid[0].setup), valid[0].setup


@pytest.mark.slow
def test_a_class_parameter_typed_type_of_x_gets_x_s_concrete_subclasses() -> None:
    res = resolve("torch.distributed.optim.ZeroRedundancyOptimizer")
    engine = fp.Engine(torch, res, walk(res["path"]).obj, None, "cpu")
    values = engine.typed_values("type[torch.optim.optimizer.Optimizer]")
    assert values and all(issubclass(walk(v).obj, torch.optim.Optimizer) for v in values), values
    assert values[0] != "torch.optim.optimizer.Optimizer"  # a concrete subclass first


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "torch.distributions.multivariate_normal.MultivariateNormal.mean",
    "torch.distributions.lowrank_multivariate_normal.LowRankMultivariateNormal.variance",
    "torch.distributions.wishart.Wishart.mode",
    "torch.distributions.independent.Independent.variance",
    "torch.distributions.mixture_same_family.MixtureSameFamily.mean",
])
def test_distributions_with_agreeing_parameters_are_built_from_recipes(name: str) -> None:
    valid, _ = _probe(name)
    made = [sc for sc in valid if sc.setup]
    assert made, name
    assert made[0].setup[0].startswith("distribution = _OWNER_("), made[0].setup
    assert any(c[0] == "tensor" for c in made[0].checks), made[0].checks


@pytest.mark.slow
def test_probabilities_are_given_for_probs_before_any_tensor() -> None:
    valid, _ = _probe("torch.distributions.bernoulli.Bernoulli.variance")
    assert valid
    assert "probs=torch.tensor([0.25, 0.5]" in valid[0].setup[0], valid[0].setup


@pytest.mark.slow
def test_a_drawn_result_is_checked_by_its_shape_and_dtype_not_its_values() -> None:
    valid, _ = _probe("torch.distributions.mixture_same_family.MixtureSameFamily.sample")
    assert valid
    checks = valid[0].checks
    assert ["eq", "result.shape", "torch.Size([])"] in checks, checks
    assert ["eq", "result.dtype", "torch.float32"] in checks, checks
    assert not [c for c in checks if c[0] == "tensor" and c[1] == "result"], checks


@pytest.mark.slow
def test_drawn_tensors_agree_only_where_shape_and_dtype_agree() -> None:
    first = [["tensor", "result", "torch.tensor([1.0, 2.0], dtype=torch.float32)"],
             ["tensor", "other", "torch.tensor([1.0], dtype=torch.float32)"]]
    second = [["tensor", "result", "torch.tensor([3.0, 4.0], dtype=torch.float32)"],
              ["tensor", "other", "torch.tensor([1.0, 2.0], dtype=torch.float32)"]]
    assert fp._drawn_tensors(torch, first, second) == [["eq", "result.shape", "torch.Size([2])"],
                                                        ["eq", "result.dtype", "torch.float32"]]


@pytest.mark.parametrize(("name", "cats"), [
    ("hidden_size", ["int"]), ("in_channels", ["int"]), ("kernel_size", ["size"]), ("qconfig", ["qconfig"]),
    ("nonlinearity", ["nonlinearity"]),
])
def test_layer_widths_are_numbers_and_a_qconfig_is_a_qconfig(name: str, cats: list[str]) -> None:
    from torchparity.agent import probe_values as pv

    assert pv.categories(name, "", None) == cats


@pytest.mark.slow
def test_a_qat_module_is_built_with_the_qconfig_its_error_asks_for() -> None:
    valid, _ = _probe("torch.ao.nn.intrinsic.qat.ConvBnReLU2d")
    assert valid
    assert "qconfig=torch.ao.quantization.get_default_qat_qconfig(" in valid[0].call, valid[0].call


@pytest.mark.slow
def test_a_shape_environment_simplifies_a_symbolic_expression() -> None:
    res = resolve("torch.fx.experimental.symbolic_shapes.ShapeEnv.simplify")
    hit = walk(res["path"])
    valid, _ = fp.Engine(torch, res, hit.obj, hit.parent, "cpu").scenarios()
    assert valid
    assert "sympy" in valid[0].call and "Symbol" in valid[0].call, valid[0].call


@pytest.mark.slow
def test_a_future_not_done_is_not_waited_on() -> None:
    from torchparity.agent.observe import observe

    checks = observe(torch, torch.futures.Future(), "result")
    assert not [c for c in checks if "wait" in c[1]], checks


@pytest.mark.slow
def test_context_checks_are_not_read_as_drawn_tensors() -> None:
    first = [["inside", "eq", "torch.is_grad_enabled()", "False"],
             ["tensor", "result", "torch.tensor([1.0], dtype=torch.float32)"]]
    second = [["inside", "eq", "torch.is_grad_enabled()", "False"],
              ["tensor", "result", "torch.tensor([2.0], dtype=torch.float32)"]]
    assert fp._drawn_tensors(torch, first, second) == [["eq", "result.shape", "torch.Size([1])"],
                                                        ["eq", "result.dtype", "torch.float32"]]


def test_no_pruning_recipe_draws_a_mask_on_the_device() -> None:
    from torchparity.agent import probe_values as pv

    # random_unstructured draws with rand_like on the device: a mask measured here would not hold there
    assert "torch.nn.utils.prune.RandomUnstructured" not in pv.RECIPES
    for name, recipe in pv.RECIPES.items():
        if name.startswith("torch.nn.utils.prune."):
            assert not any("random_unstructured" in line for line in recipe), name
