"""The probe's eighth-round rules, on real messages and real torch operators.

* an error that lists the allowed values of a parameter gives those values in the next round;
* an operator packet (``torch.ops.aten._add_relu``, no ``_schema`` of its own) is called with the
  parameters of its overloads' schemas, ``default`` first;
* an API named for its spatial dims (``lp_pool2d``) gets a batch with that many as its first tensor;
* parameter names and error messages pick classes, code objects, bytes, compiler backends and tensors
  with a ``grad_fn``;
* a function of only ``*args, **kwargs`` gets the parameters its error names;
* DTensor factories run under a one-device mesh, and a DTensor is checked by its placements and the
  whole tensor it stands for.
"""

from __future__ import annotations

import pytest

from tests.lazy import torch  # noqa: E402  (imported on first use: fast tests here need none)
from torchparity.agent import facts_probe as fp  # noqa: E402
from torchparity.agent.objects import walk  # noqa: E402
from torchparity.agent.resolve import resolve  # noqa: E402


@pytest.mark.parametrize(("message", "name", "choices"), [
    ("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'x'",
     "rounding_mode", ["None", "'trunc'", "'floor'"]),
    ("padding_mode must be one of ['zeros', 'reflect'], but got padding_mode='x'", "padding_mode",
     ["'zeros'", "'reflect'"]),
    ('mode should be one of "sum", "mean"', "mode", ["'sum'", "'mean'"]),
    ("expected 2 arguments, got 1", "", []),
])
def test_the_values_a_message_allows(message: str, name: str, choices: list[str]) -> None:
    assert fp.choices_named(message) == (name, choices)


def _probe(name: str) -> tuple[list[fp.Scenario], list[fp.Scenario]]:
    res = resolve(name)
    return fp.Engine(torch, res, walk(res["path"]).obj, None, "cpu").scenarios()


@pytest.mark.slow
def test_a_listed_value_makes_the_call_work() -> None:
    valid, _ = _probe("torch.ops.aten.div.Scalar_mode")
    assert valid
    calls = " ".join(sc.call for sc in valid)
    assert "rounding_mode=None" in calls or "rounding_mode='trunc'" in calls, calls
    assert any(c[0] == "tensor" for c in valid[0].checks), valid[0].checks


@pytest.mark.slow
def test_an_operator_packet_is_called_with_its_overloads_parameters() -> None:
    packet = torch.ops.aten._add_relu
    lists = fp._packet_params(packet)
    assert lists and [p["name"] for p in lists[0]][:2] == ["self", "other"]
    assert fp._packet_params(torch.ops.aten._add_relu.Tensor) == []
    assert fp._packet_params(torch.add) == []
    valid, invalid = _probe("torch.ops.aten._add_relu")
    assert valid and invalid
    base = valid[0]
    assert base.call.startswith("_API_(") and any(c[0] == "tensor" for c in base.checks), base.checks


@pytest.mark.slow
@pytest.mark.parametrize(("name", "shape"), [
    ("lp_pool2d", (1, 2, 4, 4)), ("conv_transpose3d", (1, 2, 4, 4, 4)), ("ReflectionPad1d", (1, 2, 4)),
    ("add", None), ("fft2", None), ("_upsample_bilinear2d_aa", (1, 2, 4, 4)),
])
def test_an_api_named_for_its_spatial_dims_gets_a_batch_of_that_many(name: str, shape: tuple[int, ...] | None) -> None:
    src = fp.pv.spatial_tensor(name)
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
@pytest.mark.parametrize(("param", "category"), [
    ("module_cls", "class"), ("cls", "fresh_class"), ("backend", "backend"), ("compiler_fn", "backend"),
    ("code", "code"), ("buffer", "bytes"), ("fn", "callable"),
])
def test_parameter_names_pick_their_values(param: str, category: str) -> None:
    assert fp.pv.categories(param, "", "")[0] == category
    for src in fp.pv.POOLS[category]:
        eval(src, {"torch": torch, "DEVICE": torch.device("cpu")})


