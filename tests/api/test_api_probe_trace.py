"""An API without a call sample is traced over a call the facts probe built (agent/facts/probe_call.py):
through the real agent in another interpreter, and in-process where a probe or its call misbehaves."""

from __future__ import annotations

import io
import sys

import pytest
from rich.console import Console

from torchparity.api import agent_session, resolve_api
from torchparity.api.render import render
from torchparity.cli import main

pytestmark = pytest.mark.slow

CLONE = "torch.autograd.grad_mode.inference_mode.clone"
XLOG1PY = "torch.special.xlog1py"
NO_CALL = "torch.cuda.synchronize"  # a CPU build: no call of it works, and the probe says so


@pytest.fixture(scope="module")
def infos():
    pytest.importorskip("torch")
    with agent_session(sys.executable) as s:
        return {
            i.resolution.query: i
            for i in resolve_api([CLONE, XLOG1PY, NO_CALL], sys.executable, session=s)
        }


def _text(infos_) -> str:
    console = Console(record=True, width=250, file=io.StringIO())
    for part in render(infos_):
        console.print(part)
    return console.export_text()


def test_the_names_have_no_call_sample(agent_resolve, agent_trace):
    for name in (CLONE, XLOG1PY, NO_CALL):
        assert agent_trace.sample_for(agent_resolve.resolve(name)) is None


def test_inference_mode_clone_is_classified_from_the_probes_call(infos):
    info = infos[CLONE]
    t = info.trace
    assert t is not None and t.ok and t.source == "probe" and t.probed
    assert t.target == f"call built by the facts probe for {CLONE}"
    code = dict(t.code)
    assert code["setup"] == "inference_mode = _OWNER_()"
    assert code["call"].strip() == "result = inference_mode.clone()"
    assert info.category == "python-state" and info.classification.evidence == "trace"
    assert "a call the facts probe built (no call sample)" in info.classification.conclusion_en
    assert "facts 探测自动构造的调用" in info.classification.conclusion_zh
    text = _text([info])
    assert "no call sample: the facts probe built this call" in text
    assert "setup:    inference_mode = torch.autograd.grad_mode.inference_mode()" in text
    assert "call:     result = inference_mode.clone()" in text


def test_a_plain_function_is_classified_from_the_probes_call(infos):
    info = infos[XLOG1PY]
    t = info.trace
    assert t is not None and t.ok and t.probed
    assert t.op_count("aten::special_xlog1py", "cpu") == 1
    assert info.category == "operator" and info.classification.evidence == "trace"
    assert "not established" not in info.classification.conclusion_en
    assert "result = torch._C._special.special_xlog1py(" in _text([info])


def test_a_probe_that_finds_no_call_gives_its_reason(infos):
    info = infos[NO_CALL]
    t = info.trace
    assert t is not None and (t.status, t.source) == ("no-sample", "probe")
    assert t.error.startswith(
        f"the facts probe found no working call: no call of {NO_CALL} with candidate receivers"
    )
    assert "\n" not in t.error
    assert "not established" in info.classification.conclusion_en
    assert t.error in info.classification.conclusion_en
    text = _text([info])
    assert "the facts probe found no working call" in text
    assert "not traced (no call sample; pass --test-file" not in text


