"""What the probe checks of a call, on real torch APIs.

* a protocol is checked by its shape, a typing alias by its origin and arguments;
* a drawn result is checked by its shape and dtype, not its values (drawn tensors agree only where shape
  and dtype agree; context checks are not read as drawn tensors); a call that draws from torch's
  generator is run more times, so a draw from few outcomes that agreed twice is not asserted, and a
  call that draws nothing is not; a number drawn afresh each call is
  checked against the getter named for the API (``initial_seed``);
* a member setter (``set_buffer``) is read back through its getter (``buffer()``); a getter guessed by
  name that needs arguments does not sink the setter; a member that moves a module's buffers is held by
  their values;
* a small storage is observed by its bytes; a watched object is observed whole (``profile.step_num``
  comes late in the alphabet).
"""

from __future__ import annotations

import pytest

from tests.agent.probe_fixtures import _calls, _facts, _probe
from tests.lazy import torch  # imported on first use, not at collection
from torchparity.agent.facts import getters, runner
from torchparity.agent.facts import probe as fp
from torchparity.agent.facts.observe import observe


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
        "eq",
        "repr(result.__origin__)",
        '"typing.Union"',
    ] in checks, checks
    names = [c for c in checks if c[1].startswith("[getattr(a")]
    assert names and "Tensor" in names[0][2] and "ForwardRef('Node')" in names[0][2], names


@pytest.mark.slow
def test_a_drawn_result_is_checked_by_its_shape_and_dtype_not_its_values() -> None:
    valid, _ = _probe("torch.distributions.mixture_same_family.MixtureSameFamily.sample")
    assert valid
    checks = valid[0].checks
    assert ["eq", "result.shape", "torch.Size([])"] in checks, checks
    assert ["eq", "result.dtype", "torch.float32"] in checks, checks
    assert not [c for c in checks if c[0] == "tensor" and c[1] == "result"], checks


def _engine(api: object) -> fp.Engine:
    """The probe of a function ``m.api`` that is ``api``."""
    return fp.Engine(
        torch, {"path": "m.api", "canonical": "m.api", "kind": "function"}, api, None, "cpu"
    )


def _twice_then_other(draws: bool) -> object:
    """An API giving ``[0.]`` on its first two calls and ``[1.]`` after: a draw from two outcomes that
    agreed twice by chance (``draws``: it takes a number from torch's generator, as such a draw does)."""
    calls = []

    def api() -> object:
        calls.append(1)
        if draws:
            torch.rand(1)
        return torch.tensor([float(len(calls) > 2)])

    return api


@pytest.mark.slow
@pytest.mark.parametrize("draws", [True, False])
def test_a_call_that_draws_is_run_until_its_draws_differ(draws: bool) -> None:
    engine = _engine(_twice_then_other(draws))
    scenario = fp.Scenario([], "_API_()")
    assert engine.measure(scenario)
    values = [c for c in scenario.checks if c[0] == "tensor" and c[1] == "result"]
    shapes = [c for c in scenario.checks if c[1] == "result.shape"]
    if draws:  # its values are not asserted: the device's generator draws others
        assert not values and shapes == [["eq", "result.shape", "torch.Size([1])"]], scenario.checks
    else:  # no draw: two runs that agree are what the probe asks, and the value is asserted
        assert values and not shapes, scenario.checks
    assert engine.tried == (runner.DRAWN_RUNS if draws else 2)


@pytest.mark.slow
def test_a_draw_made_while_its_result_is_listed_counts() -> None:
    """A generator that draws as it is iterated (a sampler's ``__iter__``): the draw is the listing's."""
    calls = []

    def api() -> object:
        calls.append(1)
        torch.rand(1)  # only once the generator runs
        yield torch.tensor([float(len(calls) > 2)])

    engine = _engine(api)
    scenario = fp.Scenario([], "_API_()")
    assert engine.measure(scenario) and scenario.listify
    assert engine.tried == runner.DRAWN_RUNS
    assert not [c for c in scenario.checks if c[0] == "tensor"], scenario.checks


@pytest.mark.slow
def test_a_drawn_shape_is_held_only_where_every_run_drew_it() -> None:
    """Two runs of one shape and a third of another: neither the values nor that shape are held."""
    results = iter([[1.0], [2.0], [1.0, 2.0], [3.0], [4.0]])

    def api() -> object:
        torch.rand(1)
        return torch.tensor(next(results))

    engine = _engine(api)
    scenario = fp.Scenario([], "_API_()")
    engine.measure(scenario)
    assert engine.tried == runner.DRAWN_RUNS
    held = [c for c in scenario.checks if c[1].startswith("result")]
    assert ["eq", "result.shape", "torch.Size([1])"] not in held, held
    assert not [c for c in held if c[0] == "tensor"], held


