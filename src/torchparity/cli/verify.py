"""``torchparity verify``: the main job, from an API name to a reviewed-ready result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ..collect import Reporter, emulation_notes, select_envs
from ..errors import ExitCode, UsageError
from ..phrases import category_words
from ..store import Store
from ..verify import Pipeline, Stages, Verdict, VerifyOptions
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
from ._progress import ProgressReporter, summary_table
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


class _TerminalStages(Stages):
    def __init__(self, reporter: ProgressReporter) -> None:
        self.reporter = reporter
        self.n = 0

    def stage(self, name: str, detail: str = "") -> None:
        self.n += 1
        err.print(f"[{self.n}] {name}{': ' + detail if detail else ''} ...", markup=False)

    def done(self, name: str, outcome: str) -> None:
        err.print(f"    {name}: {outcome}", markup=False)

    def collector_reporter(self) -> Reporter:
        return self.reporter


def _summary(v: Verdict) -> Table:
    table = Table(title=f"verify {v.api}", title_justify="left", show_header=False)
    table.add_column("what")
    table.add_column("result")
    table.add_row("API", f"{v.canonical} ({v.kind}, {category_words(v.category)})")
    if v.scaffolded:
        table.add_row("scaffolded test", f"{v.scaffolded.path} ({v.scaffolded.family})")
    if v.docs:
        present = [x.version for x in v.docs.versions if x.present]
        missing = [x.version for x in v.docs.versions if not x.present]
        table.add_row(
            "docs", f"present: {', '.join(present) or '-'}; missing: {', '.join(missing) or '-'}"
        )
    if v.checklist:
        table.add_row(
            "checklist", ", ".join(f"{n} {k}" for k, n in sorted(v.checklist.counts.items()) if n)
        )
    for key, path in v.outputs.items():
        table.add_row(key, path)
    for note in v.notes:
        table.add_row("note", note)
    for blocker in v.blockers:
        table.add_row("[red]blocks[/]", blocker)
    table.add_row("RESULT", "[green]PASS[/]" if v.passed else "[red]FAIL[/]")
    return table


@app.command()
def verify(
    api: Annotated[
        str | None, typer.Argument(metavar="API", help="The API, as written in the task list.")
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
    test_file: Annotated[
        list[str] | None,
        typer.Option(
            "--test-file",
            metavar="FILE",
            help="Run this test file (repo-relative; repeatable) instead of every file that holds a direct test.",
        ),
    ] = None,
    into: Annotated[
        str | None,
        typer.Option(
            "--into", metavar="FILE", help="Add the scaffolded tests into this existing test file."
        ),
    ] = None,
    rev_range: Annotated[
        str | None,
        typer.Option(
            "--range",
            metavar="BASE..HEAD",
            help="BASE..HEAD of a committed PR, for the checklist and the report.",
        ),
    ] = None,
    title: TitleOpt = None,
    task_issue: TaskIssueOpt = None,
    result_issue: ResultIssueOpt = None,
    source_type: SourceTypeOpt = None,
    source_branch: SourceBranchOpt = None,
    target_branch: TargetBranchOpt = None,
    interface_change: InterfaceChangeOpt = None,
    upstream_patch: UpstreamPatchOpt = None,
    upstream_note: UpstreamNoteOpt = None,
    docs_pr: DocsPrOpt = None,
    lang: Annotated[
        Lang, typer.Option("--lang", help="Language of the PR description and comment.")
    ] = Lang.zh,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="DIR", help="Folder for the reports (default torchparity-out/<api>)."
        ),
    ] = None,
    fresh: FreshOpt = False,
    allow_cpu_fallback: CpuFallbackOpt = False,
    allow_version_mismatch: VersionMismatchOpt = False,
    upstream_repo: Annotated[
        Path | None,
        typer.Option(
            "--upstream-repo",
            metavar="PATH",
            help="A PyTorch clone: its test/ at each environment's torch version is searched for the API's official tests too.",
        ),
    ] = None,
    recheck_disabled: Annotated[
        bool,
        typer.Option(
            "--recheck-disabled",
            help="Run the official tests the disabled list removes too; one that passes is a stale entry.",
        ),
    ] = False,
    timeout: TimeoutOpt = 900.0,
    ray: RayOpt = None,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            metavar="RUN",
            help="Finish interrupted verify RUN with its own arguments; finished stages and targets are kept.",
        ),
    ] = None,
    continue_run: ContinueOpt = None,
    json_out: JsonOpt = False,
    allow_repo_templates: AllowRepoTemplatesOpt = False,
    config: ConfigOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Resolve, search coverage, scaffold, collect evidence, check docs, write the PR description."""
    if resume is not None:
        return resume_run("verify", resume, store)
    if api is None:
        raise UsageError("give the API to verify (e.g. torch.nn.functional.relu), or --resume RUN")
    cfg = config_for(config, repo, allow_repo_templates=allow_repo_templates)
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
        docs_pr=docs_pr,
    )
    envs = select_envs(cfg, env, python, emulate)
    for note in emulation_notes(envs):
        err.print(note, markup=False)
    options = VerifyOptions(
        api=api,
        repo=repo,
        refs=list(ref or []),
        envs=envs,
        device=device or "",
        docs=docs,
        docs_versions=list(docs_version) if docs_version else None,
        docs_add=docs_add,
        docs_status=docs_status,
        scaffold=scaffold,
        into=into,
        lang=lang.value,
        out=out_dir,
        fresh=fresh,
        timeout=timeout,
        rev_range=rev_range,
        test_files=list(test_file or []),
        fields=given,
        allow_cpu_fallback=allow_cpu_fallback,
        allow_version_mismatch=allow_version_mismatch,
        upstream_repo=upstream_repo,
        recheck_disabled=recheck_disabled,
        ray=ray,
    )
    try:
        with ProgressReporter() as reporter:
            verdict = Pipeline(
                Store(store), cfg, options, _TerminalStages(reporter), list(INVOCATION)
            ).run(continue_run=continue_run)
    except KeyboardInterrupt:
        err.print(
            "interrupted: worktrees and processes cleaned up; the run is marked incomplete "
            "(finish it with: torchparity verify --resume RUN)",
            markup=False,
        )
        return int(ExitCode.INTERRUPTED)
    if json_out:
        out.print_json(json.dumps(verdict.to_json(), ensure_ascii=False))
        return int(verdict.exit_code)
    if verdict.records and verdict.run_id is not None:
        shas = {t.label: t.log_sha or "" for t in Store(store).targets(verdict.run_id)}
        out.print(summary_table(verdict.run_id, verdict.records, shas))
    out.print(_summary(verdict))
    return int(verdict.exit_code)