def test_trace_of_an_api_the_probe_finds_no_call_of_is_one_line(capsys):
    assert main(["trace", NO_CALL]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("ERROR: the facts probe found no working call: no call of")
    assert err[0].endswith(
        "pass the code to run with --call CODE (it sees torch, device, api, owner)"
    )


def test_trace_of_an_api_without_sample_shows_the_probes_call(capsys):
    assert main(["trace", XLOG1PY]) == 0
    text = capsys.readouterr().out
    assert "call built by the facts probe for torch._C._special.special_xlog1py" in text
    assert "no call sample: the facts probe built this call" in text
    assert "call:     result = _API_(input, other)" in text


# -- in-process: what a probe or its call does never ends the job -------------------------------


def _ctx(torch_mod):
    class Ctx:
        torch = torch_mod
        device_type = "cpu"
        backend_module = ""

    return Ctx


def _probe_answers(monkeypatch, probe_call, *scenarios, why=""):
    monkeypatch.setattr(probe_call, "probe_calls", lambda ctx, res: (list(scenarios), [], why))


def test_a_probe_that_raises_is_the_traces_reason(agent_resolve, torch_mod, monkeypatch):
    from torchparity.agent.facts import probe_call

    def broken(ctx, res):
        raise RuntimeError("probe exploded")

    monkeypatch.setattr(probe_call, "probe_calls", broken)
    t = probe_call.trace_probed(_ctx(torch_mod), agent_resolve.resolve(XLOG1PY))
    assert (t["status"], t["source"]) == ("no-sample", "probe")
    assert t["error"] == (
        "the facts probe found no working call: asking the probe failed: RuntimeError: probe exploded"
    )


def test_a_call_that_kills_its_child_is_the_traces_error(agent_resolve, torch_mod, monkeypatch):
    from torchparity.agent.facts import probe_call

    _probe_answers(monkeypatch, probe_call, {"call": "os.kill(os.getpid(), 9)", "statement": True})
    t = probe_call.trace_probed(_ctx(torch_mod), agent_resolve.resolve(XLOG1PY))
    assert (t["status"], t["source"]) == ("error", "probe")
    assert t["error"] == "the probe's call ended without a result (killed by signal SIGKILL)"
    assert t["code"]["call"] == "os.kill(os.getpid(), 9)\n"


def test_a_call_that_hangs_is_stopped(agent_resolve, torch_mod, monkeypatch):
    from torchparity.agent.facts import probe_call

    monkeypatch.setattr(probe_call, "TRACE_SECONDS", 2.0)
    _probe_answers(
        monkeypatch, probe_call, {"call": '__import__("time").sleep(60)', "statement": True}
    )
    t = probe_call.trace_probed(_ctx(torch_mod), agent_resolve.resolve(XLOG1PY))
    assert t["status"] == "error" and t["error"] == "the probe's call did not finish within 2 s"


def test_the_next_call_is_traced_where_the_first_raises_here(agent_resolve, torch_mod, monkeypatch):
    from torchparity.agent.facts import probe_call

    first = {"setup": ["x = torch.ones(2, device=DEVICE)"], "call": "_API_(x, undefined_name)"}
    second = {"setup": ["x = torch.ones(2, device=DEVICE)"], "call": "_API_(x, x)"}
    _probe_answers(monkeypatch, probe_call, first, second)
    t = probe_call.trace_probed(_ctx(torch_mod), agent_resolve.resolve(XLOG1PY))
    assert t["status"] == "ok" and t["code"]["call"] == "result = _API_(x, x)\n"
    assert [o["op"] for o in t["ops"]] == ["aten::special_xlog1py"]


def test_where_forking_is_unsafe_the_call_runs_here_and_the_states_are_put_back(
    agent_resolve, torch_mod, monkeypatch
):
    """A real device runtime started in the job: no fork, so the call runs in the job itself."""
    from torchparity.agent.facts import probe_call

    monkeypatch.setattr(probe_call, "fork_safe", lambda device_type="": False)
    before = torch_mod.get_default_dtype()
    call = {
        "setup": ["x = torch.ones(2, device=DEVICE)"],
        "call": "torch.set_default_dtype(torch.float64)\nresult = _API_(x, x)",
        "statement": True,
    }
    _probe_answers(monkeypatch, probe_call, call)
    t = probe_call.trace_probed(_ctx(torch_mod), agent_resolve.resolve(XLOG1PY))
    assert t["status"] == "ok" and [o["op"] for o in t["ops"]] == ["aten::special_xlog1py"]
    assert torch_mod.get_default_dtype() is before


def test_where_forking_is_unsafe_a_call_that_hangs_is_stopped_by_an_alarm(
    agent_resolve, torch_mod, monkeypatch
):
    from torchparity.agent.facts import probe_call

    monkeypatch.setattr(probe_call, "fork_safe", lambda device_type="": False)
    monkeypatch.setattr(probe_call, "TRACE_SECONDS", 1.0)
    _probe_answers(
        monkeypatch, probe_call, {"call": '__import__("time").sleep(30)', "statement": True}
    )
    t = probe_call.trace_probed(_ctx(torch_mod), agent_resolve.resolve(XLOG1PY))
    assert t["status"] == "error" and t["error"] == "_OutOfTime: did not finish within 1 s"


def test_on_the_emulated_npu_the_probes_call_runs_on_the_device():
    """A forked child cannot use a device the job started (the emulated NPU raises as hardware does):
    on a device the probe's call is traced in the job itself, and its operators run there."""
    from tests.emulated.conftest import NPU

    pytest.importorskip("torch")
    with agent_session(sys.executable, "torch_npu", "npu", environ=NPU.environ()) as s:
        (info,) = resolve_api([XLOG1PY], sys.executable, "torch_npu", "npu", session=s)
    t = info.trace
    assert t is not None and t.probed and (t.status, t.error) == ("ok", "")
    assert t.op_count("aten::special_xlog1py", "npu") == 1 and t.devices == ("npu",)
    assert info.category == "operator" and info.device_type == "npu"
