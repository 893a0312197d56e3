"""How the probe spells a call, on real torch APIs and functions of the tests' own.

* an operator packet (``torch.ops.aten._add_relu``, no ``_schema`` of its own) is called with the
  parameters of its overloads' schemas, ``default`` first;
* a function of only ``*args, **kwargs`` gets the parameters its error names; a star parameter is given
  one value when the call needs it; a parameter an error names and no signature lists (``byte_order``,
  ``'dtype' cannot be None``) is passed in the next round, and only then;
* a docstring's ``as_subclass(cls)`` keeps ``cls`` as an argument; an enum class is probed through its
  members (in order, by name, by value); a returned function is also called on a 0-d tensor;
* a call that an error asks for first (``consolidate_state_dict(to=0)``) is made first;
* every named setup of a signature is made (``vec`` with ``parameters``; a file ``url`` with a
  ``model_dir``), and a call through it passes each value the setup made; a download lands in a folder
  of the probe's, never in ``$HOME``;
* a module-level deque a call empties is given a probe entry first and put back after;
* the torch submodules a setup spells out are imported before it runs, and a submodule an error shows
  torch code reaching unimported is imported and named for every API that reaches it;
* a library's own BaseException (``CheckpointException``) is an error of the call, not the probe's end,
  and makes no invalid test.
"""

from __future__ import annotations

import os

import pytest

from tests.agent.probe_fixtures import _calls, _facts, _probe
from tests.lazy import torch  # imported on first use, not at collection
from torchparity.agent.facts import params as fparams
from torchparity.agent.facts import probe as fp
from torchparity.agent.facts import recipe_lookup, registries, runner


@pytest.mark.slow
def test_an_operator_packet_is_called_with_its_overloads_parameters() -> None:
    packet = torch.ops.aten._add_relu
    lists = fparams.packet_params(packet)
    assert lists and [p["name"] for p in lists[0]][:2] == ["self", "other"]
    assert fparams.packet_params(torch.ops.aten._add_relu.Tensor) == []
    assert fparams.packet_params(torch.add) == []
    valid, invalid = _probe("torch.ops.aten._add_relu")
    assert valid and invalid
    base = valid[0]
    assert base.call.startswith("_API_(") and any(c[0] == "tensor" for c in base.checks), (
        base.checks
    )


@pytest.mark.slow
def test_a_function_of_only_args_and_kwargs_gets_the_parameters_its_error_names() -> None:
    # optimize_assert(*args, **kwargs) says "missing 1 required positional argument: 'backend'"
    valid, _ = _probe("torch._dynamo.optimize_assert")
    assert valid
    assert valid[0].call in ('_API_("eager")', "_API_(lambda gm, example_inputs: gm.forward)"), (
        valid[0].call
    )
    assert ["type", "result", "torch._dynamo.eval_frame.OptimizeContext"] in valid[0].checks


@pytest.mark.slow
def test_a_module_level_deque_is_emptied_given_a_probe_entry_and_put_back() -> None:
    import collections

    import torch._dynamo.utils as dynamo_utils

    path = "torch._dynamo.utils._compilation_metrics"
    if not isinstance(getattr(dynamo_utils, "_compilation_metrics", None), collections.deque):
        pytest.skip("this torch keeps its compilation metrics elsewhere")
    before = list(dynamo_utils._compilation_metrics)
    setup = registries.registry_setup(path, dirty=True)
    restore = registries.registry_restore(path)
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
def test_a_star_parameter_is_given_one_value_when_the_call_needs_it() -> None:
    def take(f: object, *primals: object, flag: bool = False) -> object:
        return primals

    assert [p["kind"] for p in fparams.param_list(take, "")] == ["positional", "var", "keyword"]
    engine = fp.Engine(torch, {"path": "x", "canonical": "x"}, take, None, "cpu")
    params = engine.signatures([], "_API_", take)[0]
    assert [(p["name"], p["kind"]) for p in params] == [
        ("f", "positional"),
        ("primals", "vararg"),
        ("flag", "keyword"),
    ]
    assert fparams.args_src(params, ["g", "t", None]) == "g, t"
    assert fparams.args_src(params, ["g", None, "True"]) == "g, flag=True"
    assert (
        fparams.args_src(params, [None, "t", "True"]) == "flag=True"
    )  # it cannot go in place: left out

    def wrapper(*args: object, **kwargs: object) -> None:
        raise TypeError("wrapper() missing 1 required positional argument: 'backend'")

    engine = fp.Engine(torch, {"path": "x", "canonical": "x"}, wrapper, None, "cpu")
    assert [p["name"] for p in engine.signatures([], "_API_", wrapper)[0]] == ["backend"]


