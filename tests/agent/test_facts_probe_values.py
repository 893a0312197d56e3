"""The values the probe gives a parameter, on real messages and real torch APIs.

* a parameter's name and annotation pick its pools (classes, a class of the test's own, code objects,
  bytes only where the annotation is bytes, compiler backends, lists of tensor lists, layer widths, a
  qconfig, index tuples);
* an error message picks the values the next call tries: the allowed values it lists, the kind or
  type it wanted (a code object, a tensor with a ``grad_fn``, a functional tensor, a square matrix),
  the number of arguments it counts;
* an API named for its spatial dims (``lp_pool2d``) gets a batch with that many as its first tensor, and a
  kernel and weight of its dims;
* a class parameter typed ``type[X]`` gets X's concrete subclasses; ``probs`` gets probabilities before
  any tensor; a symbolic expression goes to a shape environment;
* a distribution's ``value`` parameter is given the distribution's own values first (its mean, its
  enumerated support), which lie in its support and batch shape; only a distribution is;
* ``primals``/``tangents`` are tuples of one tensor, ``parameters`` hold gradients when plain tensors find
  no call, a Node parameter is another node of the receiver's traced graph;
* a function an error says must give a single element is given a function of a tensor to a scalar
  (``hvp``); a relaxed distribution's ``temperature`` is one number; ``models`` are two modules of one
  architecture; ``bincount`` is called on small non-negative integers.
"""

from __future__ import annotations

import pytest

from tests.agent.probe_fixtures import _calls, _facts, _probe
from tests.lazy import torch  # imported on first use, not at collection
from torchparity.agent.api.objects import walk
from torchparity.agent.api.resolve import resolve
from torchparity.agent.facts import asked
from torchparity.agent.facts import params as fparams
from torchparity.agent.facts import probe as fp
from torchparity.agent.facts import probe_values as pv


@pytest.mark.parametrize(
    ("message", "name", "choices"),
    [
        (
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'x'",
            "rounding_mode",
            ["None", "'trunc'", "'floor'"],
        ),
        (
            "padding_mode must be one of ['zeros', 'reflect'], but got padding_mode='x'",
            "padding_mode",
            ["'zeros'", "'reflect'"],
        ),
        ('mode should be one of "sum", "mean"', "mode", ["'sum'", "'mean'"]),
        ("expected 2 arguments, got 1", "", []),
    ],
)
def test_the_values_a_message_allows(message: str, name: str, choices: list[str]) -> None:
    assert asked.choices_named(message) == (name, choices)


@pytest.mark.slow
def test_a_listed_value_makes_the_call_work() -> None:
    valid, _ = _probe("torch.ops.aten.div.Scalar_mode")
    assert valid
    calls = " ".join(sc.call for sc in valid)
    assert "rounding_mode=None" in calls or "rounding_mode='trunc'" in calls, calls
    assert any(c[0] == "tensor" for c in valid[0].checks), valid[0].checks


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "shape"),
    [
        ("lp_pool2d", (1, 2, 4, 4)),
        ("conv_transpose3d", (1, 2, 4, 4, 4)),
        ("ReflectionPad1d", (1, 2, 4)),
        ("add", None),
        ("fft2", None),
        ("_upsample_bilinear2d_aa", (1, 2, 4, 4)),
    ],
)
def test_an_api_named_for_its_spatial_dims_gets_a_batch_of_that_many(
    name: str, shape: tuple[int, ...] | None
) -> None:
    src = pv.spatial_tensor(name)
    if shape is None:
        assert src == ""
    else:
        assert tuple(eval(src, {"torch": torch, "DEVICE": torch.device("cpu")}).shape) == shape


@pytest.mark.slow
def test_a_pooling_function_is_called_on_a_4d_input() -> None:
    valid, _ = _probe("torch.nn.functional.lp_pool2d")
    assert valid
    assert any("reshape(1, 2, 4, 4)" in line for line in valid[0].setup), valid[0].setup
    assert any(c[0] == "tensor" for c in valid[0].checks), valid[0].checks


@pytest.mark.slow
@pytest.mark.parametrize(
    ("param", "category"),
    [
        ("module_cls", "class"),
        ("cls", "fresh_class"),
        ("backend", "backend"),
        ("compiler_fn", "backend"),
        ("code", "code"),
        ("buffer", "bytes"),
        ("fn", "callable"),
    ],
)
def test_parameter_names_pick_their_values(param: str, category: str) -> None:
    assert pv.categories(param, "", "")[0] == category
    for src in pv.POOLS[category]:
        eval(src, {"torch": torch, "DEVICE": torch.device("cpu")})