@pytest.mark.parametrize(("message", "category"), [
    ("expected a code object", "code"),
    ("issubclass() arg 1 must be a class", "class"),
    ("a bytes-like object is required, not 'str'", "bytes"),
    ("element 0 of tensors does not require grad and does not have a grad_fn", "grad_tensor"),
    ("It is not possible to get the gradient edge for a Tensor that does not require gradients", "grad_tensor"),
    ("at::functionalization::impl::isFunctionalTensor(t) INTERNAL ASSERT FAILED at ...", "functional_tensor"),
])
def test_a_message_naming_the_kind_it_wanted_hints_the_first_argument(message: str, category: str) -> None:
    engine = fp.Engine(torch, {"path": "x", "canonical": "x"}, None, None, "cpu")
    engine._type_hint(message)
    assert engine.type_errors.get("#1") == category


@pytest.mark.slow
def test_a_function_of_only_args_and_kwargs_gets_the_parameters_its_error_names() -> None:
    # optimize_assert(*args, **kwargs) says "missing 1 required positional argument: 'backend'"
    valid, _ = _probe("torch._dynamo.optimize_assert")
    assert valid
    assert valid[0].call in ('_API_("eager")', "_API_(lambda gm, example_inputs: gm.forward)"), valid[0].call
    assert ["type", "result", "torch._dynamo.eval_frame.OptimizeContext"] in valid[0].checks


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
def test_dtensor_factories_run_under_a_one_device_mesh() -> None:
    if not torch.distributed.is_available():
        pytest.skip("this torch has no torch.distributed")
    res = resolve("torch.distributed.tensor.ones")
    out = fp.probe_facts(torch, res, walk(res["path"]).obj, None, "cpu")
    assert out["valid"], out["problem"]
    first = out["valid"][0]
    assert any("init_device_mesh" in line for line in first["prelude"]), first["prelude"]
    assert "_MESH_.__exit__(None, None, None)" in first["teardown"]
    kinds = [c[0] for c in first["checks"]]
    assert ["type", "result", "torch.distributed.tensor.DTensor"] in first["checks"]
    assert "tensor" in kinds and any(c[1] == "result.full_tensor()" for c in first["checks"]), first["checks"]
    assert not torch.distributed.is_initialized()
    assert not torch.distributed.device_mesh._mesh_resources.mesh_stack  # the mesh left too
    # the group goes first in the teardown: a mesh that failed to build leaves no _MESH_ to exit
    assert first["teardown"].index("torch.distributed.destroy_process_group()") < first["teardown"].index(
        "_MESH_.__exit__(None, None, None)")


@pytest.mark.slow
def test_a_tensor_with_a_grad_fn_where_an_error_asks_for_one() -> None:
    valid, _ = _probe("torch.autograd.graph.get_gradient_edge")
    assert valid
    assert any("requires_grad=True" in line for line in valid[0].setup), valid[0].setup
    assert ["type", "result", "torch.autograd.graph.GradientEdge"] in valid[0].checks or any(
        "MulBackward0" in str(c) for c in valid[0].checks), valid[0].checks


def test_a_class_parameter_of_a_registry_gets_a_class_of_the_tests_own_first() -> None:
    assert fp.pv.categories("cls", "type[Any]", "")[0] == "fresh_class"
    assert fp.pv.categories("module_cls", "", "")[0] == "class"
    fresh = eval(fp.pv.POOLS["fresh_class"][0], {"torch": torch})
    import dataclasses
    assert dataclasses.is_dataclass(dataclasses.dataclass(fresh))  # a decorator of classes takes it


@pytest.mark.parametrize(("name", "annotation"), [
    ("tensorlistlist", ""), ("lists", "List[List[Optional[Tensor]]]"),
    ("x", "collections.abc.Sequence[collections.abc.Sequence[torch.Tensor | None]]"),
])
def test_a_list_of_tensor_lists(name: str, annotation: str) -> None:
    assert fp.pv.categories(name, annotation, "")[0] == "tensor_lists"


@pytest.mark.slow
def test_a_nested_tensor_list_makes_the_grouping_helper_work() -> None:
    valid, _ = _probe("torch.utils._foreach_utils._group_tensors_by_device_and_dtype")
    assert valid
    assert any("[[torch.ones(2" in line for line in valid[0].setup), valid[0].setup


