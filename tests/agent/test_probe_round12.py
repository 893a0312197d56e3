"""The probe's twelfth-round rules, on real torch APIs.

* a tensor's receivers include a scalar result of a graph (``backward`` fills its leaf's gradient);
* a fused module's parts are built from their parameter names (``LinearReLU(linear, relu)``), a module
  class's ``forward`` is tried before its container methods, and a method of a class named for its
  spatial dims (``ConvBnReLU2d.forward``) is given an input of that many dims;
* a function an error says must give a single element is given a function of a tensor to a scalar (``hvp``);
* a relaxed distribution's ``temperature`` is one number; a ``byte_order`` is ``"little"`` first;
* every named setup of a signature is made (``vec`` with ``parameters``; ``theta`` with ``size``; a
  file ``url`` with a ``model_dir``), and a call through it passes each value the setup made;
* a download a guessed call makes lands in a folder of the probe's, never in ``$HOME``;
* a watched object is observed whole (``profile.step_num`` comes late in the alphabet);
* a profiler that recorded a product is a receiver (``key_averages``);
* a number drawn afresh each call is checked against the getter named for the API (``initial_seed``);
* a library's own BaseException (``CheckpointException``) is an error of the call, not the probe's end;
* a ``process_group`` parameter is the world group by its name alone; a ``bucket`` is a DDP gradient bucket;
* ``models`` are two modules of one architecture (``stack_module_state``);
* a tensor's receivers include small non-negative integers (``bincount``);
* a class whose recipes reach an instance another way (``torch.Tensor``'s) is still constructed itself;
* a name through a module hidden by a function reaches the sibling its parent exports
  (``torch.autograd.gradcheck.gradgradcheck`` is ``torch.autograd.gradgradcheck``);
* a parameter an error names and no signature lists (``byte_order (pos 2)``, ``'dtype' cannot be None``)
  is passed in the next round.
"""

from __future__ import annotations

import os

import pytest

from tests.agent.test_probe_round10 import _facts  # noqa: E402
from tests.lazy import torch  # noqa: E402  (imported on first use: fast tests here need none)
from torchparity.agent import facts_probe as fp  # noqa: E402
from torchparity.agent.observe import observe  # noqa: E402


def _calls(name: str) -> dict:
    out = _facts(name)
    assert out["valid"], out["problem"]
    return {sc["call"]: sc for sc in out["valid"]}


@pytest.mark.slow
def test_backward_is_called_on_a_scalar_result_and_fills_the_leaf_gradient() -> None:
    sc = _calls("torch.Tensor.backward")["x.backward()"]
    assert sc["setup"][-1] == "x = (leaf * leaf).sum()"
    assert ["tensor", "leaf.grad", "torch.tensor([2.0, -4.0, 6.0], dtype=torch.float32)"] in sc["checks"]


@pytest.mark.slow
@pytest.mark.parametrize("name, ctor, call, shape", [
    ("torch.ao.nn.intrinsic.LinearReLU",
     "_API_(torch.nn.Linear(3, 2, device=DEVICE), torch.nn.ReLU())", "linear_re_lu.forward(input)", "[2]"),
    ("torch.ao.nn.intrinsic.ConvBnReLU2d",
     "_API_(torch.nn.Conv2d(2, 2, 1, device=DEVICE), torch.nn.BatchNorm2d(2, device=DEVICE), torch.nn.ReLU())",
     "conv_bn_re_lu2d.forward(input)", "[1, 2, 4, 4]"),
])
def test_a_fused_module_is_built_from_its_parts_and_its_forward_comes_first(
        name: str, ctor: str, call: str, shape: str) -> None:
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
def test_a_function_that_must_give_one_element_is_given_a_scalar_function() -> None:
    sc = _calls("torch.autograd.functional.hvp")["_API_(lambda x: (x ** 3).sum(), inputs, v=v)"]
    # the Hessian of sum(x**3) is diag(6x): times v = [1, -2, 3] at x = [1, -2, 3]
    assert ["tensor", "result[1]", "torch.tensor([6.0, 24.0, 54.0], dtype=torch.float32)"] in sc["checks"]


@pytest.mark.slow
def test_a_temperature_is_one_number() -> None:
    calls = _calls("torch.distributions.relaxed_bernoulli.LogitRelaxedBernoulli.rsample")
    sc = calls["logit_relaxed_bernoulli.rsample()"]
    assert sc["setup"][0].startswith("logit_relaxed_bernoulli = _OWNER_(torch.tensor(0.5, device=DEVICE), ")
    assert ["eq", "result.shape", "torch.Size([2])"] in sc["checks"]


@pytest.mark.slow
def test_every_named_setup_is_made_and_each_value_is_passed() -> None:
    calls = _calls("torch.nn.utils.vector_to_parameters")
    assert list(calls) == ["_API_(vec, parameters)"]  # not a call leaving the made parameters aside
    sc = calls["_API_(vec, parameters)"]
    assert ["tensor", "parameters[0]", "torch.tensor([2.0, 0.0, -1.0], dtype=torch.float32)"] in sc["checks"]
    assert ["tensor", "parameters[1]", "torch.tensor([3.0, 5.0], dtype=torch.float32)"] in sc["checks"]


