"""The PR description's fields, as options shared by ``report`` and ``verify`` (one spelling, one help)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..records.task import TaskRecord, check_one_line
from ._choices import SourceType

TitleOpt = Annotated[
    str | None, typer.Option("--title", metavar="T", help="PR title (checked for its type tag).")
]
SourceTypeOpt = Annotated[
    list[SourceType] | None,
    typer.Option("--source-type", help="Merge source checkbox (repeatable)."),
]
TaskIssueOpt = Annotated[
    str | None, typer.Option("--task-issue", metavar="URL", help="Source task issue link.")
]
ResultIssueOpt = Annotated[
    str | None, typer.Option("--result-issue", metavar="URL", help="Result issue link.")
]
SourceBranchOpt = Annotated[
    str | None, typer.Option("--source-branch", metavar="B", help="The PR's source branch.")
]
TargetBranchOpt = Annotated[
    str | None, typer.Option("--target-branch", metavar="B", help="The PR's target branch.")
]
InterfaceChangeOpt = Annotated[
    str | None,
    typer.Option(
        "--interface-change", metavar="TEXT", help="Text for the interface change section."
    ),
]
UpstreamPatchOpt = Annotated[
    str | None,
    typer.Option(
        "--upstream-patch", metavar="TEXT", help="Text for the test_upstream patch section."
    ),
]
UpstreamNoteOpt = Annotated[
    str | None,
    typer.Option("--upstream-note", metavar="TEXT", help="Why the official tests could not run."),
]
DocsPrOpt = Annotated[
    str | None,
    typer.Option(
        "--docs-pr",
        metavar="URL",
        help="The documentation PR that adds the missing support-page entries.",
    ),
]


def pr_fields(
    *,
    title: str | None,
    source_type: list[SourceType] | None,
    task_issue: str | None,
    result_issue: str | None,
    source_branch: str | None,
    target_branch: str | None,
    interface_change: str | None,
    upstream_patch: str | None,
    upstream_note: str | None,
    api: str | None = None,
    docs_pr: str | None = None,
) -> TaskRecord:
    """The PR fields given on the command line, as the task record's part a reader may state; a
    one-line field (a title, a link, a branch) holding a newline or a control character is refused."""
    for flag, value in (
        ("--title", title),
        ("--task-issue", task_issue),
        ("--result-issue", result_issue),
        ("--source-branch", source_branch),
        ("--target-branch", target_branch),
        ("--docs-pr", docs_pr),
    ):
        check_one_line(value, flag)
    return TaskRecord(
        api=api,
        title=title,
        source_types=tuple(t.value for t in source_type or ()),
        task_issue=task_issue,
        result_issue=result_issue,
        source_branch=source_branch,
        target_branch=target_branch,
        interface_change=interface_change,
        upstream_patch=upstream_patch,
        upstream_note=upstream_note,
        docs_pr=docs_pr,
    )