@pytest.mark.slow
def test_a_module_level_deque_is_emptied_given_a_probe_entry_and_put_back() -> None:
    import collections

    import torch._dynamo.utils as dynamo_utils

    path = "torch._dynamo.utils._compilation_metrics"
    if not isinstance(getattr(dynamo_utils, "_compilation_metrics", None), collections.deque):
        pytest.skip("this torch keeps its compilation metrics elsewhere")
    before = list(dynamo_utils._compilation_metrics)
    setup = fp._registry_setup(path, dirty=True)
    restore = fp._registry_restore(path)
    assert setup[0] == f"saved = list({path})"
    ns: dict[str, object] = {"torch": torch}
    try:
        for line in setup:
            exec(line, ns)
        assert list(dynamo_utils._compilation_metrics) == ["torchparity_probe"]
    finally:
        for line in restore:
            exec(line, ns)
    assert list(dynamo_utils._compilation_metrics) == before
    assert isinstance(dynamo_utils._compilation_metrics, collections.deque)
    valid, _ = _probe("torch._dynamo.utils.clear_compilation_metrics")
    assert valid and any("registry" in str(c) for c in valid[0].checks), valid[0].checks


@pytest.mark.slow
def test_a_code_object_is_checked_by_its_type_only() -> None:
    from torchparity.agent.observe import observe

    class Holder:
        def __init__(self) -> None:
            self.code = compile("x + 1", "<measured here>", "eval")
            self.name = "kept"

    checks = observe(torch, Holder(), "result")
    assert not any("<measured here>" in str(c) or "co_filename" in c[1] for c in checks), checks
    assert ["eq", "result.name", "'kept'"] in checks or ["eq", "result.name", '"kept"'] in checks, checks


@pytest.mark.slow
def test_an_in_place_member_whose_result_is_double_gets_a_double_receiver() -> None:
    res = resolve("torch.Tensor.float_power_")
    engine = fp.Engine(torch, res, walk(res["path"]).obj, torch.Tensor, "cpu")
    valid, _ = engine.scenarios()
    assert valid
    assert "dtype=torch.float64" in valid[0].setup[0], valid[0].setup
    assert ["same", "result", "x"] in valid[0].checks and any(c[0] == "tensor" and c[1] == "x"
                                                              for c in valid[0].checks), valid[0].checks


@pytest.mark.slow
def test_a_star_parameter_is_given_one_value_when_the_call_needs_it() -> None:
    def take(f: object, *primals: object, flag: bool = False) -> object:
        return primals

    assert [p["kind"] for p in fp._param_list(take, "")] == ["positional", "var", "keyword"]
    engine = fp.Engine(torch, {"path": "x", "canonical": "x"}, take, None, "cpu")
    params = engine.signatures([], "_API_", take)[0]
    assert [(p["name"], p["kind"]) for p in params] == [("f", "positional"), ("primals", "vararg"),
                                                         ("flag", "keyword")]
    assert fp._args_src(params, ["g", "t", None]) == "g, t"
    assert fp._args_src(params, ["g", None, "True"]) == "g, flag=True"
    assert fp._args_src(params, [None, "t", "True"]) == "flag=True"  # it cannot go in place: left out

    def wrapper(*args: object, **kwargs: object) -> None:
        raise TypeError("wrapper() missing 1 required positional argument: 'backend'")

    engine = fp.Engine(torch, {"path": "x", "canonical": "x"}, wrapper, None, "cpu")
    assert [p["name"] for p in engine.signatures([], "_API_", wrapper)[0]] == ["backend"]


@pytest.mark.slow
def test_vjp_gets_its_primal() -> None:
    valid, _ = _probe("torch.func.vjp")
    assert valid
    base = valid[0]
    assert base.call.startswith("_API_(") and "primals" in base.call, base.call
    assert any(c[0] == "tensor" and c[1] == "result[0]" for c in base.checks), base.checks


@pytest.mark.parametrize(("message", "count"), [
    ("Requires two arguments, got 0", 2), ("takes exactly 2 arguments (0 given)", 2),
    ("expected 3 arguments, got 0", 3), ("takes exactly one argument (0 given)", 1), ("no such thing", 0),
])
def test_a_count_of_arguments_in_an_error_gives_that_many_parameters(message: str, count: int) -> None:
    lists = fp._params_from_error(message)
    assert (len(lists[0]) if lists else 0) == count


@pytest.mark.parametrize(("message", "name", "category"), [
    ("threshold(): argument 'threshold' (position 2) must be Number, not Tensor", "threshold", "float"),
    ("foo(): argument 'mode' (position 3) must be str, not int", "mode", "str"),
    ("empty(): argument 'device' (position 2) must be torch.device, not int", "device", "device"),
])
def test_the_type_an_argument_must_be(message: str, name: str, category: str) -> None:
    engine = fp.Engine(torch, {"path": "x", "canonical": "x"}, None, None, "cpu")
    engine._type_hint(message)
    assert engine.type_errors.get(name) == category


