"""The probe's hints from failed calls and its holders, on real messages and real torch calls.

* an optional parameter a failed call names is given in the next round;
* index tensors where a failed call asked for int64 indices (by place or by name);
* a number's lambda among the callables;
* a list or set holder left with one probe entry and watched; a dict kept as it was;
* receivers made by another API (``MADE_ELSEWHERE``);
* a call that aborts the interpreter costs only its child (``probe_isolated``).
"""

from __future__ import annotations

import pytest

from tests.lazy import torch  # noqa: E402  (imported on first use: fast tests here need none)
from torchparity.agent.api.objects import walk  # noqa: E402
from torchparity.agent.api.resolve import resolve  # noqa: E402
from torchparity.agent.facts import asked, recipe_lookup, recipes, registries
from torchparity.agent.facts import probe as fp  # noqa: E402
from torchparity.agent.facts import probe_values as pv


@pytest.mark.parametrize(
    ("message", "names"),
    [
        ("Either `probs` or `logits` must be specified, but not both.", ["probs"]),
        ("'size' must be given when out is None", ["size"]),
        ("please specify the argument 'dim'", ["dim"]),
        ("this op requires the keyword 'dtype'", ["dtype"]),
        ("`weight` must not be None here", ["weight"]),
        ("expected 2 arguments, got 1", []),
    ],
)
def test_the_parameters_a_message_asks_for(message: str, names: list[str]) -> None:
    assert asked.wanted_names(message) == names


def _engine(fn: object) -> fp.Engine:
    return fp.Engine(torch, {"path": "x", "canonical": "x"}, fn, None, "cpu")


def test_a_message_asking_for_indices_hints_the_index_pool_by_place_and_by_name() -> None:
    engine = _engine(None)
    engine._type_hint(
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
        "Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)"
    )
    engine._type_hint(
        "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor"
    )
    assert engine.type_errors == {"#1": "index", "lengths": "index"}


@pytest.mark.slow
def test_real_failed_calls_lead_to_index_tensors() -> None:
    for name, want in (
        ("torch.nn.functional.embedding", "torch.tensor([1, 0], device=DEVICE)"),
        ("torch.nn.utils.rnn.pack_padded_sequence", "torch.tensor([2, 1, 1])"),
    ):
        res = resolve(name)
        engine = fp.Engine(torch, res, walk(res["path"]).obj, None, "cpu")
        valid, _ = engine.scenarios()
        assert valid, name
        assert any(want in line for line in valid[0].setup), (name, valid[0].setup)
        assert any(c[0] == "tensor" for c in valid[0].checks), valid[0].checks


def test_extra_values_a_lambda_of_a_number_and_the_index_pool_first() -> None:
    got = pv.with_extra(["torch.relu", "lambda *args, **kwargs: None"], ["callable"])
    assert got == ["torch.relu", "lambda x: x * 2 + 1", "lambda *args, **kwargs: None"]
    got = pv.with_extra(["torch.tensor([1.0])"], ["index", "tensor"])
    assert got[:2] == list(pv.EXTRA_POOLS["index"]) and got[-1] == "torch.tensor([1.0])"
    assert pv.with_extra(["1"], ["int"]) == ["1"]


def test_a_set_or_list_holder_holds_one_probe_entry_and_is_watched_a_dict_is_kept() -> None:
    setup, restore = registries.container_guard(
        "torch._dynamo.config.traceable_tensor_subclasses", set()
    )
    assert setup[1:] == [
        "torch._dynamo.config.traceable_tensor_subclasses.clear()",
        'torch._dynamo.config.traceable_tensor_subclasses.add("torchparity_probe")',
        "registry = torch._dynamo.config.traceable_tensor_subclasses",
    ]
    assert restore[-1] == "torch._dynamo.config.traceable_tensor_subclasses.update(saved)"
    setup, restore = registries.container_guard("m.items", [])
    assert setup[-2:] == [
        'm.items.append("torchparity_probe")',
        "registry = m.items",
    ] and restore == ["m.items[:] = saved"]
    setup, _ = registries.container_guard("m.table", {})
    assert setup == ["saved = dict(m.table)", 'm.table["torchparity_probe"] = "value"']


