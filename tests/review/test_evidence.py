"""torchparity's own evidence in a PR text: a log digest against a real bundle, and an in-toto attestation
built from a real store's target records, signed with a real SSH key."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.review import texts
from tests.review.fixtures import TEST_FILE, BackendRepo
from torchparity.collect.evidence import render_log
from torchparity.config import load_preset
from torchparity.errors import UsageError
from torchparity.records.target import Step, TargetRecord, TestOutcome
from torchparity.records.target import TestFile as RecordedFile
from torchparity.review import PREDICATE_TYPE, build_statement, review_text, write_attestation
from torchparity.review.records import Review
from torchparity.store import Store
from torchparity.store.bundle import export_bundle

CFG = load_preset("torch_npu")
TESTS = ("test_enable_grad", "test_no_grad", "test_set_grad_enabled_clone")


def _record(r: BackendRepo, commit: str, outcome: str = "passed") -> TargetRecord:
    tests = [TestOutcome(f"TestGrad.{t}", outcome if t == TESTS[-1] else "passed") for t in TESTS]
    return TargetRecord(
        label="v2.7.1-cpu",
        ref="v2.7.1",
        commit=commit,
        env="cpu",
        python="/usr/bin/python3",
        mode="warm",
        device="cpu",
        test_files=[
            RecordedFile(path=TEST_FILE, abs_path=f"/work/v2.7.1/{TEST_FILE}", sha256=r.file_sha256)
        ],
        full=[
            Step(
                name="full",
                status="OK" if outcome == "passed" else "FAIL",
                exit_code=0,
                command=f"python {TEST_FILE} -v",
                tests=tests,
            )
        ],
        result="PASS" if outcome == "passed" else "FAIL",
    )


@pytest.fixture
def run(tmp_path: Path, backend: BackendRepo) -> tuple[Store, int, str]:
    """A store with one finished run over the merge commit: (store, run id, the log's SHA-256)."""
    store = Store(tmp_path / "store")
    rid = store.new_run("verify", ["verify", texts.API])
    rec = _record(backend, backend.merge)
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


def _english(r: BackendRepo, log_sha: str) -> str:
    return texts.english_shape(dict(texts.truth(r), log_sha=log_sha))


def _rows(review: Review, kind: str) -> list[tuple[str, str, str]]:
    return [(v.text, v.verdict, v.detail) for v in review.verdicts if v.kind == kind]


def test_log_digest_without_a_bundle_is_unverifiable(
    backend: BackendRepo, run: tuple[Store, int, str]
) -> None:
    review = review_text(_english(backend, run[2]), backend.path, CFG, merge=backend.merge)
    [(text, verdict, detail)] = _rows(review, "evidence")
    assert verdict == "unverifiable" and "--bundle" in detail and run[2] in text


def test_log_digest_against_a_bundle(
    tmp_path: Path, backend: BackendRepo, run: tuple[Store, int, str]
) -> None:
    store, rid, log_sha = run
    bundle = export_bundle(store, [rid], tmp_path / "runs.zip")
    good = review_text(
        _english(backend, log_sha), backend.path, CFG, merge=backend.merge, bundle=bundle
    )
    [(_, verdict, detail)] = _rows(good, "evidence")
    assert verdict == "verified" and f"run {rid} target v2.7.1-cpu" in detail
    bundle_rows = _rows(good, "bundle")
    assert bundle_rows[0][1] == "verified" and "every hash verifies" in bundle_rows[0][2]
    assert bundle_rows[1][1] in (
        "verified",
        "unverifiable",
    )  # signed bundles come with the store's signing
    assert good.ok
    bad = review_text(
        _english(backend, "9" * 64), backend.path, CFG, merge=backend.merge, bundle=bundle
    )
    [(_, verdict, detail)] = _rows(bad, "evidence")
    assert verdict == "contradicted" and "no evidence log with this SHA-256" in detail
    assert not bad.ok


def test_a_tampered_bundle_is_contradicted(
    tmp_path: Path, backend: BackendRepo, run: tuple[Store, int, str]
) -> None:
    store, rid, log_sha = run
    bundle = export_bundle(store, [rid], tmp_path / "runs.zip")
    forged = tmp_path / "forged.zip"
    with zipfile.ZipFile(bundle) as src, zipfile.ZipFile(forged, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            dst.writestr(
                name,
                data.replace(b"RESULT=PASS", b"RESULT=PASS ") if name.endswith(log_sha) else data,
            )
    review = review_text(
        _english(backend, log_sha), backend.path, CFG, merge=backend.merge, bundle=forged
    )
    [(_, verdict, detail)] = _rows(review, "bundle")
    assert verdict == "contradicted" and "does not verify" in detail and log_sha in detail


def _key(tmp_path: Path) -> tuple[Path, Path]:
    key = tmp_path / "id_ed25519"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tester", "-f", str(key)], check=True
    )
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(
        f'tester@example.invalid namespaces="torchparity-attestation" '
        f"{(tmp_path / 'id_ed25519.pub').read_text().strip()}\n"
    )
    return key, allowed


def test_statement_from_the_store(backend: BackendRepo, run: tuple[Store, int, str]) -> None:
    store, rid, log_sha = run
    st = build_statement(store, rid)
    assert (
        st["_type"] == "https://in-toto.io/Statement/v1" and st["predicateType"] == PREDICATE_TYPE
    )
    assert st["subject"] == [{"name": "v2.7.1", "digest": {"gitCommit": backend.merge}}]
    pred = st["predicate"]
    assert pred["result"] == "pass"
    assert (
        pred["passedTests"] == [f"v2.7.1-cpu::TestGrad.{t}" for t in TESTS]
        and pred["failedTests"] == []
    )
    digests = {
        (c["annotations"]["role"], c["name"]): c["digest"]["sha256"] for c in pred["configuration"]
    }
    assert digests[("test file", TEST_FILE)] == backend.file_sha256
    assert digests[("evidence log", "v2.7.1-cpu.log")] == log_sha


def test_a_failing_run_attests_fail(tmp_path: Path, backend: BackendRepo) -> None:
    store = Store(tmp_path / "store")
    rid = store.new_run("verify", ["verify"])
    rec = _record(backend, backend.merge, outcome="failed")
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
    assert pred["result"] == "fail" and pred["failedTests"] == [
        "v2.7.1-cpu::TestGrad.test_set_grad_enabled_clone"
    ]


def test_signed_attestation_checks(
    tmp_path: Path, backend: BackendRepo, run: tuple[Store, int, str]
) -> None:
    store, rid, log_sha = run
    key, allowed = _key(tmp_path)
    made = write_attestation(build_statement(store, rid), tmp_path / "att.json", key)
    assert made.signature == tmp_path / "att.json.sig" and made.signature.is_file()
    text = _english(backend, log_sha)
    review = review_text(
        text, backend.path, CFG, merge=backend.merge, attestation=made.path, allowed_signers=allowed
    )
    rows = _rows(review, "attestation")
    assert rows[0][1] == "verified" and "tester@example.invalid" in rows[0][2]
    by_text = {t: (v, d) for t, v, d in rows[1:]}
    assert by_text[f"subject v2.7.1 {backend.merge[:12]}"][0] == "verified"
    assert by_text[f"test file {TEST_FILE}"] == (
        "verified",
        f"the attested bytes are {TEST_FILE} at {backend.merge[:12]}",
    )
    assert by_text["evidence log v2.7.1-cpu.log"][0] == "verified"
    assert review.ok
    # the statement edited after signing: the signature no longer verifies
    doc = json.loads(made.path.read_text())
    doc["predicate"]["result"] = "fail"
    made.path.write_text(json.dumps(doc))
    forged = review_text(text, backend.path, CFG, merge=backend.merge, attestation=made.path)
    assert _rows(forged, "attestation")[0][1] == "contradicted"


def test_attested_file_that_is_not_the_merged_one(tmp_path: Path, backend: BackendRepo) -> None:
    store = Store(tmp_path / "store")
    rid = store.new_run("verify", ["verify"])
    rec = _record(backend, backend.base)
    rec.test_files[0].sha256 = backend.old_file_sha256
    store.add_target(
        rid,
        label=rec.label,
        ref=rec.ref,
        env=rec.env,
        result=rec.result,
        log=b"log\n",
        record=rec.to_json(),
    )
    made = write_attestation(build_statement(store, rid), tmp_path / "att.json")
    assert made.signature is None
    review = review_text(
        texts.english_shape(texts.truth(backend)),
        backend.path,
        CFG,
        merge=backend.merge,
        attestation=made.path,
    )
    rows = {t: (v, d) for t, v, d in _rows(review, "attestation")}
    assert rows["--attestation att.json"][0] == "unverifiable"  # unsigned
    assert rows[f"subject v2.7.1 {backend.base[:12]}"][0] == "verified"  # an ancestor of the merge
    verdict, detail = rows[f"test file {TEST_FILE}"]
    assert verdict == "contradicted" and backend.old_file_sha256[:16] in detail
    assert not review.ok


def test_not_a_statement_is_contradicted_and_a_missing_one_is_bad_input(
    tmp_path: Path, backend: BackendRepo
) -> None:
    other = tmp_path / "other.json"
    other.write_text(
        json.dumps(
            {"_type": "https://in-toto.io/Statement/v1", "predicateType": "x", "predicate": {}}
        )
    )
    review = review_text(
        texts.english_shape(texts.truth(backend)),
        backend.path,
        CFG,
        merge=backend.merge,
        attestation=other,
    )
    assert _rows(review, "attestation")[0][1] == "contradicted"
    with pytest.raises(UsageError, match="--attestation"):
        review_text(
            "x", backend.path, CFG, merge=backend.merge, attestation=tmp_path / "missing.json"
        )
    existing = tmp_path / "att.json"
    existing.write_text("{}")
    with pytest.raises(UsageError, match="already exists"):
        write_attestation({}, existing)


@pytest.mark.parametrize(
    "doc, state",
    [
        ({"ok": True}, (None, "")),  # a torchparity whose bundles carry no signature
        ({"signature": {"status": "unsigned"}}, ("unsigned", "")),
        (
            {
                "signature": {
                    "status": "good",
                    "principal": "me@example.invalid",
                    "key": "ED25519 SHA256:x",
                }
            },
            ("good", "me@example.invalid"),
        ),
        (
            {"signature": {"status": "valid", "key": "ED25519 SHA256:x"}},
            ("valid", "ED25519 SHA256:x"),
        ),
        ({"signature": {"status": "bad", "detail": "does not match"}}, ("bad", "")),
    ],
)
def test_bundle_signature_states(doc: dict[str, object], state: tuple[str | None, str]) -> None:
    from torchparity.review.checks.evidence import signature_state

    assert signature_state(doc) == state
