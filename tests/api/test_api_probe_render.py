"""A trace over a call the facts probe built (no call sample): its record, its class and its text.

No torch here: records made by hand, and ``resolve`` over the real agent's recorded answers
(tests/fakeagent.py's ``agent`` fixture; ``TORCHPARITY_RECORD_AGENT=1`` records them afresh).
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tests.api.api_fixtures import clone_resolution
from torchparity.api import ApiInfo, OpCount, Resolution, Trace, classify
from torchparity.api.render import detail, probe_code
from torchparity.cli import main

CLONE = "torch.autograd.grad_mode.inference_mode.clone"
NO_CALL = "torch.cuda.synchronize"
REASON = (
    "the facts probe found no working call: no call of torch.cuda.synchronize with candidate "
    "receivers and arguments gave a result or an effect a test can hold (3 tried)"
)


def _res(**kw: Any) -> Resolution:
    return clone_resolution(CLONE, "torch/autograd/grad_mode.py:297", **kw)


PROBED = Trace(
    target=f"call built by the facts probe for {CLONE}",
    status="ok",
    device_type="cpu",
    code=(
        ("setup", "inference_mode = _OWNER_()"),
        ("call", "result = inference_mode.clone()\n"),
        ("teardown", ""),
    ),
    source="probe",
)
NOTHING = Trace(
    target=f"call built by the facts probe for {NO_CALL}",
    status="no-sample",
    device_type="cpu",
    error=REASON,
    source="probe",
)


def _detail(res: Resolution, trace: Trace | None) -> str:
    info = ApiInfo(res, classify(res, trace, "cpu"), trace, "cpu", (trace,) if trace else ())
    console = Console(record=True, width=250, file=io.StringIO())
    console.print(detail(info))
    return console.export_text()


def test_the_record_says_where_its_call_came_from():
    doc = PROBED.to_json()
    assert doc["source"] == "probe" and doc["code"]["setup"] == "inference_mode = _OWNER_()"
    back = Trace.from_json(doc)
    assert back == PROBED and back.probed
    sample = replace(PROBED, source="sample")
    assert not sample.probed and Trace.from_json(sample.to_json()).source == "sample"
    assert "source" not in replace(PROBED, source="").to_json()  # code a user gave: as before
    assert Trace.from_json({"target": "t", "status": "ok"}).source == ""


def test_a_probed_call_classifies_and_the_conclusion_says_whose_call_it_was():
    c = classify(_res(), PROBED, "cpu")
    assert c.category == "python-state" and c.evidence == "trace"
    assert "the dispatch trace of a call the facts probe built (no call sample)" in c.conclusion_en
    assert "facts 探测自动构造的调用（无调用样例）的分派跟踪" in c.conclusion_zh
    assert "call sample shows" not in c.conclusion_en
    added = replace(
        PROBED,
        ops=(OpCount("aten::special_xlog1py", ("cpu",), 1),),
        total_ops=1,
        tensors_created=(("cpu", 1),),
        devices=("cpu",),
    )
    op = classify(_res(kind="builtin", source="C extension", owner_class=None), added, "cpu")
    assert op.category == "operator"
    assert "a call the facts probe built" in op.conclusion_en


def test_a_probe_that_found_no_call_gives_its_reason_and_no_class():
    c = classify(_res(kind="function", owner_class=None, owner_kind=None), NOTHING, "cpu")
    assert c.category == "other" and c.evidence == "resolution"
    assert "not established" in c.conclusion_en
    assert REASON in c.conclusion_en and REASON in c.conclusion_zh
    assert "did not complete" not in c.conclusion_en  # nothing ran: not a failed trace


def test_the_text_shows_the_probes_call_with_the_api_named():
    text = _detail(_res(), PROBED)
    assert "no call sample: the facts probe built this call (setup untraced)" in text
    assert "setup:    inference_mode = torch.autograd.grad_mode.inference_mode()" in text
    assert "call:     result = inference_mode.clone()" in text
    assert "_OWNER_" not in text
    assert probe_code(PROBED) == [
        "setup:    inference_mode = _OWNER_()",
        "call:     result = inference_mode.clone()",
    ]


def test_the_text_of_a_probe_without_a_call_says_why():
    text = _detail(_res(kind="function", owner_class=None, owner_kind=None), NOTHING)
    assert f"not traced (no call sample; {REASON}); pass --test-file" in text
    old = _detail(_res(), None)  # no trace at all (--no-trace answers, old records): as before
    assert "not traced (no call sample; pass --test-file" in old


def test_resolve_over_recorded_answers(agent: object, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", CLONE, NO_CALL, "--device", "cpu", "--json"]) == 0
    docs = {d["query"]: d for d in json.loads(capsys.readouterr().out)}
    clone = docs[CLONE]
    assert clone["trace"]["source"] == "probe" and clone["trace"]["status"] == "ok"
    assert clone["trace"]["code"]["call"].strip() == "result = inference_mode.clone()"
    assert clone["classification"]["category"] == "python-state"
    assert "not established" not in clone["classification"]["conclusion_en"]
    synchronize = docs[NO_CALL]
    assert (synchronize["trace"]["status"], synchronize["trace"]["source"]) == (
        "no-sample",
        "probe",
    )
    assert synchronize["trace"]["error"].startswith("the facts probe found no working call: ")
    assert "not established" in synchronize["classification"]["conclusion_en"]
    assert main(["resolve", CLONE, NO_CALL, "--device", "cpu"]) == 0
    text = capsys.readouterr().out
    assert "no call sample: the facts probe built this call" in text
    assert "call:     result = inference_mode.clone()" in text
    assert "the facts probe found no working call: no call of torch.cuda.synchronize" in text


def test_the_report_comment_says_the_probe_built_the_call(tmp_path: Path) -> None:
    from tests.report.report_fixtures import build_fixture, model_of
    from torchparity.report.render import render

    doc = model_of(build_fixture(tmp_path, with_records=True)).to_json()
    assert doc["resolve"]["trace"]["tests_run"] is None  # a call's trace, not tests'
    said = {
        lang: [line for line in render(doc, "comment", lang).splitlines() if line.startswith("- ")]
        for lang in ("en", "zh")
    }
    assert "- Dispatch trace of the call sample: dispatched 0 ATen op(s)" in "\n".join(said["en"])
    doc["resolve"]["trace"]["source"] = "probe"
    en = render(doc, "comment", "en")
    zh = render(doc, "comment", "zh")
    assert "- Dispatch trace of a call the facts probe built (no call sample): dispatched" in en
    assert "the call sample:" not in en
    assert "- facts 探测自动构造的调用（无调用样例）的分发追踪：共分发" in zh
