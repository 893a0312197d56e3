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
from ..report.render import config_templates_dir
from ..store import Store
from ._app import DEFAULT_STORE, ConfigOpt, DebugOpt, StoreOpt, app, err


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
    title: Annotated[str | None, typer.Option("--title", help="PR title (checked for a type tag).")] = None,
    source_type: Annotated[list[str] | None, typer.Option("--source-type", help="Merge source checkbox: requirement|bug|issue|refactor|docs (repeatable).")] = None,
    task_issue: Annotated[str | None, typer.Option("--task-issue", help="Source task issue URL.")] = None,
    result_issue: Annotated[str | None, typer.Option("--result-issue", help="Result issue URL.")] = None,
    source_branch: Annotated[str | None, typer.Option("--source-branch", help="The PR's source branch.")] = None,
    target_branch: Annotated[str | None, typer.Option("--target-branch", help="The PR's target branch.")] = None,
    interface_change: Annotated[str | None, typer.Option("--interface-change", help="Text for the interface change section.")] = None,
    upstream_patch: Annotated[str | None, typer.Option("--upstream-patch", help="Text for the test_upstream patch section.")] = None,
    upstream_note: Annotated[str | None, typer.Option("--upstream-note", help="Why the official tests could not run.")] = None,
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
    extra: dict[str, Any] = {
        "repo": repo, "range": rev_range, "title": title, "source_type": list(source_type or []),
        "task_issue": task_issue, "result_issue": result_issue, "source_branch": source_branch,
        "target_branch": target_branch, "interface_change": interface_change,
        "upstream_patch": upstream_patch, "upstream_note": upstream_note,
    }
    if repo is not None and not rev_range:
        err.print("note: --repo without --range: commit titles only; pass --range BASE..HEAD for files and the checklist",
                  markup=False)
    model = build_report(Store(store, create=False), runs, api=api, config=cfg, extra=extra)
    text = render(model, kind, lang, template=template, templates_dir=config_templates_dir(cfg))
    write_output(text, out_file)
    if out_file is not None:
        err.print(f"wrote {kind} report of run(s) {', '.join(str(r['id']) for r in model.runs)} to {out_file}",
                  markup=False)
    return 0