@pytest.mark.slow
@pytest.mark.parametrize(
    "cls",
    [
        "torch._ops.OpOverload",
        "torch._ops.OpOverloadPacket",
        "torch.export.exported_program.ExportedProgram",
        "torch.optim.lr_scheduler.SequentialLR",
        "torch.optim.lr_scheduler.ChainedScheduler",
    ],
)
def test_each_receiver_made_elsewhere_binds_an_instance_of_its_class(cls: str) -> None:
    klass = walk(cls).obj
    # the first export and the first optimizer import what they need (the agent preloads dynamo): not
    # within a probe call's timeout on a busy machine
    torch.export.export(torch.nn.ReLU(), (torch.ones(1),))
    torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
    engine = _engine(klass)
    found = [r for r in recipe_lookup.recipes_for(cls) if r in (recipes.MADE_ELSEWHERE[cls],)]
    assert found
    lines = [line.replace("_OWNER_", cls) for line in found[0]]
    assert engine._binds_instance(lines, klass), lines


@pytest.mark.slow
def test_a_call_that_aborts_the_interpreter_costs_only_its_child() -> None:
    """``torch.export.save(ep, object())`` ends the interpreter (a C++ terminate): the probe still keeps
    the call that worked."""
    torch.export.export(torch.nn.ReLU(), (torch.ones(1),))  # imported as the agent's preload does
    res = resolve("torch.export.save")
    got = fp.probe_isolated(torch, res, walk(res["path"]).obj, None, "cpu")
    assert got["valid"], got["problem"]
    assert ["eq", "sorted(os.listdir(_TMP_))", "['item']"] in got["valid"][0]["checks"]
    # the aborted call is no invalid scenario (it raised nothing a test can expect); others may be, time permitting
    assert all(sc["raises"] not in (None, "ChildFailed") for sc in got["invalid"])


def test_the_annotations_outermost_type_decides_the_first_values() -> None:
    ann = (
        "collections.abc.Iterable[torch.Tensor] | collections.abc.Iterable[dict[str, typing.Any]] | "
        "collections.abc.Iterable[tuple[str, torch.Tensor]]"
    )
    got = pv.outer_first(["torch.Tensor()", '"x"'], ann)
    assert got[0].startswith("[torch.ones(2") and got[-2:] == ["torch.Tensor()", '"x"']
    assert (
        pv.outer_first(['"x"', '{"a": 1, "b": 2}'], "dict[str, typing.Any]")[0]
        == '{"a": 1, "b": 2}'
    )
    assert pv.outer_first(['"x"'], "str") == ['"x"']


@pytest.mark.slow
def test_the_optimizer_base_class_is_constructed_from_a_list_of_tensors_and_a_dict() -> None:
    torch.optim.SGD(
        [torch.nn.Parameter(torch.ones(1))], lr=0.1
    )  # imported as the agent's preload does
    engine = _engine(torch.optim.Optimizer)
    params = engine.signatures([], "_API_", torch.optim.Optimizer)[0]
    src = engine._construct(torch.optim.Optimizer, "_API_", params)
    assert src is not None and src.startswith("_API_([torch.ones(2") and '{"a": 1, "b": 2}' in src


@pytest.mark.slow
def test_a_dict_subclass_holder_is_guarded_and_its_probe_entry_read_after_the_call() -> None:
    import collections

    setup, restore = registries.container_guard(
        "m.counters", collections.defaultdict(collections.Counter)
    )
    assert (
        setup == ["saved = dict(m.counters)", 'm.counters["torchparity_probe"] = "value"']
        and restore
    )
    import torch._dynamo.utils

    res = resolve("torch._dynamo.utils.counters.clear")
    valid, _ = fp.Engine(torch, res, walk(res["path"]).obj, None, "cpu").scenarios()
    assert (
        valid
        and ["is", '"torchparity_probe" in torch._dynamo.utils.counters', "False"]
        in valid[0].checks
    )