@pytest.mark.slow
def test_affine_grid_is_given_a_batch_of_matrices_and_a_4d_size() -> None:
    sc = _calls("torch.nn.functional.affine_grid")["_API_(theta, size)"]
    assert sc["setup"][-1] == "size = (1, 1, 2, 3)"
    assert sc["checks"][0][:2] == ["tensor", "result"]


@pytest.mark.slow
def test_a_download_reads_a_file_url_into_the_folder_given(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("TORCH_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    calls = _calls("torch.hub.load_state_dict_from_url")
    assert all("model_dir=model_dir" in call for call in calls), list(calls)
    sc = calls["_API_(url, model_dir=model_dir)"]
    assert ["tensor", "result['weight']", "torch.tensor([1.0, -2.0, 3.0], dtype=torch.float32)"] in sc["checks"]
    assert not list(tmp_path.iterdir())  # nothing under $HOME/.cache
    assert "TORCH_HOME" not in os.environ  # put back as it was


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
def test_a_profiler_that_recorded_a_product_is_a_receiver() -> None:
    sc = _calls("torch.profiler._KinetoProfile.key_averages")["profiler.key_averages()"]
    assert "profiler.stop()" in sc["setup"]
    assert ["type", "result", "torch.autograd.profiler_util.EventList"] in sc["checks"]


@pytest.mark.slow
@pytest.mark.parametrize("name, call, check", [
    ("torch.random.seed", "_API_()", ["eq", "torch.random.initial_seed()", "result"]),
    ("torch.Generator.seed", "generator.seed()", ["eq", "generator.initial_seed()", "result"]),
])
def test_a_fresh_seed_is_read_back(name: str, call: str, check: list) -> None:
    sc = _calls(name)[call]
    assert sc["checks"] == [check]


@pytest.mark.slow
def test_a_parameter_an_error_names_is_passed_next() -> None:
    calls = _calls("torch.TypedStorage.from_buffer")
    sc = calls['_OWNER_.from_buffer(b"\\x00\\x00\\x80?\\x00\\x00\\x00@", "little")']
    assert ["eq", "result.cpu().tolist()", "[1.0, 2.0]"] in sc["checks"]
    calls = _calls("torch.UntypedStorage.from_buffer")
    sc = next(sc for call, sc in calls.items() if "dtype=dtype" in call and 'byte_order="little"' in call)
    assert ["eq", "result.cpu().tolist()", "[0, 0, 128, 63, 0, 0, 0, 64]"] in sc["checks"]


def test_named_setups_join() -> None:
    def f(vec, parameters):
        return None

    lines = fp._named_setup(f)
    assert lines[0].startswith("vec = ")
    assert any(line.startswith("parameters = ") for line in lines)
    assert fp._named_setup(lambda x: x) is None


@pytest.mark.slow
def test_a_base_exception_of_the_library_is_an_error_of_the_call() -> None:
    """``save_state_dict("x", writer)`` raises CheckpointException, a BaseException: the probe goes on."""
    calls = _calls("torch.distributed.checkpoint.state_dict_saver.save_state_dict")
    sc = calls["_API_(state_dict, storage_writer)"]
    assert "storage_writer = torch.distributed.checkpoint.FileSystemWriter(_TMP_)" in sc["setup"]
    assert ["eq", "result.version", "'1.0.0'"] in sc["checks"]


@pytest.mark.slow
def test_a_comm_hook_is_given_a_state_for_the_world_group_and_a_gradient_bucket() -> None:
    calls = _calls("torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook.batched_powerSGD_hook")
    sc = calls["_API_(state, bucket)"]
    assert sc["setup"][-1].endswith("PowerSGDState(torch.distributed.group.WORLD)")
    assert "bucket = buckets[0]" in sc["setup"]
    # before start_powerSGD_iter the hook is a plain allreduce: of one process, the bucket itself
    assert ["tensor", "result.wait()", "torch.tensor([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], "
            "dtype=torch.float32)"] in sc["checks"]


@pytest.mark.slow
def test_models_are_modules_of_one_architecture() -> None:
    sc = _calls("torch.func.stack_module_state")["_API_(models)"]
    assert ["eq", "list(result[0])", "['weight', 'bias']"] in sc["checks"]


@pytest.mark.slow
def test_bincount_is_called_on_counts() -> None:
    sc = _calls("torch.Tensor.bincount")["x.bincount()"]
    assert ["tensor", "result", "torch.tensor([1, 1, 2, 0, 1], dtype=torch.int64)"] in sc["checks"]


@pytest.mark.slow
def test_a_class_reached_another_way_by_its_recipes_is_still_constructed() -> None:
    calls = _calls("torch.Tensor")
    assert "_API_()" in calls
    assert ["tensor", "result", "torch.tensor([], dtype=torch.float32)"] in calls["_API_()"]["checks"]


@pytest.mark.slow
def test_a_name_through_a_hidden_module_reaches_the_parents_sibling() -> None:
    from torchparity.agent.lookup import locate

    hit = locate("torch.autograd.gradcheck.gradgradcheck", "")
    assert hit.obj is torch.autograd.gradgradcheck
    assert hit.path == "torch.autograd.gradgradcheck"
    assert locate("torch.autograd.gradcheck.gradcheck", "").obj is torch.autograd.gradcheck


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
