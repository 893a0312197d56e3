"""``review`` reads any text in time linear in its size: a line is read up to a bound (a longer one is
skipped, and the review says so), every pattern is linear, runs of lines (tables, log headers,
continued commands) are walked once; a NUL byte is refused with where it is."""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

import pytest

from tests.review import texts
from tests.review.fixtures import BackendRepo
from torchparity.cli import main
from torchparity.config import load_config
from torchparity.review import review_text
from torchparity.review.parse import parse_text

H = "0123456789abcdef0123456789abcdef01234567"
PRODUCTS = [("910b", ("Atlas A2 训练系列产品",))]
W = 4000  # characters of each pathological line: under the bound, so every one of them is read


def _line_shapes(w: int) -> dict[str, str]:
    """Lines that made a pattern backtrack: each took 0.1 to 0.9 s at 4,000 characters (a Markdown heading
    with a blank run: 117 s), growing as the square (or the cube) of the length."""
    return {
        "baseline-word-run": f"基线提交 {H} " + "a" * w,
        "baseline-path-run": f"baseline {H} " + "a/" * (w // 2),
        "many-baselines": (f"baseline {H} " + "x" * 60) * (w // 110),
        "blank-run-template-heading": "\t " * (w // 2) + "x",
        "blank-run-markdown-heading": "# a" + " " * w + "x",
        "blank-run-bold-heading": "**x**" + " " * w + "y",
        "blank-run-docs-status": "【资料】\n- a" + " " * w + "x",
        "blank-run-environment-line": "【功能验证】\npython" + " " * w + "x",
        "blank-run-log-step": "=" * 20 + "\nA=1\n===== A" + " " * w + "x",
        "blank-run-short-commit": "commit" + " " * w + "x",
        "blank-run-pr-number": f"资料提交 {H}\nPR" + " " * w + "x",
        "blank-run-result-issue": "结果Issue：" + " " * w + "x",
        "word-run-unittest-footer": "Ran 1 test in 0.1s\nFAILED (" + "a" * w + ")",
        "digit-run-unittest-footer": "Ran 1 test in 0.1s\nFAILED (" + "1" * w + ")",
        "run-of-zai-before-git-grep": "在" * w + "\ngit grep -n x\n匹配数：0",
        "run-of-docs-folders": "【资料】\n资料 entry torch.a 已有 " + "docs/" * (w // 5),
        "submodule-from-run": f"submodule a/b {H} {H} " + "从" * w,
    }


def _sequences(n: int) -> dict[str, str]:
    """Runs of lines that each walked back over the run (quadratic in its length)."""
    return {
        "table-rows": "| 证据 | x |\n" + "| `0123456789ab` | x |\n" * n,
        "log-header-keys": "=" * 20 + "\n" + "".join(f"K{i}=v\n" for i in range(n)),
        "continued-commands": "python a.py \\\n" * n,
        "docs-statuses": "目标 API：torch.x.y\n【资料】\n" + "- Atlas A2 训练系列产品：支持\n" * n,
    }


@pytest.mark.parametrize("shape", list(_line_shapes(W)))
def test_half_a_megabyte_of_pathological_lines_parses_in_seconds(shape: str) -> None:
    """Each shape, 500 KB of it: before, 0.1 to 0.9 s a line (a minute or more in all); now under a second."""
    line = _line_shapes(W)[shape]
    text = "\n".join([line] * (500_000 // len(line) + 1))
    start = time.perf_counter()
    parse_text(text)
    assert time.perf_counter() - start < 5.0, shape


@pytest.mark.parametrize("shape", list(_sequences(1)))
def test_long_runs_of_lines_parse_in_linear_time(shape: str) -> None:
    """20,000 lines of a run: before, minutes (each line walked the run back); now well under a second."""
    text = _sequences(20_000)[shape]
    start = time.perf_counter()
    parse_text(text, PRODUCTS)
    assert time.perf_counter() - start < 5.0, shape


def test_a_line_over_the_bound_is_skipped_and_the_review_names_it(
    tmp_path: Path, backend: BackendRepo
) -> None:
    """A 60 KB line (a pasted log, an inline image) is not read for claims; the review's note says which line."""
    true = texts.seed_shape(texts.truth(backend))
    # a baseline that is in no history: contradicted, were the line read
    long = f"基线提交：{'3' * 40} " + "x " * 30_000
    text = f"{true}\n{long}\n"
    line_no = text.count("\n", 0, text.index(long)) + 1
    claims = parse_text(text)
    assert all(c.line != line_no for c in claims.commits)
    config = tmp_path / "torchparity.toml"
    config.write_text('preset = "torch_npu"\n')
    result = review_text(text, backend.path, load_config(config, backend.path), merge=backend.merge)
    assert not result.contradicted
    assert any(f"line {line_no}" in n and "60,0" in n and "not read" in n for n in result.notes), (
        result.notes
    )


def test_the_60_kb_baseline_line_of_the_issue_takes_no_time() -> None:
    """The issue's case: a baseline line of 60 KB took 238 s; it is skipped now, in milliseconds."""
    text = f"【社区用例检索与新增必要性】\n基线提交：{H} " + "a" * 60_000 + "\n"
    start = time.perf_counter()
    claims = parse_text(text)
    assert time.perf_counter() - start < 2.0
    assert claims.commits == ()


def test_a_megabyte_of_text_is_reviewed_in_seconds(tmp_path: Path, backend: BackendRepo) -> None:
    """A megabyte: the seed-shaped description over and over, every pathological line and run between, each
    claim checked (a claim the text repeats is checked once). Before: minutes. 10 MB: benchmarks/bench_review_inputs.py."""
    unit = texts.seed_shape(texts.truth(backend))
    bad = "\n".join([*_line_shapes(W).values(), *_sequences(200).values()])
    text = "\n".join([unit, bad] * (1_000_000 // (len(unit) + len(bad)) + 1))
    config = tmp_path / "torchparity.toml"
    config.write_text('preset = "torch_npu"\n')
    start = time.perf_counter()
    result = review_text(text, backend.path, load_config(config, backend.path), merge=backend.merge)
    assert time.perf_counter() - start < 30.0
    assert len(result.verdicts) > 1000


def _pr(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "pr.md"
    path.write_bytes(data)
    return path


def test_a_nul_byte_in_the_pr_text_is_refused_with_its_line_and_column(
    tmp_path: Path, backend: BackendRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    body = texts.seed_shape(texts.truth(backend)).encode()
    pr = _pr(tmp_path, b"first line\nsecond\x00 line\n" + body)
    rc = main(["review", str(pr), "--repo", str(backend.path), "--merge", backend.merge, "--json"])
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert rc == 2 and captured.out == ""
    assert err.startswith("ERROR:") and "\n" not in err
    assert f"{pr}:2:7" in err and "NUL" in err


def test_a_nul_byte_on_stdin_is_refused_too(
    backend: BackendRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("目标分支：v2.7.1\n\x00\n"))
    rc = main(["review", "-", "--repo", str(backend.path), "--merge", backend.merge])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "stdin:2:1" in err and "NUL" in err and "\n" not in err


def test_a_long_line_note_is_in_the_json_too(
    tmp_path: Path, backend: BackendRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = _pr(
        tmp_path, (texts.seed_shape(texts.truth(backend)) + "\n" + "y" * 70_000 + "\n").encode()
    )
    rc = main(["review", str(pr), "--repo", str(backend.path), "--merge", backend.merge, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert any("70,000 characters" in n for n in doc["notes"]), doc["notes"]
