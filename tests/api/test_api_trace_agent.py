"""The dispatch recorder in-process: code traces against the real torch (CPU build)."""

from __future__ import annotations

import pytest


def _trace(agent_trace, torch_mod, call, setup="", teardown="", ns=None):
    return agent_trace.trace_code(torch_mod, "cpu", "test", call, setup, teardown, ns)


@pytest.mark.slow
def test_torch_add_dispatches_aten_add_on_cpu(agent_trace, torch_mod):
    t = _trace(agent_trace, torch_mod, "torch.add(a, b)", "a = torch.ones(2)\nb = torch.ones(2)")
    assert t["status"] == "ok"
    assert t["ops"] == [{"op": "aten::add.Tensor", "devices": ["cpu"], "count": 1}]
    assert t["total_ops"] == 1
    assert t["device_tensors_created"] == 1
    assert t["devices"] == ["cpu"]


@pytest.mark.slow
def test_setup_is_not_traced_and_counts_group(agent_trace, torch_mod):
    t = _trace(
        agent_trace,
        torch_mod,
        "for _ in range(3):\n    a * b",
        "a = torch.ones(2)\nb = torch.ones(2)",
    )
    assert t["ops"] == [{"op": "aten::mul.Tensor", "devices": ["cpu"], "count": 3}]


@pytest.mark.slow
def test_in_place_ops_create_no_tensor(agent_trace, torch_mod):
    t = _trace(agent_trace, torch_mod, "a.add_(b)", "a = torch.ones(2)\nb = torch.ones(2)")
    assert t["ops"][0]["op"] == "aten::add_.Tensor"
    assert t["device_tensors_created"] == 0


@pytest.mark.slow
def test_pure_python_state_dispatches_nothing(agent_trace, torch_mod):
    before = torch_mod.is_grad_enabled()
    t = _trace(
        agent_trace,
        torch_mod,
        "with torch.autograd.grad_mode.set_grad_enabled(False).clone():\n    pass",
        teardown=f"torch.set_grad_enabled({before!r})",
    )
    assert t["status"] == "ok"
    assert (t["total_ops"], t["device_tensors_created"], t["ops"]) == (0, 0, [])
    assert torch_mod.is_grad_enabled() is before


@pytest.mark.slow
def test_profiler_bookkeeping_is_counted_apart(agent_trace, torch_mod):
    t = _trace(
        agent_trace,
        torch_mod,
        "opt.zero_grad(set_to_none=False)",
        "p = torch.nn.Parameter(torch.ones(2))\np.grad = torch.ones(2)\n"
        "opt = torch.optim.SGD([p], lr=0.1)",
    )
    assert [o["op"] for o in t["ops"]] == ["aten::zero_"]
    assert all(o["op"].startswith("profiler::") for o in t["ignored_ops"])


@pytest.mark.slow
def test_a_raising_call_keeps_what_ran(agent_trace, torch_mod):
    t = _trace(agent_trace, torch_mod, "torch.ones(2) + 1\nraise ValueError('boom')")
    assert t["status"] == "error"
    assert t["error"] == "ValueError: boom"
    assert t["total_ops"] >= 1


@pytest.mark.slow
def test_setup_failure_is_reported(agent_trace, torch_mod):
    t = _trace(agent_trace, torch_mod, "pass", setup="undefined_name")
    assert t["status"] == "error" and t["error"].startswith("setup failed: NameError")


@pytest.mark.slow
def test_without_dispatch_mode_the_trace_says_unavailable(agent_trace, torch_mod, monkeypatch):
    monkeypatch.setattr(
        agent_trace, "MODE_HOMES", (("torch.no_such_module_here", "TorchDispatchMode"),)
    )
    t = _trace(agent_trace, torch_mod, "torch.add(torch.ones(1), 1)")
    assert t["status"] == "unavailable"
    assert "TorchDispatchMode" in t["error"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,sample_op",
    [
        ("torch.add", "aten::add.Tensor"),
        ("torch.Tensor.add_", "aten::add_.Tensor"),
        ("torch.nn.functional.relu", "aten::relu"),
    ],
)
def test_call_samples_use_the_resolved_object(
    agent_resolve, agent_trace, torch_mod, name, sample_op
):
    class Ctx:
        torch = torch_mod
        device_type = "cpu"
        backend_module = ""

    t = agent_trace.trace_sample(Ctx, agent_resolve.resolve(name))
    assert t["status"] == "ok"
    assert [o["op"] for o in t["ops"]] == [sample_op]


@pytest.mark.slow
def test_sample_lookup_follows_aliases(agent_resolve, agent_trace):
    res = agent_resolve.resolve("torch.autograd.set_grad_enabled")  # alias spelling
    assert (
        agent_trace.sample_for(res)
        is agent_trace.SAMPLES["torch.autograd.grad_mode.set_grad_enabled"]
    )
    assert (
        agent_trace.sample_for(agent_resolve.resolve("torch.Tensor.shape"))
        is agent_trace._TENSOR_READ
    )
    assert agent_trace.sample_for(agent_resolve.resolve("torch.nn.Linear")) is None


@pytest.fixture
def optim_backend(tmp_path, monkeypatch):
    """A backend module with its own ``Optimizer.zero_grad``: the short form names two objects with it."""
    import importlib
    import sys

    (tmp_path / "fakebk_optim.py").write_text(
        "class Optimizer:\n    def zero_grad(self):\n        return None\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("fakebk_optim")
    yield "fakebk_optim"
    sys.modules.pop("fakebk_optim", None)


def _ctx(torch_mod, backend=""):
    class Ctx:
        torch = torch_mod
        device_type = "cpu"
        backend_module = backend

    return Ctx


@pytest.mark.slow
def test_a_name_ambiguous_only_through_the_backend_is_answered_unresolved(
    agent_resolve, agent_trace, torch_mod, optim_backend
):
    from torchparity.api.resolve import unresolved_error

    assert agent_resolve.resolve("Optimizer.zero_grad")["canonical"].startswith(
        "torch.optim"
    )  # torch alone: one
    answer = agent_trace.op_trace(_ctx(torch_mod, optim_backend), {"api": "Optimizer.zero_grad"})
    item = answer["unresolved"]
    assert item["status"] == "ambiguous" and item["query"] == "Optimizer.zero_grad"
    assert "fakebk_optim.Optimizer.zero_grad" in item["candidates"]
    msg = str(unresolved_error([item]))
    assert msg.startswith("API 'Optimizer.zero_grad' is ambiguous: it names 2 different objects")


@pytest.mark.slow
@pytest.mark.parametrize("args", [{}, {"call": "   \n "}, {"api": "torch.add", "call": " "}])
def test_an_empty_request_is_refused_with_a_reason(agent_trace, torch_mod, args):
    answer = agent_trace.op_trace(_ctx(torch_mod), dict(args))
    assert answer["trace"] is None and answer["exit_code"] == 2
    assert answer["error"].startswith(("nothing to trace", "the code to trace is empty"))
