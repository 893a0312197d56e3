"""Rendering: templates (built-in, a team's folder, --template), Markdown helpers, the report verb."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from tests.report.report_fixtures import Fixture, model_of
from torchparity.cli import main
from torchparity.errors import UsageError
from torchparity.report import render
from torchparity.report.render import fence, tidy


def test_fence_outgrows_backticks_inside() -> None:
    assert fence("a\n```\nb", "text") == "````text\na\n```\nb\n````"
    assert fence("", "") == "```\n\n```"


def test_tidy_folds_blank_lines_outside_fences_only() -> None:
    text = "a  \n\n\n\nb\n```\nx\n\n\n\ny  \n```\n\n\nc\n\n"
    assert tidy(text) == "a\n\nb\n```\nx\n\n\n\ny  \n```\n\nc\n"


def test_the_pr_carries_the_raw_log_byte_for_byte(fixture_full: Fixture) -> None:
    fx = fixture_full
    text = render(model_of(fx), "pr", "zh")
    blocks = re.findall(r"^```text\n(.*?)\n```$", text, re.MULTILINE | re.DOTALL)
    logs = [
        fx.store.blobs.read(t.log_sha).decode().rstrip("\n")
        for r in fx.runs
        for t in fx.store.targets(r)
    ]
    assert blocks == logs
    headings = re.findall(r"^# (【.+?】)", text, re.MULTILINE)
    assert headings == [
        "【合入来源】",
        "【分支范围】",
        "【修改方案】",
        "【社区用例检索与新增必要性】",
        "【资料变更】",
        "【接口变更】",
        "【功能验证】",
        "【test_upstream patch】",
        "【CheckList】",
    ]


def test_english_headings(fixture_bare: Fixture) -> None:
    text = render(model_of(fixture_bare), "pr", "en")
    assert re.findall(r"^# (.+)$", text, re.MULTILINE) == [
        "Source",
        "Branch scope",
        "Change",
        "Existing tests and why a new one is needed",
        "Documentation changes",
        "Interface changes",
        "Functional verification",
        "test_upstream patch",
        "Checklist",
    ]
    assert "【" not in text


def test_a_template_file_replaces_the_built_in_one(fixture_bare: Fixture, tmp_path: Path) -> None:
    tpl = tmp_path / "mine.md.j2"
    tpl.write_text(
        "{% for t in m.targets %}{{ t.label }}={{ t.result }} {{ t.log_sha256 | short }}\n{% endfor %}"
    )
    model = model_of(fixture_bare)
    lines = render(model, "pr", "zh", template=tpl).splitlines()
    assert [ln.split(" ")[0] for ln in lines] == [
        "v2.7.1@a2=PASS",
        "v2.7.1@a3=PASS",
        "v2.7.1@a5=FAIL",
    ]


def test_a_templates_folder_overrides_by_name(fixture_bare: Fixture, tmp_path: Path) -> None:
    folder = tmp_path / "tpl"
    folder.mkdir()
    (folder / "comment_en.md.j2").write_text("team comment for {{ m.api }}\n")
    model = model_of(fixture_bare)
    assert render(model, "comment", "en", templates_dir=folder) == f"team comment for {model.api}\n"
    assert render(model, "comment", "zh", templates_dir=folder).startswith(
        "## API 一致性验收"
    )  # falls back


def test_template_mistakes_are_usage_errors(fixture_bare: Fixture, tmp_path: Path) -> None:
    model = model_of(fixture_bare)
    bad_key = tmp_path / "bad_key.j2"
    bad_key.write_text("{{ m.no_such_key }}")
    with pytest.raises(UsageError, match="no_such_key"):
        render(model, "pr", "zh", template=bad_key)
    bad_syntax = tmp_path / "bad_syntax.j2"
    bad_syntax.write_text("line one\n{% for x in %}\n")
    with pytest.raises(UsageError, match=r"bad_syntax.j2:2"):
        render(model, "pr", "zh", template=bad_syntax)
    with pytest.raises(UsageError, match="not json"):
        render(model, "json", "zh", template=bad_key)
    with pytest.raises(UsageError, match="template file not found"):
        render(model, "pr", "zh", template=tmp_path / "missing.j2")
    with pytest.raises(UsageError, match="unknown report kind"):
        render(model, "html", "zh")
    with pytest.raises(UsageError, match="unknown language"):
        render(model, "pr", "fr")


def test_report_verb_prints_json_equal_to_the_model(
    fixture_full: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    fx = fixture_full
    argv = [
        "report",
        "1",
        "2",
        "--kind",
        "json",
        "--store",
        str(fx.store.root),
        "--config",
        str(fx.root / "torchparity.toml"),
    ]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    expected = model_of(fx).to_json()
    assert doc == json.loads(json.dumps(expected))


def test_report_verb_writes_out_and_reads_config(
    fixture_full: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    fx = fixture_full
    config = fx.root / "torchparity.toml"
    config.write_text(config.read_text() + 'templates = "team"\nlang = "en"\n')
    (fx.root / "team").mkdir()
    (fx.root / "team" / "summary.md.j2").write_text(
        "{{ lang }}: {{ m.targets | length }} targets\n"
    )
    out = fx.root / "out" / "summary.md"
    out.parent.mkdir()
    argv = [
        "report",
        "1",
        "2",
        "--kind",
        "markdown-summary",
        "--store",
        str(fx.store.root),
        "--config",
        str(config),
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    assert out.read_text() == "en: 3 targets\n"
    assert capsys.readouterr().out == ""


def test_report_out_file_gets_the_umask_mode_and_replaces_whole(
    fixture_full: Fixture, tmp_path: Path
) -> None:
    fx = fixture_full
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "summary.md"
    out.write_text("old\n")
    out.chmod(0o600)
    argv = [
        "report",
        "1",
        "2",
        "--kind",
        "markdown-summary",
        "--store",
        str(fx.store.root),
        "--out",
        str(out),
    ]
    old = os.umask(0o027)
    try:
        assert main(argv) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640  # 0o666 less the umask, as a plain open gives
    assert out.read_text().startswith("## ")
    assert [p.name for p in out.parent.iterdir()] == ["summary.md"]  # no temporary file left


def test_report_verb_bad_input(
    fixture_bare: Fixture, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = str(fixture_bare.store.root)
    assert main(["report", "9", "--store", store]) == 2
    assert "ERROR: no run 9" in capsys.readouterr().err
    assert main(["report", "1", "--store", store, "--kind", "html"]) == 2
    assert "'html' is not one of" in capsys.readouterr().err
    missing = tmp_path / "no" / "such" / "dir" / "pr.md"
    assert main(["report", "1", "--store", store, "--out", str(missing)]) == 2
    assert "folder for --out does not exist" in capsys.readouterr().err
    assert not missing.parent.exists()
    assert main(["report", "1", "--store", store, "--range", "a..b"]) == 2
    assert "--range needs --repo" in capsys.readouterr().err