@pytest.mark.parametrize(
    ("message", "category"),
    [
        ("expected a code object", "code"),
        ("issubclass() arg 1 must be a class", "class"),
        ("a bytes-like object is required, not 'str'", "bytes"),
        ("element 0 of tensors does not require grad and does not have a grad_fn", "grad_tensor"),
        (
            "It is not possible to get the gradient edge for a Tensor that does not require gradients",
            "grad_tensor",
        ),
        (
            "at::functionalization::impl::isFunctionalTensor(t) INTERNAL ASSERT FAILED at ...",
            "functional_tensor",
        ),
    ],
)
def test_a_message_naming_the_kind_it_wanted_hints_the_first_argument(
    message: str, category: str
) -> None:
    engine = fp.Engine(torch, {"path": "x", "canonical": "x"}, None, None, "cpu")
    engine._type_hint(message)
    assert engine.type_errors.get("#1") == category


@pytest.mark.slow
def test_a_code_object_for_an_argument_an_error_says_must_be_one() -> None:
    res = resolve("torch._dynamo.eval_frame.reset_code")
    engine = fp.Engine(torch, res, walk(res["path"]).obj, None, "cpu")
    ran: list[str] = []
    run = engine.run

    def recording(scenario: fp.Scenario, *look: object) -> object:
        ran.append("\n".join(scenario.setup + [scenario.call]))
        return run(scenario, *look)

    engine.run = recording  # type: ignore[method-assign]
    engine.scenarios()
    assert any("__code__" in text for text in ran), ran


@pytest.mark.slow
def test_a_tensor_with_a_grad_fn_where_an_error_asks_for_one() -> None:
    valid, _ = _probe("torch.autograd.graph.get_gradient_edge")
    assert valid
    assert any("requires_grad=True" in line for line in valid[0].setup), valid[0].setup
    assert ["type", "result", "torch.autograd.graph.GradientEdge"] in valid[0].checks or any(
        "MulBackward0" in str(c) for c in valid[0].checks
    ), valid[0].checks


def test_a_class_parameter_of_a_registry_gets_a_class_of_the_tests_own_first() -> None:
    assert pv.categories("cls", "type[Any]", "")[0] == "fresh_class"
    assert pv.categories("module_cls", "", "")[0] == "class"
    fresh = eval(pv.POOLS["fresh_class"][0], {"torch": torch})
    import dataclasses

    assert dataclasses.is_dataclass(dataclasses.dataclass(fresh))  # a decorator of classes takes it


@pytest.mark.parametrize(
    ("name", "annotation"),
    [
        ("tensorlistlist", ""),
        ("lists", "List[List[Optional[Tensor]]]"),
        ("x", "collections.abc.Sequence[collections.abc.Sequence[torch.Tensor | None]]"),
    ],
)
def test_a_list_of_tensor_lists(name: str, annotation: str) -> None:
    assert pv.categories(name, annotation, "")[0] == "tensor_lists"


@pytest.mark.slow
def test_a_nested_tensor_list_makes_the_grouping_helper_work() -> None:
    valid, _ = _probe("torch.utils._foreach_utils._group_tensors_by_device_and_dtype")
    assert valid
    assert any("[[torch.ones(2" in line for line in valid[0].setup), valid[0].setup


@pytest.mark.slow
def test_vjp_gets_its_primal() -> None:
    valid, _ = _probe("torch.func.vjp")
    assert valid
    base = valid[0]
    assert base.call.startswith("_API_(") and "primals" in base.call, base.call
    assert any(c[0] == "tensor" and c[1] == "result[0]" for c in base.checks), base.checks


@pytest.mark.parametrize(
    ("message", "count"),
    [
        ("Requires two arguments, got 0", 2),
        ("takes exactly 2 arguments (0 given)", 2),
        ("expected 3 arguments, got 0", 3),
        ("takes exactly one argument (0 given)", 1),
        ("no such thing", 0),
    ],
)
def test_a_count_of_arguments_in_an_error_gives_that_many_parameters(
    message: str, count: int
) -> None:
    lists = fparams.params_from_error(message)
    assert (len(lists[0]) if lists else 0) == count