@pytest.mark.slow
def test_drawn_tensors_agree_only_where_shape_and_dtype_agree() -> None:
    first = [
        ["tensor", "result", "torch.tensor([1.0, 2.0], dtype=torch.float32)"],
        ["tensor", "other", "torch.tensor([1.0], dtype=torch.float32)"],
    ]
    second = [
        ["tensor", "result", "torch.tensor([3.0, 4.0], dtype=torch.float32)"],
        ["tensor", "other", "torch.tensor([1.0, 2.0], dtype=torch.float32)"],
    ]
    assert runner.drawn_tensors(torch, first, second) == [
        ["eq", "result.shape", "torch.Size([2])"],
        ["eq", "result.dtype", "torch.float32"],
    ]


@pytest.mark.slow
def test_context_checks_are_not_read_as_drawn_tensors() -> None:
    first = [
        ["inside", "eq", "torch.is_grad_enabled()", "False"],
        ["tensor", "result", "torch.tensor([1.0], dtype=torch.float32)"],
    ]
    second = [
        ["inside", "eq", "torch.is_grad_enabled()", "False"],
        ["tensor", "result", "torch.tensor([2.0], dtype=torch.float32)"],
    ]
    assert runner.drawn_tensors(torch, first, second) == [
        ["eq", "result.shape", "torch.Size([1])"],
        ["eq", "result.dtype", "torch.float32"],
    ]


@pytest.mark.slow
def test_a_member_setter_is_read_back_through_its_getter() -> None:
    out = _facts("torch.distributed.GradBucket.set_buffer")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert "bucket = buckets[0]" in sc["setup"]
    assert sc["call"].startswith("bucket.set_buffer(")
    assert sc["getters"] == ["bucket.buffer()"]
    # it ran in the probe's one-process group, and its test starts and ends one too
    assert any("init_process_group" in line for line in sc["prelude"])
    assert any("destroy_process_group" in line for line in sc["teardown"])
    assert getters.member_getters(torch.distributed.GradBucket, "set_buffer", "b") == ["b.buffer()"]
    assert getters.member_getters(torch.distributed.GradBucket, "index", "b") == []


@pytest.mark.slow
def test_a_member_that_moves_a_modules_buffers_is_held_by_their_values() -> None:
    out = _facts("torch.ao.quantization.observer.MinMaxObserver.reset_min_max_vals")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    # the recipe's observer has seen a batch: the call puts its minimum and maximum back to +-inf
    assert sc["setup"][-1].startswith("observer(")
    checks = {c[1]: c[2] for c in sc["checks"] if c[0] == "tensor"}
    assert (
        checks["observer.get_buffer('min_val')"]
        == 'torch.tensor(float("inf"), dtype=torch.float32)'
    )
    assert (
        checks["observer.get_buffer('max_val')"]
        == 'torch.tensor(-float("inf"), dtype=torch.float32)'
    )


@pytest.mark.slow
def test_a_getter_guessed_by_name_that_needs_arguments_does_not_sink_the_setter() -> None:
    # Module.get_submodule needs a target: it is no getter of set_submodule, whose calls still count
    out = _facts("torch.nn.Module.set_submodule")
    assert out["valid"], out["problem"]
    assert all(sc["getters"] == [] for sc in out["valid"])


@pytest.mark.slow
def test_a_small_storage_is_observed_by_its_bytes() -> None:
    out = _facts("torch.UntypedStorage.byteswap")
    assert out["valid"], out["problem"]
    checks = [c for sc in out["valid"] for c in sc["checks"]]
    assert ["eq", "storage.cpu().tolist()", "[4, 3, 2, 1, 8, 7, 6, 5]"] in checks


@pytest.mark.slow
def test_a_watched_object_is_observed_whole() -> None:
    prof = torch.profiler.profile()
    narrow = observe(torch, prof, "p")
    wide = observe(torch, prof, "p", wide=True)
    assert ["eq", "p.step_num", "0"] not in narrow
    assert ["eq", "p.step_num", "0"] in wide
    sc = _calls("torch.profiler.profile.step")["profiler.step()"]
    assert ["eq", "profiler.step_num", "1"] in sc["checks"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, call, check",
    [
        ("torch.random.seed", "_API_()", ["eq", "torch.random.initial_seed()", "result"]),
        ("torch.Generator.seed", "generator.seed()", ["eq", "generator.initial_seed()", "result"]),
    ],
)
def test_a_fresh_seed_is_read_back(name: str, call: str, check: list) -> None:
    sc = _calls(name)[call]
    assert sc["checks"] == [check]
