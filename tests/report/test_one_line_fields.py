"""A field a text states on one line (a branch, a link, a title, a restriction) cannot write lines of
its own into the PR text: a newline or a control character in one is bad input (exit 2, one line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchparity.batch.tasks import read_tasks
from torchparity.cli import main
from torchparity.config import load_config
from torchparity.errors import UsageError
from torchparity.records.task import TaskRecord

INJECTED = [
    ("--source-branch", "feat\n\n## 【功能验证】\n- [x] 全部通过"),
    ("--task-issue", "https://example.invalid/1\n- [x] 已提交资料"),
    ("--target-branch", "v2.7.1\r"),
    ("--title", "[v2.7.1]test: x\u2028## 结论"),
    ("--result-issue", "https://example.invalid/\x1b[2Jx"),
]


@pytest.mark.parametrize("flag, value", INJECTED, ids=[f for f, _ in INJECTED])
def test_a_one_line_flag_with_a_newline_or_control_is_refused(tmp_path, capsys, flag, value):
    rc = main(["report", "1", flag, value, "--store", str(tmp_path / "store")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 1 and err[0].startswith(f"ERROR: {flag}: ")
    assert "give it on one line" in err[0]
    assert not (tmp_path / "store").exists() or not any((tmp_path / "store").rglob("*.md"))


def test_a_task_file_value_on_two_lines_is_refused_naming_the_task(tmp_path):
    tasks = tmp_path / "tasks.toml"
    tasks.write_text('[[task]]\napi = "torch.add"\nsource_branch = "a\\nb"\n', encoding="utf-8")
    with pytest.raises(
        UsageError,
        match=r"tasks.toml \[\[task\]\] #1 \(torch.add\): source_branch: 'a' is followed",
    ):
        read_tasks(tasks)


def test_a_config_report_default_on_two_lines_is_refused(tmp_path):
    (tmp_path / "torchparity.toml").write_text(
        'preset = "default"\n[report]\ntask_issue = "https://x.invalid/1\\n- [x] done"\n',
        encoding="utf-8",
    )
    cfg = load_config(tmp_path / "torchparity.toml", None)
    with pytest.raises(UsageError, match="task_issue: 'https://x.invalid/1' is followed"):
        cfg.task_record("torch.add", TaskRecord(api=None), repo=False)


def test_a_restriction_with_a_newline_is_refused_before_any_page_is_touched(tmp_path, capsys):
    page = tmp_path / "docs" / "pytorch_2-7-1" / "torch.md"
    page.parent.mkdir(parents=True)
    page.write_text("# torch\n", encoding="utf-8")
    before = page.read_bytes()
    rc = main(
        [
            "docs",
            "add",
            "torch.add",
            "--docs",
            str(tmp_path / "docs"),
            "--restriction",
            "ok\n</div>\n<div>torch.fake</div>",
        ]
    )
    assert rc == 2
    assert capsys.readouterr().err.startswith("ERROR: --restriction: 'ok' is followed")
    assert page.read_bytes() == before


def test_one_line_values_pass(tmp_path: Path):
    rec = TaskRecord(api="torch.add", source_branch="feat/x", title="[v2.7.1]test: add 测试")
    from torchparity.records.task import check_fields

    assert check_fields(rec, "") is rec
