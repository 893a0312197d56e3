"""``torchparity batch TASKS``: verify every task of a task list, sharing workers, checkouts and the index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ..batch import BatchOptions, BatchOutcome, BatchProgress, run_batch
from ..batch.summary import rows
from ..collect import emulation_notes, select_envs
from ..errors import ExitCode, UsageError
from ..store import Store
from ..verify import VerifyOptions
from ._app import (
    DEFAULT_STORE,
    INVOCATION,
    AllowRepoTemplatesOpt,
    ConfigOpt,
    CpuFallbackOpt,
    DebugOpt,
    EmulateOpt,
    JsonOpt,
    StoreOpt,
    VersionMismatchOpt,
    app,
    config_for,
    err,
    out,
)
from ._choices import Lang
from ._pr_fields import (
    InterfaceChangeOpt,
    ResultIssueOpt,
    SourceBranchOpt,
    SourceTypeOpt,
    TaskIssueOpt,
    UpstreamNoteOpt,
    UpstreamPatchOpt,
    pr_fields,
)
from ._resume import resume as resume_run
from ._verify_opts import (
    ContinueOpt,
    DeviceOpt,
    DocsAddOpt,
    DocsOpt,
    DocsStatusOpt,
    DocsVersionOpt,
    EnvOpt,
    FreshOpt,
    PythonOpt,
    RayOpt,
    RefOpt,
    RepoOpt,
    ScaffoldOpt,
    TimeoutOpt,
)

_STYLE = {
    "PASS": "green",
    "FAIL": "red",
    "ERROR": "red",
    "NOT RUN": "red",
    "NONE_RAN": "red",
    "MISMATCH": "yellow",
    "INCOMPLETE": "yellow",
}


def _table(o: BatchOutcome) -> Table:
    table = Table(title=f"batch {o.uid[:12]} (run {o.run_id})", title_justify="left")
    for col in ("task", "refs", "result", "blockers", "run"):
        table.add_column(col)
    for r in rows(o.plan, o.states):
        blockers = "; ".join(r.blockers) or r.error or "-"
        table.add_row(
            r.api,
            ", ".join(r.refs) or "-",
            f"[{_STYLE.get(r.result, '')}]{r.result}[/]",
            blockers,
            r.run[:12] or "-",
        )
    return table


@app.command()
def batch(
    tasks: Annotated[
        Path | None,
        typer.Argument(
            metavar="TASKS",
            help="Task list: a text file (one API a line, # comments), a TOML file of [[task]] tables, or a task issue's text.",
        ),
    ] = None,
    repo: RepoOpt = None,
    ref: RefOpt = None,
    env: EnvOpt = None,
    python: PythonOpt = None,
    device: DeviceOpt = None,
    emulate: EmulateOpt = None,
    docs: DocsOpt = None,
    docs_version: DocsVersionOpt = None,
    docs_add: DocsAddOpt = False,
    docs_status: DocsStatusOpt = None,
    scaffold: ScaffoldOpt = False,
    source_type: SourceTypeOpt = None,
    task_issue: TaskIssueOpt = None,
    result_issue: ResultIssueOpt = None,
    source_branch: SourceBranchOpt = None,
    interface_change: InterfaceChangeOpt = None,
    upstream_patch: UpstreamPatchOpt = None,
    upstream_note: UpstreamNoteOpt = None,
    lang: Annotated[
        Lang, typer.Option("--lang", help="Language of the PR descriptions and comments.")
    ] = Lang.zh,
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Folder for every task's reports (DIR/<api>/) and the batch summary.",
        ),
    ] = Path("torchparity-out"),
    fresh: FreshOpt = False,
    allow_cpu_fallback: CpuFallbackOpt = False,
    allow_version_mismatch: VersionMismatchOpt = False,
    timeout: TimeoutOpt = 900.0,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", metavar="N", help="Tasks and targets at once (0: the CPU count)."
        ),
    ] = 0,
    ray: RayOpt = None,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            metavar="RUN",
            help="Finish interrupted batch RUN with its own arguments; nothing finished is done again.",
        ),
    ] = None,
    continue_run: ContinueOpt = None,
    json_out: JsonOpt = False,
    allow_repo_templates: AllowRepoTemplatesOpt = False,
    config: ConfigOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Verify every API of TASKS on every ref and environment: one PR text per task and branch, a summary."""
    if resume is not None:
        return resume_run("batch", resume, store)
    if tasks is None:
        raise UsageError("give TASKS (a task list file), or --resume RUN")
    cfg = config_for(config, repo, allow_repo_templates=allow_repo_templates)
    fields = pr_fields(
        title=None,
        source_type=source_type,
        task_issue=task_issue,
        result_issue=result_issue,
        source_branch=source_branch,
        target_branch=None,
        interface_change=interface_change,
        upstream_patch=upstream_patch,
        upstream_note=upstream_note,
    )
    envs = select_envs(cfg, env, python, emulate)
    for note in emulation_notes(envs):
        err.print(note, markup=False, soft_wrap=True)
    common = VerifyOptions(
        api="",
        repo=repo,
        refs=list(ref or []),
        envs=envs,
        device=device or "",
        docs=docs,
        docs_versions=list(docs_version) if docs_version else None,
        docs_add=docs_add,
        docs_status=docs_status,
        scaffold=scaffold,
        lang=lang.value,
        fresh=fresh,
        timeout=timeout,
        fields=fields,
        ray=ray,
        allow_cpu_fallback=allow_cpu_fallback,
        allow_version_mismatch=allow_version_mismatch,
    )
    options = BatchOptions(tasks=tasks, verify=common, out=out_dir, jobs=jobs)
    the_store = Store(store)
    progress = BatchProgress(err, 0, jobs or 1)
    try:
        with progress:
            outcome = run_batch(
                the_store,
                cfg,
                options,
                list(INVOCATION),
                progress=progress,
                continue_run=continue_run,
            )
    except KeyboardInterrupt:
        err.print(
            f"interrupted: finished tasks and targets are kept; resume with: torchparity batch --resume "
            f"{(progress.batch_uid or 'RUN')[:12]}",
            markup=False,
        )
        return int(ExitCode.INTERRUPTED)
    if json_out:
        out.print_json(
            json.dumps(json.loads(outcome.summary_json.read_text("utf-8")), ensure_ascii=False)
        )
    else:
        out.print(_table(outcome))
        out.print(f"summary: {outcome.summary_md} (and {outcome.summary_json.name})", markup=False)
    return int(outcome.exit_code)
