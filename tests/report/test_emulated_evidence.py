"""Emulation is a fact of the sealed records, and every listing says it (issue 36, item 4).

A whole ``verify --emulate npu`` runs over the fake runner (no interpreter): its probe answers as torchparity's
emulated ``torch_npu`` does (``torch_npu_emulated=cpu``). Before, ``runs`` listed the target as a plain
``PASS`` and ``attest`` printed ``result pass``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.fakeagent import RecordedAgent, load
from tests.report.report_fixtures import target_record
from torchparity.cli import main
from torchparity.collect.evidence import render_log
from torchparity.exec.fake import Answer, answering
from torchparity.exec.runners import Job
from torchparity.records.target import emulated_device
from torchparity.store import Store

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
EMULATED_FACTS = [["torch_npu_version", "0.0.0+emulated"], ["torch_npu_emulated", "cpu"]]


def _emulated_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    recorded = {r.op: r.answer for r in load("verify_seed_api")}

    def probe(job: Job) -> Answer:
        facts = [
            [k, "npu" if k == "device_type" else v] for k, v in recorded["probe"].result["facts"]
        ]
        facts[4:4] = EMULATED_FACTS
        return Answer(
            result=dict(recorded["probe"].result, facts=facts, device_type="npu"),
            output="".join(f"{k}={v}\n" for k, v in facts),
        )

    store = str(tmp_path / "store")
    with answering(RecordedAgent.of("verify_seed_api", probe=probe)):
        main(["verify", API, "--python", sys.executable, "--emulate", "npu", "--store", store])
    capsys.readouterr()
    return store


def test_runs_lists_an_emulated_target_as_emulated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    store = _emulated_verify(tmp_path, capsys)
    [target] = Store(store, create=False).targets(1)
    assert target.result == "PASS"  # the tests passed, on the emulation
    assert main(["runs", "--store", store]) == 0
    table = capsys.readouterr().out
    assert "=PASS (emulated npu)" in table and "=PASS │" not in table
    assert table.count("(emulated npu)") == 2  # the target, and the run's result column
    assert main(["runs", "--store", store, "--json"]) == 0
    [run] = json.loads(capsys.readouterr().out)
    assert run["emulated"] == ["npu"] and run["targets"][0]["emulated"] == "npu"


def test_runs_lists_a_hardware_target_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = Store(tmp_path / "store")
    rid = st.new_run("run", ["run"])
    rec = target_record("a2", "c" * 40, "s" * 64)
    assert emulated_device(rec) == ""
    st.add_target(
        rid,
        label=rec.label,
        ref=rec.ref,
        env=rec.env,
        result=rec.result,
        log=render_log(rec).encode(),
        record=rec.to_json(),
    )
    st.finish_run(rid, "PASS")
    assert main(["runs", "--store", str(tmp_path / "store"), "--json"]) == 0
    [run] = json.loads(capsys.readouterr().out)
    assert run["emulated"] == [] and run["targets"][0]["emulated"] == ""


def test_attest_prints_the_emulation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    st = Store(tmp_path / "store")
    rid = st.new_run("run", ["run"])
    rec = target_record("a2", "c" * 40, "s" * 64)
    assert rec.probe is not None
    rec.probe.result["facts"] += EMULATED_FACTS
    rec = rec.replace(emulated=emulated_device(rec))
    st.add_target(
        rid,
        label=rec.label,
        ref=rec.ref,
        env=rec.env,
        result=rec.result,
        log=render_log(rec).encode(),
        record=rec.to_json(),
    )
    st.finish_run(rid, "PASS")
    out = tmp_path / "att.json"
    assert main(["attest", str(rid), "--output", str(out), "--store", str(tmp_path / "store")]) == 0
    printed = capsys.readouterr().out
    assert "result warn" in printed and "emulated: v2.7.1@a2 (npu emulated on CPU" in printed
    assert json.loads(out.read_text())["predicate"]["emulated"][0]["target"] == "v2.7.1@a2"


def test_an_emulated_pass_is_no_claim_of_consistency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _emulated_verify(tmp_path, capsys)
    for kind, lang, said in (
        ("comment", "zh", "这是试运行，不是硬件证据，尚不能据此认定"),
        ("comment", "en", "a dry run, not hardware evidence;"),
    ):
        assert main(["report", "1", "--kind", kind, "--lang", lang, "--store", store]) == 0
        text = capsys.readouterr().out
        assert said in text
        assert "证据支持" not in text and "the evidence supports" not in text
    assert main(["report", "1", "--kind", "json", "--store", store]) == 0
    assert json.loads(capsys.readouterr().out)["conclusion"]["consistent"] is False
