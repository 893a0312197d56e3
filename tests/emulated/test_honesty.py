"""An emulated run says so everywhere: log header and summary, record, reports; the checklist never
counts it as hardware evidence. Records are written by hand (no torch needed)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from tests.report.report_fixtures import API, target_record
from torchparity.checks.checklist import _Context, check_hardware
from torchparity.cli._progress import summary_table
from torchparity.collect.evidence import render_log
from torchparity.config import load_preset
from torchparity.records.target import TargetRecord, emulated_device, record_from_json
from torchparity.report import build_report, render
from torchparity.store import Store, put, read_run

EMULATED_FACTS = [
    ["torch_npu_version", "0.0.0+emulated"],
    ["torch_npu_emulated", "cpu"],
    ["npu_device_name", "Emulated NPU (CPU)"],
]


def emulated_record(env: str = "dry") -> TargetRecord:
    rec = target_record("a2", "c" * 40, "s" * 64, device_name="Emulated NPU (CPU)", count=2)
    rec = rec.replace(env=env, label=f"v2.7.1@{env}", hardware="")
    facts = [
        f for f in rec.probe.result["facts"] if f[0] not in ("torch_npu_version", "npu_device_name")
    ]
    rec.probe.result["facts"] = facts + EMULATED_FACTS
    return rec.replace(emulated=emulated_device(rec))


def test_the_record_knows_an_emulated_backend_from_the_probe() -> None:
    rec = emulated_record()
    assert rec.emulated == "npu"
    assert emulated_device(target_record("a2", "c" * 40, "s" * 64)) == ""
    assert record_from_json(rec.to_json()).emulated == "npu"


def test_the_log_says_emulated_in_its_header_and_summary() -> None:
    log = render_log(emulated_record())
    header, _, rest = log.partition("===== ENVIRONMENT PROBE =====")
    line = (
        "EMULATED=npu emulated on CPU (torch_npu 0.0.0+emulated): a dry run, not hardware evidence"
    )
    assert "DEVICE=npu (emulated on CPU)\n" + line + "\n" in header
    tail = rest.splitlines()
    at = tail.index("RESULT=PASS")
    assert tail[at - 1] == line
    real = render_log(target_record("a2", "c" * 40, "s" * 64))
    assert "EMULATED" not in real and "DEVICE=npu\n" in real


def _model(tmp_path: Path, records: list[TargetRecord]):
    store = Store(tmp_path / "store")
    rid = store.new_run("run", ["run"])
    put(store, load_preset("torch_npu").task_record(API, None, repo=True), rid, API)
    for rec in records:
        rec = rec.replace(run_id=rid)
        store.add_target(
            rid,
            label=rec.label,
            ref=rec.ref,
            env=rec.env,
            result=rec.result,
            log=render_log(rec).encode(),
            record=rec.to_json(),
        )
    store.finish_run(rid, "PASS", summary={})
    return build_report([read_run(store, rid)])


def test_a_pr_text_from_emulated_runs_only_is_a_dry_run(tmp_path: Path) -> None:
    model = _model(tmp_path, [emulated_record()])
    assert model.conclusion["emulated_only"] is True and model.conclusion["emulated"] == [
        "v2.7.1@dry"
    ]
    zh = render(model, "pr", "zh")
    verification = zh.split("# 【功能验证】", 1)[1].split("# 【test_upstream patch】", 1)[0]
    assert (
        "**试运行（dry run）**" in verification
        and "提交前须替换为真实硬件上的验证证据" in verification
    )
    assert "（仿真：在 CPU 上运行，不是硬件证据）" in verification
    en = render(model, "pr", "en")
    assert "**Dry run**" in en and "replace it by evidence from hardware before submitting" in en
    assert "**试运行（dry run）**" in render(model, "comment", "zh")
    assert "**Dry run**" in render(model, "comment", "en")
    assert "**PASS** (EMULATED)" in render(model, "markdown-summary", "en")
    assert '<property name="emulated" value="npu" />' in render(model, "junit", "en")
    assert json.loads(render(model, "json", "en"))["targets"][0]["emulated"] is True


def test_a_pr_text_with_hardware_evidence_names_the_emulated_targets_apart(tmp_path: Path) -> None:
    model = _model(tmp_path, [target_record("a2", "c" * 40, "s" * 64), emulated_record()])
    assert model.conclusion["emulated_only"] is False
    zh = render(model, "pr", "zh")
    assert "**试运行（dry run）**" not in zh
    assert "注意：目标 v2.7.1@dry 的设备为 CPU 上的仿真（试运行），其证据不计为硬件证据。" in zh


def _hardware(records: list[TargetRecord]):
    ctx = _Context(
        config=load_preset("torch_npu"),
        repo=None,
        base=None,
        head=None,
        rev_range=None,
        targets=[],
        records=records,
    )
    return check_hardware(ctx)


def test_the_checklist_never_counts_emulated_evidence_as_hardware_evidence() -> None:
    only = _hardware([emulated_record()])
    assert only.status == "fail" and "every run is emulated on CPU (v2.7.1@dry)" in only.en
    both = _hardware([emulated_record(), target_record("a2", "c" * 40, "s" * 64)])
    assert both.status == "pass" and "1 target(s) ran on a real device (npu)" in both.en
    assert "not counted: v2.7.1@dry" in both.en and "仿真目标不计入" in both.zh
    assert _hardware([]).status == "n.a."


def test_the_summary_table_says_emulated() -> None:
    console = Console(width=200, record=True)
    console.print(summary_table(1, [emulated_record()], {}))
    text = console.export_text()
    assert "run 1 (EMULATED npu on CPU)" in text and "PASS (emulated)" in text
    assert (
        "EMULATED: 1 of 1 target(s) ran on an emulated npu: a dry run, not hardware evidence"
        in text
    )
