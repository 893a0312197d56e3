"""``torchparity report``: the PR description, acceptance comment, JSON, JUnit XML or summary of runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..checks import checklist_for_runs, evaluate_change
from ..errors import UsageError
from ..fsutil import write_regular
from ..report import build_report, render_checked
from ..report.render import config_output_lines, config_templates_dir
from ..store import Store, keep, read_run
from ._app import (
    DEFAULT_STORE,
    INVOCATION,
    AllowRepoTemplatesOpt,
    ConfigOpt,
    DebugOpt,
    StoreOpt,
    app,
    config_for,
    err,
)
from ._choices import Kind, Lang
from ._pr_fields import (
    DocsPrOpt,
    InterfaceChangeOpt,
    ResultIssueOpt,
    SourceBranchOpt,
    SourceTypeOpt,
    TargetBranchOpt,
    TaskIssueOpt,
    TitleOpt,
    UpstreamNoteOpt,
    UpstreamPatchOpt,
    pr_fields,
)


def write_output(text: str, out_file: Path | None) -> None:
    """Print, or write ``out_file`` whole (``write_regular``: atomically, and only a regular file)."""
    if out_file is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    parent = out_file.absolute().parent
    if not parent.is_dir():
        raise UsageError(
            f"folder for --out does not exist: {parent}; create it or pass another path"
        )
    write_regular(
        out_file, text, "--out"
    )  # a FIFO, a device, a folder is refused; a symlink written through


@app.command()
def report(
    runs: Annotated[
        list[str], typer.Argument(metavar="RUN", help="Run ids or uids (see 'torchparity runs').")
    ],
    kind: Annotated[Kind, typer.Option("--kind", help="Which report.")] = Kind.pr,
    lang: Annotated[
        Lang | None,
        typer.Option("--lang", help="Language of the text (default: the run's, else zh)."),
    ] = None,
    api: Annotated[
        str | None, typer.Option("--api", help="API of the task, when the runs do not name it.")
    ] = None,
    template: Annotated[
        Path | None, typer.Option("--template", help="Jinja2 template replacing the built-in one.")
    ] = None,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write the report to FILE instead of printing it.")
    ] = None,
    repo: Annotated[
        Path | None,
        typer.Option(
            "--repo", help="Backend git repository (with --range: files, commits, checklist)."
        ),
    ] = None,
    rev_range: Annotated[
        str | None, typer.Option("--range", help="The PR's commits, BASE..HEAD.")
    ] = None,
    title: TitleOpt = None,
    source_type: SourceTypeOpt = None,
    task_issue: TaskIssueOpt = None,
    result_issue: ResultIssueOpt = None,
    source_branch: SourceBranchOpt = None,
    target_branch: TargetBranchOpt = None,
    interface_change: InterfaceChangeOpt = None,
    upstream_patch: UpstreamPatchOpt = None,
    upstream_note: UpstreamNoteOpt = None,
    docs_pr: DocsPrOpt = None,
    allow_repo_templates: AllowRepoTemplatesOpt = False,
    config: ConfigOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Render a report of runs from their records; --kind json is the model itself."""
    if rev_range and repo is None:
        raise UsageError("--range needs --repo: the commits are read from a git repository")
    if repo is not None and not rev_range:
        raise UsageError(
            "--repo without --range reads nothing; pass --range BASE..HEAD for the PR's files and checklist"
        )
    given = pr_fields(
        title=title,
        source_type=source_type,
        task_issue=task_issue,
        result_issue=result_issue,
        source_branch=source_branch,
        target_branch=target_branch,
        interface_change=interface_change,
        upstream_patch=upstream_patch,
        upstream_note=upstream_note,
        api=api,
        docs_pr=docs_pr,
    )
    st = Store(store, create=False)
    records = [read_run(st, r) for r in runs]
    cfg = config_for(config, repo, allow_repo_templates=allow_repo_templates)
    change = checklist = None
    if repo is not None and rev_range:
        resolve = next((r.resolve for r in records if r.resolve is not None), None)
        the_api = api or next(
            (r.task.api for r in records if r.task is not None and r.task.api), None
        )
        change = evaluate_change(repo, rev_range, cfg, the_api, resolve, source_branch)
        checklist = checklist_for_runs(change, records, cfg, the_api, resolve, title)
        # what was read from git now is kept as a run of its own: the text names it, and a bundle of
        # these runs renders the same text anywhere
        kept = keep(
            st,
            "change",
            list(INVOCATION),
            [(the_api or "", r) for r in (change, checklist) if r is not None],
        )
        records.append(read_run(st, kept))
        err.print(f"the change and checklist are kept as run {kept}", markup=False)
    model = build_report(records, task=given, change=change, checklist=checklist)
    # the language asked for, else the team's ([report] lang), else the run's own
    the_lang = (
        lang.value
        if lang is not None
        else str(cfg.report.get("lang") or "")
        or next((r.task.lang for r in records if r.task), "zh")
    )
    text = render_checked(
        model,
        kind.value,
        the_lang,
        str(out_file) if out_file is not None else f"{kind.value} report",
        template=template,
        templates_dir=config_templates_dir(cfg),
        output_lines=config_output_lines(cfg),
    )
    write_output(text, out_file)
    if out_file is not None:
        err.print(
            f"wrote {kind.value} report of run(s) {', '.join(r['uid'] for r in model.runs)} to {out_file}",
            markup=False,
        )
    return 0