@pytest.mark.slow
def test_a_returned_function_is_also_called_on_a_0d_tensor() -> None:
    valid, _ = _probe("torch.func.grad")  # grad(f) asks for a function of one number
    assert valid
    assert any(c[1] == "result(torch.tensor(2.5, device=DEVICE))" for c in valid[0].checks), valid[
        0
    ].checks


@pytest.mark.slow
def test_the_modules_a_setup_spells_are_imported_first() -> None:
    import sys

    name = "torch.distributed.elastic.rendezvous.c10d_rendezvous_backend"
    sys.modules.pop(name, None)
    runner.load_modules(f"backend = {name}.C10dRendezvousBackend(store, 'run')")
    assert name in sys.modules
    runner.load_modules(
        "torch.nn.Linear(3, 2)"
    )  # a class is not a module: nothing is remembered as one
    assert "torch.nn.Linear" not in sys.modules


@pytest.mark.slow
def test_a_submodule_torch_code_reaches_unimported_is_imported_and_named() -> None:
    import sys

    name = "torch.ao.quantization.backend_config.utils"
    if name in sys.modules:
        pytest.skip("imported already in this process")
    out = _facts("torch.ao.quantization.backend_config.BackendConfig.set_backend_pattern_config")
    assert out["valid"], out["problem"]
    assert f"import {name}" in out["imports"]
    assert runner.missing_submodule("module 'torch.nn' has no attribute 'no_such_module'") == ""


@pytest.mark.slow
def test_a_submodule_imported_on_an_error_is_named_for_every_api_that_reaches_it() -> None:
    name = "torch.ao.quantization.backend_config.BackendConfig.set_backend_pattern_config"
    first, second = _facts(name), _facts(name)
    line = "import torch.ao.quantization.backend_config.utils"
    assert line in first["imports"] and line in second["imports"]


@pytest.mark.slow
def test_a_docstring_cls_is_an_argument() -> None:
    out = _facts("torch.Tensor.as_subclass")
    assert out["valid"], out["problem"]
    assert out["valid"][0]["call"].startswith("x.as_subclass(")


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, call, check",
    [
        (
            "torch.distributed.elastic.events.api.EventSource",
            "list(_API_)",
            ["eq", "result", "['AGENT', 'WORKER']"],
        ),
        (
            "torch.distributed.elastic.events.api.EventSource",
            "_API_('AGENT')",
            ["eq", "result.name", "'AGENT'"],
        ),
        (
            "torch.distributed.rpc.BackendType",
            "_API_['TENSORPIPE']",
            ["eq", "result.name", "'TENSORPIPE'"],
        ),
    ],
)
def test_an_enum_is_probed_through_its_members(name: str, call: str, check: list) -> None:
    out = _facts(name)
    calls = {sc["call"]: sc["checks"] for sc in out["valid"]}
    assert call in calls, list(calls)
    assert check in calls[call]


@pytest.mark.slow
def test_the_call_an_error_asks_for_is_made_first() -> None:
    out = _facts("torch.distributed.optim.ZeroRedundancyOptimizer.state_dict")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["setup"][-1].endswith(".consolidate_state_dict(to=0)")
    assert ["eq", "list(result)", "['state', 'param_groups']"] in sc["checks"]


@pytest.mark.parametrize(
    "message, asked",
    [
        (
            "Please call `consolidate_state_dict(to=0)` on all ranks beforehand if you meant to save it",
            [("consolidate_state_dict", "to=0")],
        ),
        (
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
            [],
        ),
        ("do not call forward() twice; call self.eval() first", [("eval", "")]),
    ],
)
def test_only_a_call_asked_for_first_is_noted(message: str, asked: list) -> None:
    engine = fp.Engine(torch, {"path": "x", "canonical": "x"}, None, None, "cpu")
    engine._note_asked_call(message)
    assert engine.asked_calls == asked