@pytest.mark.parametrize(
    ("message", "name", "category"),
    [
        (
            "threshold(): argument 'threshold' (position 2) must be Number, not Tensor",
            "threshold",
            "float",
        ),
        ("foo(): argument 'mode' (position 3) must be str, not int", "mode", "str"),
        (
            "empty(): argument 'device' (position 2) must be torch.device, not int",
            "device",
            "device",
        ),
    ],
)
def test_the_type_an_argument_must_be(message: str, name: str, category: str) -> None:
    engine = fp.Engine(torch, {"path": "x", "canonical": "x"}, None, None, "cpu")
    engine._type_hint(message)
    assert engine.type_errors.get(name) == category


@pytest.mark.slow
@pytest.mark.parametrize(
    ("api", "wanted"),
    [
        ("torch.threshold", "_API_(input, "),  # two numbers after the tensor
        ("torch.index_put_", "indices = "),  # a tuple or list of index tensors
        ("torch.autograd.functional.jvp", "v=v"),  # "The vector v can only be None if ..."
    ],
)
def test_torch_functions_the_pools_did_not_reach(api: str, wanted: str) -> None:
    valid, _ = _probe(api)
    assert valid, api
    text = "\n".join(valid[0].setup + [valid[0].call])
    assert wanted in text, text
    assert any(c[0] == "tensor" for c in valid[0].checks), valid[0].checks


@pytest.mark.slow
def test_a_functional_tensor_where_the_call_asserts_one() -> None:
    valid, _ = _probe("torch._functionalize_are_all_mutations_hidden_from_autograd")
    assert valid
    assert any("_to_functional_tensor(" in line for line in valid[0].setup), valid[0].setup
    assert ["is", "result", "True"] in valid[0].checks


@pytest.mark.slow
def test_a_3d_pooling_function_gets_a_kernel_per_spatial_dim() -> None:
    valid, _ = _probe("torch.nn.functional.lp_pool3d")
    assert valid
    assert "kernel_size = (2, 2, 2)" in valid[0].setup, valid[0].setup


@pytest.mark.slow
def test_a_3d_transposed_convolution_gets_a_weight_of_its_dims() -> None:
    valid, _ = _probe("torch.nn.functional.conv_transpose3d")
    assert valid
    assert any("reshape(2, 2, 2, 2, 2)" in line for line in valid[0].setup), valid[0].setup
    assert ["eq", "result.shape", "torch.Size([1, 2, 5, 5, 5])"] in valid[0].checks, valid[0].checks


def test_bytes_only_for_an_annotation_that_is_bytes() -> None:
    assert pv.categories("data", "bytes", "")[0] == "bytes"
    # a file argument (``torch.export.save``'s f) keeps its path and string values first
    assert "bytes" not in pv.categories(
        "f", "typing.Union[str, os.PathLike[str], typing.IO[bytes]]", ""
    )


@pytest.mark.parametrize(("name", "spatial"), [("atleast_2d", False), ("avg_pool2d.default", True)])
def test_the_spatial_rule_leaves_atleast_out_and_takes_overloads(name: str, spatial: bool) -> None:
    assert bool(pv.spatial_tensor(name)) is spatial


def test_a_rejected_value_is_no_choice_and_a_second_operand_no_message() -> None:
    assert asked.choices_named("act must be one of 'none' or 'tanh'. Got: 'bogus'") == (
        "act",
        ["'none'", "'tanh'"],
    )
    from torchparity.agent.facts.checker import _tail

    def same_shape(a: object, b: object) -> bool:
        raise TypeError("same_shape() missing 1 required positional argument: 'b'")

    assert _tail(same_shape) == ""
    assert pv.categories("indices", "", "")[:2] == ["index_tuple", "tensor"]


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
def test_probabilities_are_given_for_probs_before_any_tensor() -> None:
    valid, _ = _probe("torch.distributions.bernoulli.Bernoulli.variance")
    assert valid
    assert "probs=torch.tensor([0.25, 0.5]" in valid[0].setup[0], valid[0].setup


@pytest.mark.parametrize(
    ("name", "cats"),
    [
        ("hidden_size", ["int"]),
        ("in_channels", ["int"]),
        ("kernel_size", ["size"]),
        ("qconfig", ["qconfig"]),
        ("nonlinearity", ["nonlinearity"]),
    ],
)
def test_layer_widths_are_numbers_and_a_qconfig_is_a_qconfig(name: str, cats: list[str]) -> None:
    assert pv.categories(name, "", None) == cats


