"""Emulated evidence never passes as hardware evidence in an attestation or a review (issue 36, item 4).

A run whose backend only emulates its device (an NPU emulated on CPU) says so in its sealed target
records (``emulated``); the attestation's predicate carries it, and ``review`` names it in every verdict
on that evidence: a PR text that quotes an emulated run's log, or comes with its attestation, and does
not say the evidence is emulated is contradicted. Before, ``attest`` wrote ``"result": "pass"`` with no
mark, and a PR text with its emulation lines deleted reviewed clean against its bundle.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.review import texts
from tests.review.fixtures import TEST_FILE, BackendRepo
from torchparity.collect.evidence import render_log
from torchparity.config import load_preset
from torchparity.records.target import Step, TargetRecord, TestOutcome, emulated_device
from torchparity.records.target import TestFile as RecordedFile
from torchparity.review import build_statement, review_text, write_attestation
from torchparity.review.records import Review
from torchparity.store import Store
from torchparity.store.bundle import export_bundle

CFG = load_preset("torch_npu")
TESTS = ("test_enable_grad", "test_no_grad", "test_set_grad_enabled_clone")
LABEL = "v2.7.1@dry"


def emulated_record(r: BackendRepo, emulated: bool = True) -> TargetRecord:
    facts: list[list[Any]] = [
        ["python_executable", "/usr/bin/python3"],
        ["torch_version", "2.7.1+cpu"],
        ["torch_npu_version", "0.0.0+emulated" if emulated else "2.7.1"],
        ["device_type", "npu"],
        ["npu_available", True],
        ["npu_device_count", 1],
    ]
    if emulated:
        facts.insert(3, ["torch_npu_emulated", "cpu"])
    probe = Step(
        name="probe",
        status="OK",
        exit_code=0,
        output="".join(f"{k}={v}\n" for k, v in facts),
        result={"device_type": "npu", "facts": facts},
    )
    rec = TargetRecord(
        label=LABEL if emulated else "v2.7.1@a2",
        ref="v2.7.1",
        commit=r.merge,
        env="dry" if emulated else "a2",
        python="/usr/bin/python3",
        mode="warm",
        device="npu",
        probe=probe,
        test_files=[
            RecordedFile(path=TEST_FILE, abs_path=f"/work/v2.7.1/{TEST_FILE}", sha256=r.file_sha256)
        ],
        full=[
            Step(
                name="full",
                status="OK",
                exit_code=0,
                command=f"python {TEST_FILE} -v",
                tests=[TestOutcome(f"TestGrad.{t}", "passed") for t in TESTS],
                verdict="PASS",
            )
        ],
        result="PASS",
    )
    return rec.replace(emulated=emulated_device(rec))


@pytest.fixture
def dry_run(tmp_path: Path, backend: BackendRepo) -> tuple[Store, int, str]:
    """A store with one finished run whose only target ran on an emulated NPU: (store, run, log SHA-256)."""
    store = Store(tmp_path / "store")
    rid = store.new_run("verify", ["verify", texts.API, "--emulate", "npu"])
    rec = emulated_record(backend)
    assert rec.emulated == "npu"
    row = store.add_target(
        rid,
        label=rec.label,
        ref=rec.ref,
        env=rec.env,
        result=rec.result,
        log=render_log(rec).encode(),
        record=rec.to_json(),
    )
    store.finish_run(rid, "PASS")
    assert row.log_sha
    return store, rid, row.log_sha


def _stating_emulation(text: str) -> str:
    """The PR text as torchparity writes it for an emulated run: it says so."""
    return text + (
        "\nNote: the device of v2.7.1@dry was emulated on CPU (a dry run); that evidence does not "
        "count as hardware evidence.\n\n```text\nDEVICE=npu (emulated on CPU)\nEMULATED=npu emulated "
        "on CPU (torch_npu 0.0.0+emulated): a dry run, not hardware evidence\n```\n"
    )


def _deleted(text: str) -> str:
    """The same text with its emulation lines deleted."""
    return "".join(
        line for line in text.splitlines(keepends=True) if not re.search("emulat", line, re.I)
    )


def _rows(review: Review, kind: str) -> list[tuple[str, str, str]]:
    return [(v.text, v.verdict, v.detail) for v in review.verdicts if v.kind == kind]


def test_the_attestation_of_an_emulated_run_is_marked_and_never_a_plain_pass(
    backend: BackendRepo, dry_run: tuple[Store, int, str]
) -> None:
    store, rid, log_sha = dry_run
    pred = build_statement(store, rid)["predicate"]
    assert (
        pred["result"] == "warn"
    )  # every test passed, on an emulated device: not a pass of the hardware
    assert pred["emulated"] == [
        {
            "target": LABEL,
            "device": "npu",
            "note": "npu emulated on CPU: a dry run, not hardware evidence",
        }
    ]
    assert pred["passedTests"] == [] and pred["warnedTests"] == [
        f"{LABEL}::TestGrad.{t}" for t in TESTS
    ]
    for item in pred["configuration"]:
        assert item["annotations"]["emulated"] == "npu"


def test_a_hardware_run_attests_pass_with_no_emulation(
    tmp_path: Path, backend: BackendRepo
) -> None:
    store = Store(tmp_path / "store")
    rid = store.new_run("verify", ["verify"])
    rec = emulated_record(backend, emulated=False)
    store.add_target(
        rid,
        label=rec.label,
        ref=rec.ref,
        env=rec.env,
        result=rec.result,
        log=render_log(rec).encode(),
        record=rec.to_json(),
    )
    pred = build_statement(store, rid)["predicate"]
    assert pred["result"] == "pass" and pred["emulated"] == []
    assert "emulated" not in pred["configuration"][0]["annotations"]


def test_review_of_an_emulated_attestation_names_the_emulation(
    tmp_path: Path, backend: BackendRepo, dry_run: tuple[Store, int, str]
) -> None:
    store, rid, log_sha = dry_run
    made = write_attestation(build_statement(store, rid), tmp_path / "att.json")
    text = _stating_emulation(texts.english_shape(dict(texts.truth(backend), log_sha=log_sha)))
    said = review_text(text, backend.path, CFG, merge=backend.merge, attestation=made.path)
    [(_, verdict, detail)] = [r for r in _rows(said, "attestation") if r[0].startswith("emulated")]
    assert verdict == "verified" and "emulated on CPU" in detail and "as the text says" in detail
    hidden = review_text(
        _deleted(text), backend.path, CFG, merge=backend.merge, attestation=made.path
    )
    [(row, verdict, detail)] = [
        r for r in _rows(hidden, "attestation") if r[0].startswith("emulated")
    ]
    assert row == f"emulated {LABEL}" and verdict == "contradicted"
    assert "not hardware evidence" in detail and "the text does not say so" in detail
    assert not hidden.ok


def test_an_emulated_pr_with_its_emulation_lines_deleted_does_not_review_clean(
    tmp_path: Path, backend: BackendRepo, dry_run: tuple[Store, int, str]
) -> None:
    store, rid, log_sha = dry_run
    bundle = export_bundle(store, [rid], tmp_path / "runs.zip")
    text = _stating_emulation(texts.english_shape(dict(texts.truth(backend), log_sha=log_sha)))
    said = review_text(text, backend.path, CFG, merge=backend.merge, bundle=bundle)
    [(_, verdict, detail)] = _rows(said, "evidence")
    assert verdict == "verified" and "emulated on CPU" in detail
    assert said.ok
    hidden = review_text(_deleted(text), backend.path, CFG, merge=backend.merge, bundle=bundle)
    [(_, verdict, detail)] = _rows(hidden, "evidence")
    assert (
        verdict == "contradicted"
        and f"target {LABEL}" in detail
        and "npu emulated on CPU" in detail
    )
    assert "the text does not say so" in detail
    assert not hidden.ok
    # the bundle's own row says it holds emulated evidence
    assert "emulated" in _rows(hidden, "bundle")[0][2]
