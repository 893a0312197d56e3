"""``torchparity run``: test files x refs x environments, with evidence in the store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..agent.api.states import states_for_api
from ..collect import CollectOptions, Collector, emulation_notes, select_envs
from ..errors import ExitCode, UsageError
from ..exec.capture import check_max_output
from ..names import name_patterns
from ..phrases import phrase
from ..store import Store
from ._app import (
    DEFAULT_STORE,
    INVOCATION,
    ConfigOpt,
    CpuFallbackOpt,
    DebugOpt,
    EmulateOpt,
    StoreOpt,
    app,
    config_for,
    err,
    out,
)
from ._progress import ProgressReporter, summary_table
from ._resume import resume as resume_run


@app.command()
def run(
    test_files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="TEST_FILE", help="Test files (relative to the repo root with --repo)."
        ),
    ] = None,
    repo: Annotated[
        Path | None, typer.Option("--repo", metavar="R", help="Backend git repository.")
    ] = None,
    ref: Annotated[
        list[str] | None,
        typer.Option(
            "--ref", metavar="REF", help="Branch, tag or commit (repeatable; default HEAD)."
        ),
    ] = None,
    python: Annotated[
        list[str] | None,
        typer.Option("--python", metavar="PY", help="Interpreter with torch (repeatable)."),
    ] = None,
    env: Annotated[
        list[str] | None,
        typer.Option(
            "--env", metavar="NAME", help="Named environment from torchparity.toml (repeatable)."
        ),
    ] = None,
    device: Annotated[
        str | None, typer.Option("--device", metavar="D", help="auto|cpu|cuda|npu|xpu|mps|<name>.")
    ] = None,
    emulate: EmulateOpt = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout", metavar="S", help="Seconds per step before its process group is killed."
        ),
    ] = 900.0,
    max_output: Annotated[
        int | None,
        typer.Option(
            "--max-output",
            metavar="BYTES",
            help="Bytes of each step's output kept in the evidence (its head and tail; 0: all; default 16 MiB or [run] max_output).",
        ),
    ] = None,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh",
            help="A new interpreter per step (the literal commands) instead of the warm worker.",
        ),
    ] = False,
    allow_cpu_fallback: CpuFallbackOpt = False,
    isolation: Annotated[
        bool,
        typer.Option(
            "--isolation", help="Run the isolation probe for the API's states (--api) or --state."
        ),
    ] = False,
    api: Annotated[
        str | None,
        typer.Option(
            "--api",
            metavar="API",
            help="API under test: picks the states and the tests for --isolation.",
        ),
    ] = None,
    state: Annotated[
        list[str] | None,
        typer.Option(
            "--state", metavar="NAME", help="State to probe with --isolation (repeatable)."
        ),
    ] = None,
    keyword: Annotated[
        str | None,
        typer.Option(
            "-k",
            metavar="PATTERN",
            help="Select the isolation probe's tests (unittest -k semantics).",
        ),
    ] = None,
    fail_on_leak: Annotated[
        bool,
        typer.Option("--fail-on-leak", help="A test that leaves a state changed fails the target."),
    ] = False,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", help="Targets run at once (0: up to the CPU count).")
    ] = 0,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the run's records as JSON.")
    ] = False,
    resume: Annotated[
        int | None,
        typer.Option(
            "--resume",
            metavar="RUN",
            help="Finish interrupted run RUN with its own arguments; finished targets are kept.",
        ),
    ] = None,
    continue_run: Annotated[
        int | None,
        typer.Option(
            "--continue-run",
            hidden=True,
            help="(set by --resume) the run this invocation continues.",
        ),
    ] = None,
    config: ConfigOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Run TEST_FILE... for every --ref x environment and keep verifiable evidence."""
    if resume is not None:
        return resume_run("run", str(resume), store)
    cfg = config_for(config, repo)
    states: list[str] = list(state or [])
    if isolation and not states and not api:
        raise UsageError(
            "--isolation needs the states to probe: pass --api API (its linked states) or --state NAME"
        )
    if isolation and not states and api:
        states = list(states_for_api(api))
        if not states:
            err.print(
                f"note: no state is linked to {api}; pass --state NAME to probe one", markup=False
            )
    if not isolation and (states or keyword):
        err.print("note: --state and -k take effect with --isolation", markup=False)
        states = []
    patterns = [keyword] if keyword else (name_patterns(api) if api else [])
    envs = select_envs(cfg, env, python, emulate)
    for note in emulation_notes(envs):
        err.print(note, markup=False)
    options = CollectOptions(
        files=list(test_files or []),
        repo=repo,
        refs=list(ref or []),
        envs=envs,
        device=device or cfg.device,
        backend_module=cfg.backend_module,
        timeout=timeout,
        mode="fresh" if fresh else "warm",
        max_output=check_max_output(
            max_output if max_output is not None else cfg.run.get("max_output")
        ),
        isolation_states=states if isolation else [],
        patterns=patterns,
        fail_on_leak=fail_on_leak,
        jobs=jobs,
        allow_cpu_fallback=allow_cpu_fallback,
        task=cfg.task_record(
            api, None, repo=repo is not None, lang=str(cfg.report.get("lang") or "zh")
        ),
    )
    the_store = Store(store)
    for r in options.refs:
        if cfg.is_maintenance(r):
            err.print(
                f"warning: {r} is a maintenance branch: {cfg.maintenance_reason or 'it takes no new tests'}",
                markup=False,
            )
    collector = Collector(the_store, options, None)
    targets = collector.plan()
    try:
        with ProgressReporter() as reporter:
            collector.reporter = reporter
            outcome = collector.run(list(INVOCATION), targets, run_id=continue_run)
    except KeyboardInterrupt:
        err.print(
            "interrupted: worktrees and processes cleaned up; the run is marked incomplete",
            markup=False,
        )
        return int(ExitCode.INTERRUPTED)
    shas = {t.label: t.log_sha or "" for t in the_store.targets(outcome.run_id)}
    if json_out:
        import json

        out.print_json(json.dumps([r.to_json() for r in outcome.records], ensure_ascii=False))
    else:
        out.print(summary_table(outcome.run_id, outcome.records, shas))
        for rec in outcome.records:
            if rec.result in ("ERROR", "INCOMPLETE"):
                for why in rec.notes:
                    out.print(f"{rec.label}: {rec.result}: {phrase(why)}", markup=False)
        out.print(f"evidence: torchparity show {outcome.run_id} [--target LABEL]", markup=False)
    return int(outcome.exit_code)
