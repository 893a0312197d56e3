"""The progress display (plain log and live table) and the batch summary, from states alone."""

from __future__ import annotations

import io
import json

from rich.console import Console

from torchparity.batch.plan import merged_fields, out_folders
from torchparity.batch.progress import BatchProgress
from torchparity.batch.summary import markdown, rows, write
from torchparity.records.batch import BatchPlan, BatchTask, BatchTaskState
from torchparity.records.task import TaskRecord
from torchparity.records.verify import TargetVerdict

PLAN = BatchPlan(
    tasks=(
        BatchTask(0, "torch.add", TaskRecord(api=None)),
        BatchTask(1, "torch.Tensor.add", TaskRecord(api=None, task_issue="https://x/1")),
        BatchTask(2, "torch.sub", TaskRecord(api=None), refs=("master",)),
        BatchTask(3, "torch.mul", TaskRecord(api=None)),
    ),
    source="/tmp/tasks.txt",
    form="text",
    refs=("master", "v2.7.1"),
    envs=("a2", "a3"),
)

STATES = {
    0: BatchTaskState(
        0,
        "torch.add",
        "done",
        5,
        "aaaa" * 8,
        "PASS",
        (TargetVerdict("master@a2", "PASS"), TargetVerdict("v2.7.1@a2", "PASS")),
        outputs=(
            ("pr", "o/torch_add/pr.zh.md"),
            ("pr@master", "o/torch_add/pr.master.zh.md"),
            ("pr@v2.7.1", "o/torch_add/pr.v2.7.1.zh.md"),
        ),
        seconds=12.0,
    ),
    1: BatchTaskState(
        1,
        "torch.Tensor.add",
        "done",
        6,
        "bbbb" * 8,
        "ERROR",
        (TargetVerdict("master@a2", "PASS"), TargetVerdict("v2.7.1@a2", "ERROR")),
        blockers=(
            "target v2.7.1@a2: ERROR (git could not check out v2.7.1: error: unable to read "
            "sha1 file of x | y)",
        ),
    ),
    2: BatchTaskState(2, "torch.sub", "failed", None, error="bad input: unknown API 'torch.sub'"),
    3: BatchTaskState(3, "torch.mul", "started", 8, "dddd" * 8),
}


def test_rows_and_markdown_say_each_task_its_refs_result_blockers_and_prs(tmp_path):
    table = rows(PLAN, STATES)
    assert [(r.api, r.result) for r in table] == [
        ("torch.add", "PASS"),
        ("torch.Tensor.add", "ERROR"),
        ("torch.sub", "NOT RUN"),
        ("torch.mul", "INCOMPLETE"),
    ]
    assert table[0].prs == {
        "master": "o/torch_add/pr.master.zh.md",
        "v2.7.1": "o/torch_add/pr.v2.7.1.zh.md",
    }
    assert table[2].refs == ("master",) and table[3].refs == ("master", "v2.7.1")
    md = markdown(PLAN, table, "f" * 32)
    assert "1 ERROR, 1 INCOMPLETE, 1 NOT RUN, 1 PASS" in md
    assert "x \\| y" in md  # a pipe in a blocker does not break the table
    assert "bad input: unknown API 'torch.sub'" in md
    assert md.count("\n### ") == 2 and "- `torch.add`: o/torch_add/pr.v2.7.1.zh.md" in md
    md_path, js_path = write(tmp_path, PLAN, STATES, "f" * 32, complete=False)
    doc = json.loads(js_path.read_text())
    assert doc["complete"] is False and [t["result"] for t in doc["tasks"]][3] == "INCOMPLETE"


def test_out_folders_and_fields():
    folders = out_folders(
        BatchPlan(
            tasks=(
                BatchTask(0, "a.b.c", TaskRecord(api=None)),
                BatchTask(1, "x.b.c", TaskRecord(api=None)),
            ),
            source="t",
            form="text",
        ),
        __import__("pathlib").Path("o"),
    )
    assert [p.name for p in folders.values()] == ["b_c", "b_c-2"]
    common = TaskRecord(
        api=None, source_branch="dev", source_types=("requirement",), task_issue="https://x/0"
    )
    got = merged_fields(common, TaskRecord(api=None, task_issue="https://x/9"))
    assert (got.task_issue, got.source_branch, got.source_types) == (
        "https://x/9",
        "dev",
        ("requirement",),
    )


def test_plain_log_and_live_table():
    buf = io.StringIO()
    plain = BatchProgress(Console(file=buf, force_terminal=False, width=200), total=4, jobs=2)
    with plain:
        plain.kept_done(STATES[0])
        plain.task_started(1, "torch.Tensor.add")
        plain.stage(1, "collect", "2 target(s)")
        plain.target_done(1, "v2.7.1@a2", "ERROR", ("Ray node abc was lost (ActorDiedError)",))
        plain.task_finished(1, STATES[1])
    lines = buf.getvalue().splitlines()
    assert lines[0] == "[batch] torch.add: PASS (kept from before the resume)"
    assert "[batch] torch.Tensor.add: collect: 2 target(s)" in lines
    assert (
        "[batch] torch.Tensor.add: target v2.7.1@a2 ERROR; Ray node abc was lost (ActorDiedError)"
        in lines
    )
    assert (
        lines[-1].startswith("[batch] torch.Tensor.add: ERROR in ")
        and "2/4 tasks done, 1 not passed" in lines[-1]
    )
    live = BatchProgress(
        Console(file=io.StringIO(), force_terminal=True, width=120), total=4, jobs=2
    )
    live.task_started(3, "torch.mul")
    live.stage(3, "coverage")
    out = io.StringIO()
    Console(file=out, width=120).print(live._render())
    text = out.getvalue()
    assert (
        "batch: 0/4 tasks done, 0 not passed; 1 running" in text
        and "torch.mul" in text
        and "coverage" in text
    )
