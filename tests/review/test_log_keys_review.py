"""``review`` rejects an evidence log that holds a key the tool writes once twice, pasted in the text or
quoted from a bundle (issue 36, item 5): such a line was injected (a value that started a new line in a log
written before values were escaped) or the log was edited."""

from __future__ import annotations

from pathlib import Path

from tests.review import texts
from tests.review.fixtures import TEST_FILE, BackendRepo
from torchparity.collect.evidence import render_log
from torchparity.config import load_preset
from torchparity.records.target import Step, TargetRecord, TestOutcome
from torchparity.records.target import TestFile as RecordedFile
from torchparity.review import review_text
from torchparity.review.records import Review
from torchparity.store import Store
from torchparity.store.bundle import export_bundle

CFG = load_preset("torch_npu")
#: what a log written before values were escaped held for an interpreter path with newlines in it
INJECTED = "\nFULL_TEST_VERDICT=PASS\nRESULT=PASS"


def _record(r: BackendRepo, python: str = "/usr/bin/python3") -> TargetRecord:
    tests = [
        TestOutcome(f"TestGrad.{t}", "failed" if t == "test_no_grad" else "passed")
        for t in ("test_enable_grad", "test_no_grad")
    ]
    return TargetRecord(
        label="v2.7.1-cpu",
        ref="v2.7.1",
        commit=r.merge,
        env="cpu",
        python=python,
        mode="warm",
        device="cpu",
        test_files=[
            RecordedFile(path=TEST_FILE, abs_path=f"/work/v2.7.1/{TEST_FILE}", sha256=r.file_sha256)
        ],
        full=[
            Step(
                name="full",
                status="FAIL",
                exit_code=1,
                command=f"{python} {TEST_FILE} -v",
                tests=tests,
                verdict="FAIL",
            )
        ],
        result="FAIL",
    )


def _forged(log: str) -> str:
    """The log as the old writer wrote it for an interpreter path holding ``INJECTED``."""
    return log.replace("PYTHON=/usr/bin/python3\n", f"PYTHON=/opt{INJECTED}/python3\n", 1)


def _evidence_rows(review: Review) -> list[tuple[str, str]]:
    return [(v.verdict, v.detail) for v in review.verdicts if v.kind == "evidence"]


def test_a_pasted_log_with_a_duplicated_key_is_rejected(backend: BackendRepo) -> None:
    log = render_log(_record(backend))
    text = texts.english_shape(texts.truth(backend)) + "\n## Evidence log\n\n```text\n{}```\n"
    clean = review_text(text.format(log), backend.path, CFG, merge=backend.merge)
    assert not [
        v for v in clean.verdicts if v.kind == "evidence" and v.verdict == "contradicted"
    ], clean.verdicts
    forged = review_text(text.format(_forged(log)), backend.path, CFG, merge=backend.merge)
    rows = [(v.verdict, v.detail, v.text) for v in forged.verdicts if v.kind == "evidence"]
    assert rows and rows[0][0] == "contradicted", forged.verdicts
    assert "RESULT= is written twice" in rows[0][1] and rows[0][2] == "RESULT=FAIL"
    assert not forged.ok


def test_a_bundled_log_with_a_duplicated_key_is_rejected(
    tmp_path: Path, backend: BackendRepo
) -> None:
    store = Store(tmp_path / "store")
    rid = store.new_run("verify", ["verify", texts.API])
    rec = _record(backend)
    row = store.add_target(
        rid,
        label=rec.label,
        ref=rec.ref,
        env=rec.env,
        result=rec.result,
        log=_forged(render_log(rec)).encode(),
        record=rec.to_json(),
    )
    store.finish_run(rid, "FAIL")
    assert row.log_sha
    bundle = export_bundle(store, [rid], tmp_path / "runs.zip")
    text = texts.english_shape(dict(texts.truth(backend), log_sha=row.log_sha))
    review = review_text(text, backend.path, CFG, merge=backend.merge, bundle=bundle)
    [(verdict, detail)] = _evidence_rows(review)
    assert verdict == "contradicted" and "RESULT= is written twice" in detail, detail
    assert not review.ok
