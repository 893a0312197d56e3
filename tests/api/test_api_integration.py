"""resolve_api / trace_file / the CLI through the real agent in another interpreter (torch CPU)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from rich.console import Console

from torchparity.api import UnresolvedApi, agent_session, resolve_api, trace_call, trace_file
from torchparity.api.render import render
from torchparity.cli import main
from torchparity.errors import EnvironmentBroken
from torchparity.store import Store

pytestmark = pytest.mark.slow

SEED = [
    "torch.autograd.grad_mode.set_grad_enabled.clone",
    "torch.autograd.grad_mode.set_multithreading_enabled.clone",
]
SPEC_KEYS = {
    "query",
    "canonical",
    "aliases",
    "kind",
    "signature",
    "module",
    "source",
    "public",
    "public_reason",
    "docs_url",
    "owner_class",
    "classification",
    "trace",
    "torch_version",
}


@pytest.fixture(scope="module")
def session():
    pytest.importorskip("torch")
    with agent_session(sys.executable) as s:
        yield s


@pytest.fixture(scope="module")
def infos(session):
    names = SEED + [
        "torch.add",
        "torch.cuda.Event",
        "Optimizer.zero_grad",
        "torch._utils._get_device_index",
    ]
    return {i.resolution.query: i for i in resolve_api(names, sys.executable, session=session)}


def test_seed_apis_are_python_state_with_zero_ops(infos):
    for name in SEED:
        info = infos[name]
        assert info.category == "python-state", info.classification
        assert info.trace is not None and info.trace.ok
        assert info.trace.total_ops == 0 and info.trace.device_tensors_created == 0
        assert info.resolution.source.startswith("torch/autograd/grad_mode.py:")
        assert "无需设备专用适配" in info.classification.conclusion_zh


def test_torch_add_dispatches_aten_add_on_cpu(infos):
    info = infos["torch.add"]
    assert info.category == "operator"
    assert info.trace.op_count("aten::add.Tensor", "cpu") == 1
    assert "aten::add.Tensor×1" in info.classification.conclusion_en


def test_device_runtime_on_a_cpu_build(infos):
    info = infos["torch.cuda.Event"]
    assert info.category == "device-runtime"
    assert info.trace.status == "error"  # a CPU build cannot create a CUDA event; said, not hidden
    assert info.resolution.canonical == "torch.cuda.streams.Event"


def test_private_api_resolves_with_reason(infos):
    r = infos["torch._utils._get_device_index"].resolution
    assert (r.public, r.docs_url) == (False, "")
    assert "'_utils'" in r.public_reason
    assert infos["torch._utils._get_device_index"].category == "python-state"


def test_json_shape(infos):
    doc = infos["Optimizer.zero_grad"].to_json()
    assert SPEC_KEYS <= set(doc)
    assert doc["canonical"] == "torch.optim.optimizer.Optimizer.zero_grad"
    assert set(doc["classification"]) >= {"category", "conclusion_zh", "conclusion_en"}
    assert set(doc["trace"]) >= {"target", "ops", "total_ops", "device_tensors_created", "devices"}
    assert doc["trace"]["ops"][0] == {"op": "aten::zero_", "devices": ["cpu"], "count": 1}
    assert doc["traces"] == [doc["trace"]]  # only the call sample ran: it is ``trace``
    assert (
        type(infos["Optimizer.zero_grad"]).from_json(doc) == infos["Optimizer.zero_grad"]
    )  # lossless
    json.dumps(doc, ensure_ascii=False)


def test_the_apis_tests_are_the_classifying_trace(session, test_files):
    (info,) = resolve_api(
        SEED[:1], sys.executable, test_files=[test_files["seed"]], session=session
    )
    assert info.category == "python-state"
    assert info.trace.tests_run == 1 and info.trace.successful
    assert [t.id for t in info.trace.tests] == [
        "test_grad_mode_clone_fixture.TestGradModeClone.test_set_grad_enabled_clone"
    ]
    assert "测试" in info.classification.conclusion_zh
    assert len(info.traces) == 2  # the call sample and the file
    assert [t["target"] for t in info.to_json()["traces"]][1].startswith(
        "test_grad_mode_clone_fixture.py"
    )


def test_trace_file_shows_mul_on_cpu(session, test_files):
    t = trace_file(test_files["mul"], sys.executable, ["mul_cpu"], session=session)
    assert t.ok and t.successful and t.tests_run == 1
    assert t.op_count("aten::mul.Tensor", "cpu") == 1
    assert t.pattern == "mul_cpu"
    everything = trace_file(test_files["mul"], sys.executable, session=session)
    per_test = {x.id.rsplit(".", 1)[1]: x.ops for x in everything.tests}
    assert per_test["test_grad_mode_only"] == 0 and per_test["test_mul_cpu_tensors"] >= 1


def test_unknown_name_raises_with_suggestions(session):
    with pytest.raises(UnresolvedApi) as info:
        resolve_api(["torch.nn.functional.relux"], sys.executable, session=session)
    assert "torch.nn.functional.relu" in info.value.suggestions
    assert int(info.value.exit_code) == 2


def test_fresh_runner_gives_the_same_answer():
    pytest.importorskip("torch")
    t = trace_call("torch.add", sys.executable, "api(torch.ones(2), torch.ones(2))", mode="fresh")
    assert t.op_count("aten::add.Tensor", "cpu") == 1


def test_cli_unknown_exits_2_with_suggestions(capsys):
    assert main(["resolve", "torch.nn.functional.relux", "--no-trace"]) == 2
    err = capsys.readouterr().err
    assert "did you mean" in err and "torch.nn.functional.relu" in err


def test_cli_json_and_store(tmp_path, capsys):
    store = tmp_path / "store"
    assert (
        main(["resolve", "torch.set_grad_enabled", "Tensor.ndim", "--json", "--store", str(store)])
        == 0
    )
    docs = json.loads(capsys.readouterr().out)
    assert [d["canonical"] for d in docs] == [
        "torch.autograd.grad_mode.set_grad_enabled",
        "torch.Tensor.ndim",
    ]
    assert docs[0]["classification"]["category"] == "python-state"
    assert "torch.set_grad_enabled" in docs[0]["aliases"]
    kept = Store(store).latest_record("resolve", "torch.Tensor.ndim")
    assert kept is not None and kept["body"]["kind"] == "property"


def test_table_for_people(infos):
    console = Console(record=True, width=200, file=io.StringIO())
    for part in render(list(infos.values())):
        console.print(part)
    text = console.export_text()
    assert "python-state" in text and "aten::add.Tensor" in text and "结论" in text
    assert "torch/autograd/grad_mode.py:" in text


def test_cli_trace_file_and_call(test_files, capsys):
    assert main(["trace", "--file", str(test_files["mul"]), "-k", "mul_cpu", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"op": "aten::mul.Tensor", "devices": ["cpu"], "count": 1} in doc["ops"]
    assert main(["trace", "--call", "torch.ones(2) + 1\nraise ValueError('x')", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "error" and doc["error"] == "ValueError: x"
    assert main(["trace", "--call", "def broken(:"]) == 2


def test_trace_of_an_unknown_api_is_a_usage_error(capsys):
    assert main(["trace", "torch.nn.functional.relux", "--call", "api(torch.ones(1))"]) == 2
    assert "did you mean" in capsys.readouterr().err


def test_cli_blank_call_is_a_usage_error(capsys):
    assert main(["trace", "--call", "   "]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ERROR: --call is empty")


def test_a_job_that_dies_keeps_its_log_and_names_it():
    pytest.importorskip("torch")
    code = (
        "import os, sys\nsys.stderr.write('dying on purpose\\n')\nsys.stderr.flush()\nos._exit(7)"
    )
    with pytest.raises(EnvironmentBroken) as info:
        trace_call(None, sys.executable, code)
    msg = str(info.value)
    assert "ended FAIL (exit 7)" in msg and "--debug" not in msg
    kept = Path(msg.rsplit("its log (with the traceback): ", 1)[1])
    try:
        assert "dying on purpose" in kept.read_text()
    finally:
        kept.unlink()
