"""``torchparity report``: the PR description, acceptance comment, JSON, JUnit XML or summary of runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..config import load_config
from ..errors import UsageError
from ..fsutil import atomic_write
from ..report import KINDS, LANGS, build_report, render
from ..report.render import config_output_lines, config_templates_dir
from ..store import Store
from ._app import DEFAULT_STORE, ConfigOpt, DebugOpt, StoreOpt, app, err
from ._pr_fields import (
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
    """Print, or write ``out_file`` whole (``atomic_write``)."""
    if out_file is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    parent = out_file.absolute().parent
    if not parent.is_dir():
        raise UsageError(f"folder for --out does not exist: {parent}; create it or pass another path")
    atomic_write(out_file, text)


@app.command()
def report(
    runs: Annotated[list[str], typer.Argument(metavar="RUN", help="Run ids (see 'torchparity runs').")],
    kind: Annotated[str, typer.Option("--kind", help="pr | comment | json | junit | markdown-summary.")] = "pr",
    lang: Annotated[str | None, typer.Option("--lang", help="zh | en (default: [report] lang, else zh).")] = None,
    api: Annotated[str | None, typer.Option("--api", help="API of the task (default: the runs' --api).")] = None,
    template: Annotated[Path | None, typer.Option("--template", help="Jinja2 template replacing the built-in one.")] = None,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the report to FILE instead of printing it.")] = None,
    repo: Annotated[Path | None, typer.Option("--repo", help="Backend git repository (with --range: files, commits, checklist).")] = None,
    rev_range: Annotated[str | None, typer.Option("--range", help="The PR's commits, BASE..HEAD.")] = None,
    title: TitleOpt = None,
    source_type: SourceTypeOpt = None,
    task_issue: TaskIssueOpt = None,
    result_issue: ResultIssueOpt = None,
    source_branch: SourceBranchOpt = None,
    target_branch: TargetBranchOpt = None,
    interface_change: InterfaceChangeOpt = None,
    upstream_patch: UpstreamPatchOpt = None,
    upstream_note: UpstreamNoteOpt = None,
    config: ConfigOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Render a report of runs from the evidence store; --kind json is the model itself."""
    cfg = load_config(config, repo)
    lang = lang or str(cfg.report.get("lang") or "zh")
    if kind not in KINDS:
        raise UsageError(f"unknown --kind {kind!r}; use one of {', '.join(KINDS)}")
    if lang not in LANGS:
        raise UsageError(f"unknown --lang {lang!r}; use one of {', '.join(LANGS)}")
    if rev_range and repo is None:
        raise UsageError("--range needs --repo: the commits are read from a git repository")
    extra: dict[str, Any] = {"repo": repo, "range": rev_range, **pr_fields(
        title=title, source_type=source_type, task_issue=task_issue, result_issue=result_issue,
        source_branch=source_branch, target_branch=target_branch, interface_change=interface_change,
        upstream_patch=upstream_patch, upstream_note=upstream_note)}
    if repo is not None and not rev_range:
        err.print("note: --repo without --range: commit titles only; pass --range BASE..HEAD for files and the checklist",
                  markup=False)
    model = build_report(Store(store, create=False), runs, api=api, config=cfg, extra=extra)
    text = render(model, kind, lang, template=template, templates_dir=config_templates_dir(cfg),
                  output_lines=config_output_lines(cfg))
    write_output(text, out_file)
    if out_file is not None:
        err.print(f"wrote {kind} report of run(s) {', '.join(str(r['id']) for r in model.runs)} to {out_file}",
                  markup=False)
    return 0
