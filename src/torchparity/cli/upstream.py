"""``torchparity upstream API``: the API's PyTorch official tests, run test by test with the disabled lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ..collect import emulation_notes, select_envs
from ..records.upstream import UpstreamRecord, UpstreamTarget
from ..store import Store
from ..upstream import UpstreamHooks, UpstreamOptions
from ..upstream.verb import run_upstream, write_logs
from ._app import (
    DEFAULT_STORE,
    INVOCATION,
    ConfigOpt,
    CpuFallbackOpt,
    DebugOpt,
    EmulateOpt,
    JsonOpt,
    StoreOpt,
    app,
    config_for,
    err,
    out,
)
from ._progress import emulated_table


class _Hooks(UpstreamHooks):
    def stage(self, what: str) -> None:
        err.print(f"upstream: {what} ...", markup=False)

    def done(self, target: UpstreamTarget) -> None:
        counts: dict[str, int] = {}
        for t in target.tests:
            counts[t.status] = counts.get(t.status, 0) + 1
        said = ", ".join(f"{n} {k}" for k, n in counts.items()) or "no test"
        err.print(f"upstream: {target.label}: {target.result} ({said})", markup=False)


def _table(run_id: int, rec: UpstreamRecord) -> Table:
    emulated = [t.emulated for t in rec.targets]
    table = emulated_table(f"run {run_id}: official tests of {rec.api} ({rec.selection})", emulated)
    for col in ("test", "target", "status", "why / detail"):
        table.add_column(col, overflow="fold")
    for t in rec.targets:
        if t.error:
            table.add_row("-", t.label, "ERROR", t.error)
        for x in t.tests:
            why = x.detail.strip().splitlines()[-1] if x.detail.strip() else ""
            if x.entry is not None:
                why = (
                    f"{x.entry.reason or '(no reason given)'}; platforms "
                    f"{'|'.join(p for p in x.entry.platforms if p) or 'all'}"
                    + (f"; {x.entry.category}" if x.entry.category else "")
                )
                if x.rechecked:
                    why += f"; rechecked without the list: {x.rechecked}"
            table.add_row(x.id or x.test, t.label, x.status, why)
    for t in rec.targets:
        for e in t.stale:
            if t.emulated:  # CPU kernels under an emulated device say nothing of the hardware
                table.add_row(
                    "passes without the list",
                    t.label,
                    f"on the emulated {t.emulated}: recheck on hardware",
                    f"{e.list_file}: {json.dumps(e.key)}",
                )
            else:
                table.add_row(
                    "stale entry", t.label, "delete", f"{e.list_file}: {json.dumps(e.key)}"
                )
    for note in rec.notes:
        table.add_row("note", "", "", note)
    table.add_row("RESULT", "", rec.result + (" (emulated)" if any(emulated) else ""), "")
    return table


@app.command()
def upstream(
    api: Annotated[
        str, typer.Argument(metavar="API", help="The API, as written in the task list.")
    ],
    repo: Annotated[
        Path | None,
        typer.Option(
            "--repo", metavar="R", help="Backend git repository (its vendored upstream test files)."
        ),
    ] = None,
    ref: Annotated[
        list[str] | None,
        typer.Option(
            "--ref",
            metavar="REF",
            help="Branch, tag or commit of --repo (repeatable; default: the config's active branches).",
        ),
    ] = None,
    env: Annotated[
        list[str] | None,
        typer.Option(
            "--env", metavar="NAME", help="Named environment from torchparity.toml (repeatable)."
        ),
    ] = None,
    python: Annotated[
        list[str] | None,
        typer.Option("--python", metavar="PY", help="Interpreter with torch (repeatable)."),
    ] = None,
    device: Annotated[
        str | None, typer.Option("--device", metavar="D", help="auto|cpu|cuda|npu|xpu|mps|<name>.")
    ] = None,
    emulate: EmulateOpt = None,
    upstream_repo: Annotated[
        Path | None,
        typer.Option(
            "--upstream-repo",
            metavar="PATH",
            help="A PyTorch clone: its test/ at the tag of each environment's torch version.",
        ),
    ] = None,
    recheck_disabled: Annotated[
        bool,
        typer.Option(
            "--recheck-disabled",
            help="Run the API's disabled tests too, without the list: one that passes is a stale entry.",
        ),
    ] = False,
    test: Annotated[
        list[str] | None,
        typer.Option(
            "--test",
            metavar="PATH::Class::test",
            help="Run this official test (repeatable) instead of the ones coverage finds.",
        ),
    ] = None,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="A new interpreter per step instead of the warm worker.")
    ] = False,
    allow_cpu_fallback: CpuFallbackOpt = False,
    timeout: Annotated[
        float, typer.Option("--timeout", metavar="S", help="Seconds per step.")
    ] = 900.0,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help="Write each target's evidence log here."),
    ] = None,
    json_out: JsonOpt = False,
    config: ConfigOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Find the API's upstream official tests, run exactly those on each target with the disabled lists."""
    cfg = config_for(config, repo)
    envs = select_envs(cfg, env, python, emulate)
    for note in emulation_notes(envs):
        err.print(note, markup=False)
    options = UpstreamOptions(
        api=api,
        repo=repo,
        refs=list(ref or []),
        envs=envs,
        device=device or "",
        upstream_repo=upstream_repo,
        recheck=recheck_disabled,
        tests=list(test or []),
        mode="fresh" if fresh else "warm",
        timeout=timeout,
        allow_cpu_fallback=allow_cpu_fallback,
    )
    result = run_upstream(Store(store), cfg, options, list(INVOCATION), _Hooks())
    if out_dir is not None:
        for path in write_logs(result.record, out_dir):
            err.print(f"evidence: {path}", markup=False)
    if json_out:
        out.print_json(
            json.dumps({"run_id": result.run_id, **result.record.to_json()}, ensure_ascii=False)
        )
    else:
        out.print(_table(result.run_id, result.record))
    return int(result.exit_code)
