"""``torchparity review`` and ``torchparity attest`` end to end (in process): exit codes, JSON, comment."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.review import texts
from tests.review.fixtures import BackendRepo
from torchparity.cli import main
from torchparity.collect.evidence import render_log
from torchparity.records.target import Step, TargetRecord, TestOutcome
from torchparity.store import Store


@pytest.fixture
def config(tmp_path: Path) -> Path:
    cfg = tmp_path / "torchparity.toml"
    cfg.write_text('preset = "torch_npu"\n')
    return cfg


def _text(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "pr.md"
    path.write_text(body, "utf-8")
    return path


def test_true_text_exits_0_and_prints_json(
    tmp_path: Path, backend: BackendRepo, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = _text(tmp_path, texts.seed_shape(texts.truth(backend)))
    rc = main(
        [
            "review",
            str(pr),
            "--repo",
            str(backend.path),
            "--merge",
            backend.merge,
            "--json",
            "--config",
            str(config),
        ]
    )
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert set(doc) >= {"claims", "summary"}
    assert all(set(c) == {"kind", "text", "line", "verdict", "detail"} for c in doc["claims"])
    s = doc["summary"]
    assert s["contradicted"] == 0 and s["verified"] + s["unverifiable"] == s["claims"] == len(
        doc["claims"]
    )
    assert s["by_kind"]["test.defined"]["verified"] == 3


def test_false_text_exits_1_with_a_table_and_an_english_comment(
    tmp_path: Path, backend: BackendRepo, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = _text(tmp_path, texts.markdown_shape(texts.lies(backend)))
    note = tmp_path / "comment.md"
    rc = main(
        [
            "review",
            str(pr),
            "--repo",
            str(backend.path),
            "--merge",
            backend.merge,
            "--lang",
            "en",
            "--comment",
            str(note),
            "--config",
            str(config),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 1
    assert "contradicted" in out and "test_ghost" in out and f"wrote {note}" in out
    body = note.read_text()
    assert body.startswith("### torchparity review of this PR description")
    contra = body.split("#### Contradicted", 1)[1].split("####", 1)[0]
    assert "test_ghost" in contra and "class TestGrad has no test test_ghost" in contra
    assert "<details>" in body and f"--merge {backend.merge[:12]}" in body


def test_chinese_comment_from_stdin(
    tmp_path: Path,
    backend: BackendRepo,
    config: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(texts.seed_shape(texts.lies(backend))))
    note = tmp_path / "c.md"
    rc = main(
        [
            "review",
            "-",
            "--repo",
            str(backend.path),
            "--merge",
            backend.merge,
            "--comment",
            str(note),
            "--config",
            str(config),
        ]
    )
    assert rc == 1
    body = note.read_text()
    assert (
        "### torchparity 对本 PR 描述的核查" in body
        and "#### 与仓库矛盾" in body
        and "条声明与仓库矛盾" in body
    )
    assert "与仓库矛盾" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--lang", "fr"], "--lang fr"),
        (["--merge", "0" * 40], "--merge 0000"),
        (["--merge", "HEAD", "--head", "master"], "not both"),
        (["--bundle", "missing.zip", "--head", "master"], "--bundle missing.zip"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path,
    backend: BackendRepo,
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pr = _text(tmp_path, texts.seed_shape(texts.truth(backend)))
    rc = main(["review", str(pr), "--repo", str(backend.path), *args])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("ERROR:") and message in err and "\n" not in err


def test_missing_or_empty_text_exits_2(
    tmp_path: Path, backend: BackendRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["review", str(tmp_path / "nope.md"), "--repo", str(backend.path), "--head", "master"])
        == 2
    )
    assert "PR text not found" in capsys.readouterr().err
    empty = _text(tmp_path, "  \n")
    assert main(["review", str(empty), "--repo", str(backend.path), "--head", "master"]) == 2
    assert "is empty" in capsys.readouterr().err
    plain = _text(tmp_path, "no branch stated here\n")
    assert main(["review", str(plain), "--repo", str(backend.path)]) == 2
    assert "states no target branch" in capsys.readouterr().err


def test_attest_verb_writes_a_signed_statement(
    tmp_path: Path, backend: BackendRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(tmp_path / "store")
    rid = store.new_run("verify", ["verify"])
    rec = TargetRecord(
        label="t",
        ref="v2.7.1",
        commit=backend.merge,
        env="cpu",
        python="python",
        mode="warm",
        device="cpu",
        full=[
            Step(
                name="full",
                status="OK",
                exit_code=0,
                tests=[TestOutcome("TestGrad.test_no_grad", "passed")],
            )
        ],
        result="PASS",
    )
    store.add_target(
        rid,
        label="t",
        ref="v2.7.1",
        env="cpu",
        result="PASS",
        log=render_log(rec).encode(),
        record=rec.to_json(),
    )
    key = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    dest = tmp_path / "att.json"
    rc = main(
        ["attest", str(rid), "--output", str(dest), "--key", str(key), "--store", str(store.root)]
    )
    out = capsys.readouterr().out
    assert rc == 0 and f"subject {backend.merge[:12]}" in out and "result pass" in out
    assert json.loads(dest.read_text())["predicate"]["passedTests"] == ["t::TestGrad.test_no_grad"]
    assert (tmp_path / "att.json.sig").read_text().startswith("-----BEGIN SSH SIGNATURE-----")
    # again over the same file: refused, nothing overwritten
    assert main(["attest", str(rid), "--output", str(dest), "--store", str(store.root)]) == 2
    assert (
        main(["attest", "99", "--output", str(tmp_path / "x.json"), "--store", str(store.root)])
        == 2
    )
    assert not (tmp_path / "x.json").exists()
