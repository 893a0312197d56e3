"""TASKS in its three forms, and bad input as one line naming where."""

from __future__ import annotations

import textwrap

import pytest

from torchparity.batch.tasks import read_tasks
from torchparity.errors import UsageError

# the tail of a community task issue (section names and layout as the issues write them)
ISSUE = """\
检测到社区任务相关 issue，自动添加标签：event: api-consistency、help-wanted
一、任务概览
Ascend for PyTorch 是昇腾 NPU 适配 PyTorch 框架的核心插件。
联系邮箱：someone@qq.com
四、任务领取
请前往昇腾社区-任务广场领取任务：https://www.hiascend.com/activities/task-center
五、API名称
torch.autograd.grad_mode.set_multithreading_enabled.clone
`torch.autograd.grad_mode.set_grad_enabled.clone`
六、其他
torch.not_in_the_section
"""


def _file(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def test_text_form_skips_comments_and_blank_lines(tmp_path):
    got = read_tasks(
        _file(
            tmp_path,
            "tasks.txt",
            """\
        # a month of tasks
        torch.add   # ops

        torch.autograd.grad_mode.set_grad_enabled.clone
    """,
        )
    )
    assert got.form == "text"
    assert [t.api for t in got.tasks] == [
        "torch.add",
        "torch.autograd.grad_mode.set_grad_enabled.clone",
    ]
    assert [t.index for t in got.tasks] == [0, 1]
    assert got.tasks[1].source.endswith("tasks.txt:4")


def test_toml_form_carries_pr_fields_with_defaults(tmp_path):
    got = read_tasks(
        _file(
            tmp_path,
            "tasks.toml",
            """\
        [defaults]
        source_type = "requirement"
        source_branch = "dev"

        [[task]]
        api = "torch.add"
        task_issue = "https://example.invalid/issues/1"
        result_issue = "https://example.invalid/issues/2"
        refs = ["master"]

        [[task]]
        api = "torch.sub"
        source_branch = "feature-sub"
        source_type = ["requirement", "docs"]
    """,
        )
    )
    assert got.form == "toml"
    add, sub = got.tasks
    assert (add.api, add.refs, add.fields.task_issue, add.fields.source_branch) == (
        "torch.add",
        ("master",),
        "https://example.invalid/issues/1",
        "dev",
    )
    assert add.fields.source_types == ("requirement",)
    assert (sub.refs, sub.fields.source_branch, sub.fields.source_types) == (
        (),
        "feature-sub",
        ("requirement", "docs"),
    )
    assert sub.fields.task_issue is None


def test_issue_form_reads_only_its_api_name_section(tmp_path):
    got = read_tasks(_file(tmp_path, "issue.txt", ISSUE))
    assert got.form == "issue"
    assert [t.api for t in got.tasks] == [
        "torch.autograd.grad_mode.set_multithreading_enabled.clone",
        "torch.autograd.grad_mode.set_grad_enabled.clone",
    ]


def test_issue_with_the_name_on_the_heading_line(tmp_path):
    got = read_tasks(
        _file(tmp_path, "issue.md", "## API 名称：torch.nn.functional.relu\n## 其他\ntorch.x.y\n")
    )
    assert [t.api for t in got.tasks] == ["torch.nn.functional.relu"]


@pytest.mark.parametrize(
    "name,text,words",
    [
        ("t.txt", "torch.add\nnot an api\n", ["t.txt:2", "'not an api' is not an API name"]),
        ("t.txt", "torch.add\ntorch.add\n", ["torch.add is given twice", "t.txt:1", "t.txt:2"]),
        ("t.txt", "# nothing\n\n", ["names no API"]),
        (
            "t.toml",
            '[[task]]\napi = "torch.add"\nowner = "me"\n',
            ["[[task]] #1 (torch.add)", "unknown key(s) owner"],
        ),
        ("t.toml", '[[task]]\ntitle = "x"\n', ["[[task]] #1 has no api"]),
        ("t.toml", '[[task]]\napi = "torch.add"\nrefs = "master"\n', ["refs must be a list"]),
        ("t.toml", '[[tasks]]\napi = "torch.add"\n', ["unknown table(s) tasks"]),
        ("t.toml", "[[task]\n", ["not valid TOML"]),
        ("i.txt", "五、API名称\n\n六、其他\n", ["API名称", "lists no API"]),
    ],
)
def test_bad_task_lists_are_one_line_naming_where(tmp_path, name, text, words):
    with pytest.raises(UsageError) as err:
        read_tasks(_file(tmp_path, name, text))
    msg = str(err.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg


def test_missing_file(tmp_path):
    with pytest.raises(UsageError, match="tasks file not found"):
        read_tasks(tmp_path / "nope.txt")
