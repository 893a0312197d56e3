"""The probe's tenth-round rules, on real torch classes.

* a distribution's ``value`` parameter is given the distribution's own values first (its mean, its
  enumerated support), which lie in its support and batch shape;
* the torch submodules a setup spells out are imported before it runs (the test imports them too);
* torch.distributed.elastic's rendezvous backend, handler and agent, a store, a DDP gradient bucket and a
  device mesh have recipes; a member setter (``set_buffer``) is read back through its getter (``buffer()``).
"""

from __future__ import annotations

import pytest

from tests.lazy import torch  # noqa: E402  (imported on first use: fast tests here need none)
from torchparity.agent import facts_probe as fp  # noqa: E402
from torchparity.agent.objects import walk  # noqa: E402
from torchparity.agent.resolve import resolve  # noqa: E402


def _facts(name: str) -> dict:
    res = resolve(name)
    hit = walk(res["path"])
    owner = hit.parent if isinstance(hit.parent, type) else None
    return fp.probe_facts(torch, res, hit.obj, owner, "cpu", ())


@pytest.mark.slow
@pytest.mark.parametrize("name, value", [
    ("torch.distributions.bernoulli.Bernoulli.log_prob", "enumerate_support()"),
    ("torch.distributions.continuous_bernoulli.ContinuousBernoulli.cdf", "mean"),
])
def test_a_distribution_is_given_its_own_values(name: str, value: str) -> None:
    out = _facts(name)
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    receiver, leaf = sc["receiver"], name.rsplit(".", 1)[-1]
    assert sc["call"] == f"{receiver}.{leaf}({receiver}.{value})"
    assert sc["checks"][0][:2] == ["tensor", "result"]


@pytest.mark.slow
def test_the_modules_a_setup_spells_are_imported_first() -> None:
    import sys

    name = "torch.distributed.elastic.rendezvous.c10d_rendezvous_backend"
    sys.modules.pop(name, None)
    fp._load_modules(f"backend = {name}.C10dRendezvousBackend(store, 'run')")
    assert name in sys.modules
    fp._load_modules("torch.nn.Linear(3, 2)")  # a class is not a module: nothing is remembered as one
    assert "torch.nn.Linear" not in sys.modules


@pytest.mark.slow
@pytest.mark.parametrize("name, call, check", [
    ("torch.distributed.elastic.rendezvous.dynamic_rendezvous.RendezvousBackend.set_state", "backend.set_state(",
     # the state, its token and that it was set: bytes held by value
     ["eq", "result", "(b'\\x00\\x00\\x80?\\x00\\x00\\x00@', b'AACAPwAAAEA=', True)"]),
    ("torch.distributed.elastic.rendezvous.RendezvousHandler.get_run_id", "handler.get_run_id()",
     ["eq", "result", "'run'"]),
    ("torch.distributed.device_mesh.DeviceMesh.get_coordinate", "mesh.get_coordinate()", ["eq", "result", "(0,)"]),
])
def test_distributed_objects_have_recipes(name: str, call: str, check: list) -> None:
    out = _facts(name)
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert sc["call"].startswith(call), sc["call"]
    assert check in sc["checks"]


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
    assert fp._member_getters(torch.distributed.GradBucket, "set_buffer", "b") == ["b.buffer()"]
    assert fp._member_getters(torch.distributed.GradBucket, "index", "b") == []


@pytest.mark.slow
def test_a_member_that_moves_a_modules_buffers_is_held_by_their_values() -> None:
    out = _facts("torch.ao.quantization.observer.MinMaxObserver.reset_min_max_vals")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    # the recipe's observer has seen a batch: the call puts its minimum and maximum back to +-inf
    assert sc["setup"][-1].startswith("observer(")
    checks = {c[1]: c[2] for c in sc["checks"] if c[0] == "tensor"}
    assert checks["observer.get_buffer('min_val')"] == 'torch.tensor(float("inf"), dtype=torch.float32)'
    assert checks["observer.get_buffer('max_val')"] == 'torch.tensor(-float("inf"), dtype=torch.float32)'


@pytest.mark.slow
def test_a_transformed_distribution_is_given_a_value_in_its_support() -> None:
    out = _facts("torch.distributions.transformed_distribution.TransformedDistribution.log_prob")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert "ExpTransform()" in sc["setup"][0]
    # its mean is not defined and it enumerates nothing: ones, in its batch shape, lie in its support
    assert sc["setup"][-1] == "value = torch.ones(distribution.batch_shape + distribution.event_shape, device=DEVICE)"


@pytest.mark.slow
def test_a_recipe_that_asks_for_rpc_gets_the_rpc_pass() -> None:
    out = _facts("torch.distributed.nn.api.remote_module.RemoteModule.get_module_rref")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert any("init_rpc" in line for line in sc["prelude"])
    assert ["type", "result.to_here()", "torch.nn.modules.linear.Linear"] in sc["checks"]


@pytest.mark.slow
def test_a_construction_that_asks_for_a_process_group_gets_the_group_pass() -> None:
    # DistributedDataParallel lives in torch.nn.parallel: only its failed construction asks for a group
    out = _facts("torch.nn.parallel.DistributedDataParallel.join_hook")
    assert out["valid"], out["problem"]
    sc = out["valid"][0]
    assert any("init_process_group" in line for line in sc["prelude"])
    assert ["same", "result.ddp", sc["receiver"]] in sc["checks"]


@pytest.mark.slow
def test_a_submodule_torch_code_reaches_unimported_is_imported_and_named() -> None:
    import sys

    name = "torch.ao.quantization.backend_config.utils"
    if name in sys.modules:
        pytest.skip("imported already in this process")
    out = _facts("torch.ao.quantization.backend_config.BackendConfig.set_backend_pattern_config")
    assert out["valid"], out["problem"]
    assert f"import {name}" in out["imports"]
    assert fp._missing_submodule("module 'torch.nn' has no attribute 'no_such_module'") == ""


@pytest.mark.slow
def test_a_getter_guessed_by_name_that_needs_arguments_does_not_sink_the_setter() -> None:
    # Module.get_submodule needs a target: it is no getter of set_submodule, whose calls still count
    out = _facts("torch.nn.Module.set_submodule")
    assert out["valid"], out["problem"]
    assert all(sc["getters"] == [] for sc in out["valid"])


@pytest.mark.slow
def test_a_submodule_imported_on_an_error_is_named_for_every_api_that_reaches_it() -> None:
    name = "torch.ao.quantization.backend_config.BackendConfig.set_backend_pattern_config"
    first, second = _facts(name), _facts(name)
    line = "import torch.ao.quantization.backend_config.utils"
    assert line in first["imports"] and line in second["imports"]


@pytest.mark.slow
def test_only_a_distribution_is_given_a_distributions_values() -> None:
    out = _facts("torch.distributions.constraints._Interval.check")
    assert out["valid"], out["problem"]
    assert not any(".mean" in line or "enumerate_support" in line for sc in out["valid"] for line in sc["setup"])