@pytest.mark.slow
@pytest.mark.parametrize(("api", "wanted"), [
    ("torch.threshold", "_API_(input, "),  # two numbers after the tensor
    ("torch.index_put_", "indices = "),  # a tuple or list of index tensors
    ("torch.autograd.functional.jvp", "v=v"),  # "The vector v can only be None if ..."
])
def test_torch_functions_the_pools_did_not_reach(api: str, wanted: str) -> None:
    valid, _ = _probe(api)
    assert valid, api
    text = "\n".join(valid[0].setup + [valid[0].call])
    assert wanted in text, text
    assert any(c[0] == "tensor" for c in valid[0].checks), valid[0].checks


@pytest.mark.slow
def test_a_returned_function_is_also_called_on_a_0d_tensor() -> None:
    valid, _ = _probe("torch.func.grad")  # grad(f) asks for a function of one number
    assert valid
    assert any(c[1] == "result(torch.tensor(2.5, device=DEVICE))" for c in valid[0].checks), valid[0].checks


@pytest.mark.slow
def test_a_checker_that_requires_a_message_is_given_one() -> None:
    from torchparity.agent.facts_checker import MESSAGE, checker_facts

    for fn in (torch._assert, torch.ops.aten._assert_async.msg):
        facts = checker_facts(torch, fn, None, "cpu")
        assert facts["found"] and facts["tail"] == ", " + MESSAGE, facts
        assert facts["none"] and facts["refused"], facts
    assert checker_facts(torch, torch._check, None, "cpu")["tail"] == ""


@pytest.mark.slow
def test_a_functional_tensor_where_the_call_asserts_one() -> None:
    valid, _ = _probe("torch._functionalize_are_all_mutations_hidden_from_autograd")
    assert valid
    assert any("_to_functional_tensor(" in line for line in valid[0].setup), valid[0].setup
    assert ["is", "result", "True"] in valid[0].checks


@pytest.mark.slow
def test_a_protocol_is_checked_by_its_shape() -> None:
    pytest.importorskip("torch._inductor.pattern_matcher")
    valid, _ = _probe("torch._inductor.pattern_matcher.SearchFn")
    assert valid
    checks = valid[0].checks
    assert valid[0].call == "_API_" and ["is", "result._is_protocol", "True"] in checks, checks
    assert any("__call__" in c[2] for c in checks if c[0] == "eq"), checks


@pytest.mark.slow
def test_a_typing_alias_is_checked_by_its_origin_and_arguments() -> None:
    valid, _ = _probe("torch.fx.node.Argument")
    assert valid
    checks = valid[0].checks
    assert ["eq", "repr(result.__origin__)", "'typing.Union'"] in checks or [
        "eq", "repr(result.__origin__)", '"typing.Union"'] in checks, checks
    names = [c for c in checks if c[1].startswith("[getattr(a")]
    assert names and "Tensor" in names[0][2] and "ForwardRef('Node')" in names[0][2], names


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
    assert fp.pv.categories("data", "bytes", "")[0] == "bytes"
    # a file argument (``torch.export.save``'s f) keeps its path and string values first
    assert "bytes" not in fp.pv.categories("f", "typing.Union[str, os.PathLike[str], typing.IO[bytes]]", "")


@pytest.mark.parametrize(("name", "spatial"), [("atleast_2d", False), ("avg_pool2d.default", True)])
def test_the_spatial_rule_leaves_atleast_out_and_takes_overloads(name: str, spatial: bool) -> None:
    assert bool(fp.pv.spatial_tensor(name)) is spatial


def test_a_rejected_value_is_no_choice_and_a_second_operand_no_message() -> None:
    assert fp.choices_named("act must be one of 'none' or 'tanh'. Got: 'bogus'") == ("act", ["'none'", "'tanh'"])
    from torchparity.agent.facts_checker import _tail

    def same_shape(a: object, b: object) -> bool:
        raise TypeError("same_shape() missing 1 required positional argument: 'b'")

    assert _tail(same_shape) == ""
    assert fp.pv.categories("indices", "", "")[:2] == ["index_tuple", "tensor"]