@pytest.mark.slow
def test_every_named_setup_is_made_and_each_value_is_passed() -> None:
    calls = _calls("torch.nn.utils.vector_to_parameters")
    assert list(calls) == ["_API_(vec, parameters)"]  # not a call leaving the made parameters aside
    sc = calls["_API_(vec, parameters)"]
    assert ["tensor", "parameters[0]", "torch.tensor([2.0, 0.0, -1.0], dtype=torch.float32)"] in sc[
        "checks"
    ]
    assert ["tensor", "parameters[1]", "torch.tensor([3.0, 5.0], dtype=torch.float32)"] in sc[
        "checks"
    ]


@pytest.mark.slow
def test_a_download_reads_a_file_url_into_the_folder_given(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("TORCH_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    calls = _calls("torch.hub.load_state_dict_from_url")
    assert all("model_dir=model_dir" in call for call in calls), list(calls)
    sc = calls["_API_(url, model_dir=model_dir)"]
    assert [
        "tensor",
        "result['weight']",
        "torch.tensor([1.0, -2.0, 3.0], dtype=torch.float32)",
    ] in sc["checks"]
    assert not list(tmp_path.iterdir())  # nothing under $HOME/.cache
    assert "TORCH_HOME" not in os.environ  # put back as it was


@pytest.mark.slow
def test_a_parameter_an_error_names_is_passed_next() -> None:
    calls = _calls("torch.TypedStorage.from_buffer")
    sc = calls['_OWNER_.from_buffer(b"\\x00\\x00\\x80?\\x00\\x00\\x00@", "little")']
    assert ["eq", "result.cpu().tolist()", "[1.0, 2.0]"] in sc["checks"]
    calls = _calls("torch.UntypedStorage.from_buffer")
    sc = next(
        sc for call, sc in calls.items() if "dtype=dtype" in call and 'byte_order="little"' in call
    )
    assert ["eq", "result.cpu().tolist()", "[0, 0, 128, 63, 0, 0, 0, 64]"] in sc["checks"]


def test_named_setups_join() -> None:
    def f(vec, parameters):
        return None

    lines = recipe_lookup.named_setup(["vec", "parameters"])
    assert lines[0].startswith("vec = ")
    assert any(line.startswith("parameters = ") for line in lines)
    assert recipe_lookup.named_setup(["x"]) == ()


@pytest.mark.slow
def test_a_base_exception_of_the_library_is_an_error_of_the_call() -> None:
    """``save_state_dict("x", writer)`` raises CheckpointException, a BaseException: the probe goes on."""
    calls = _calls("torch.distributed.checkpoint.state_dict_saver.save_state_dict")
    sc = calls["_API_(state_dict, storage_writer)"]
    assert "storage_writer = torch.distributed.checkpoint.FileSystemWriter(_TMP_)" in sc["setup"]
    assert ["eq", "result.version", "'1.0.0'"] in sc["checks"]


@pytest.mark.slow
def test_a_library_base_exception_makes_no_invalid_test() -> None:
    """An invalid call raising a BaseException outside Exception would be written as
    ``assertRaises(BaseException)``, which any error passes: it is left out."""

    class Stop(BaseException):
        pass

    def api(x):
        raise Stop("no")

    engine = fp.Engine(torch, {"path": "m.api", "canonical": "m.api"}, api, None, "cpu")
    assert engine.raises_same(fp.Scenario([], "_API_(1)")) is None
    assert engine.raises_same(fp.Scenario([], "_API_.missing_attribute")) == "AttributeError"


@pytest.mark.slow
def test_an_asked_parameter_is_added_only_without_a_signature_of_its_own() -> None:
    """A Python function's own signature lists its parameters: a name its error mentions is not added
    (the rounds that would pass it only fail with "unexpected keyword argument")."""

    def plain(x):
        raise ValueError("no")

    def asks(x):
        raise ValueError("argument 'dtype' cannot be None")

    tried = []
    for api in (plain, asks):
        engine = fp.Engine(torch, {"path": "m.api", "canonical": "m.api"}, api, None, "cpu")
        valid, _ = engine.call_scenarios([], "_API_", api)
        assert not valid
        tried.append(engine.tried)
    assert tried[1] == tried[0]