@pytest.mark.slow
def test_a_shape_environment_simplifies_a_symbolic_expression() -> None:
    res = resolve("torch.fx.experimental.symbolic_shapes.ShapeEnv.simplify")
    hit = walk(res["path"])
    valid, _ = fp.Engine(torch, res, hit.obj, hit.parent, "cpu").scenarios()
    assert valid
    assert "sympy" in valid[0].call and "Symbol" in valid[0].call, valid[0].call


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, value",
    [
        ("torch.distributions.bernoulli.Bernoulli.log_prob", "enumerate_support()"),
        ("torch.distributions.continuous_bernoulli.ContinuousBernoulli.cdf", "mean"),
    ],
)
def test_a_distribution_is_given_its_own_values(name: str, value: str) -> None:
    out = _facts(name)
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    receiver, leaf = sc["receiver"], name.rsplit(".", 1)[-1]
    assert sc["call"] == f"{receiver}.{leaf}({receiver}.{value})"
    assert sc["checks"][0][:2] == ["tensor", "result"]


@pytest.mark.slow
def test_a_transformed_distribution_is_given_a_value_in_its_support() -> None:
    out = _facts("torch.distributions.transformed_distribution.TransformedDistribution.log_prob")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert "ExpTransform()" in sc["setup"][0]
    # its mean is not defined and it enumerates nothing: ones, in its batch shape, lie in its support
    assert (
        sc["setup"][-1]
        == "value = torch.ones(distribution.batch_shape + distribution.event_shape, device=DEVICE)"
    )


@pytest.mark.slow
def test_only_a_distribution_is_given_a_distributions_values() -> None:
    out = _facts("torch.distributions.constraints._Interval.check")
    assert out["valid"], out["problem"]
    assert not any(
        ".mean" in line or "enumerate_support" in line
        for sc in out["valid"]
        for line in sc["setup"]
    )


@pytest.mark.slow
def test_primals_and_tangents_are_tuples() -> None:
    out = _facts("torch.func.jvp")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert "primals = (torch.tensor([1.0, -2.0, 3.0], device=DEVICE),)" in sc["setup"]
    assert ["tensor", "result[0]", "torch.tensor([1.0, 0.0, 3.0], dtype=torch.float32)"] in sc[
        "checks"
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, call, names",
    [
        (
            "torch.fx.Node.append",
            "node.append(list(gm.graph.nodes)[0])",
            "['_0', 'input_1', '_1', 'output']",
        ),
        (
            "torch.fx.Node.prepend",
            "node.prepend(list(gm.graph.nodes)[2])",
            "['input_1', '_1', '_0', 'output']",
        ),
    ],
)
def test_a_node_parameter_is_another_node_of_the_traced_graph(
    name: str, call: str, names: str
) -> None:
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
    assert [
        "tensor",
        "parameters[0].grad",
        "torch.tensor([0.25, -0.5, 0.5], dtype=torch.float32)",
    ] in sc["checks"]


@pytest.mark.slow
def test_a_function_that_must_give_one_element_is_given_a_scalar_function() -> None:
    sc = _calls("torch.autograd.functional.hvp")["_API_(lambda x: (x ** 3).sum(), inputs, v=v)"]
    # the Hessian of sum(x**3) is diag(6x): times v = [1, -2, 3] at x = [1, -2, 3]
    assert ["tensor", "result[1]", "torch.tensor([6.0, 24.0, 54.0], dtype=torch.float32)"] in sc[
        "checks"
    ]


@pytest.mark.slow
def test_a_temperature_is_one_number() -> None:
    calls = _calls("torch.distributions.relaxed_bernoulli.LogitRelaxedBernoulli.rsample")
    sc = calls["logit_relaxed_bernoulli.rsample()"]
    assert sc["setup"][0].startswith(
        "logit_relaxed_bernoulli = _OWNER_(torch.tensor(0.5, device=DEVICE), "
    )
    assert ["eq", "result.shape", "torch.Size([2])"] in sc["checks"]


@pytest.mark.slow
def test_affine_grid_is_given_a_batch_of_matrices_and_a_4d_size() -> None:
    sc = _calls("torch.nn.functional.affine_grid")["_API_(theta, size)"]
    assert sc["setup"][-1] == "size = (1, 1, 2, 3)"
    assert sc["checks"][0][:2] == ["tensor", "result"]


@pytest.mark.slow
def test_models_are_modules_of_one_architecture() -> None:
    sc = _calls("torch.func.stack_module_state")["_API_(models)"]
    assert ["eq", "list(result[0])", "['weight', 'bias']"] in sc["checks"]


@pytest.mark.slow
def test_bincount_is_called_on_counts() -> None:
    sc = _calls("torch.Tensor.bincount")["x.bincount()"]
    assert ["tensor", "result", "torch.tensor([1, 1, 2, 0, 1], dtype=torch.int64)"] in sc["checks"]
