"""``torchparity scaffold``: write an API's test in the backend's conventions."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..api import agent_session, resolve_api
from ..config import emulated_config
from ..emulated import emulation, runner_settings
from ..errors import ExitCode, UsageError
from ..scaffold import check_destination, conventions_from, dtypes_from_text, scaffold_test
from ._app import (
    ConfigOpt,
    CpuFallbackOpt,
    DebugOpt,
    EmulateOpt,
    JsonOpt,
    app,
    config_for,
    err,
    out,
)


@app.command()
def scaffold(
    api: Annotated[
        str,
        typer.Argument(
            metavar="API", help="API to write a test for: qualified, alias or short form."
        ),
    ],
    into: Annotated[
        Path | None, typer.Option("--into", help="Add the test methods to this existing test file.")
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for a new test file (default: the config's test_dir)."),
    ] = None,
    repo: Annotated[
        Path | None,
        typer.Option(
            "--repo", help="Backend repository: its torchparity.toml, and test_dir under it."
        ),
    ] = None,
    python: Annotated[
        str | None,
        typer.Option("--python", help="Interpreter with torch to ask (default: this one)."),
    ] = None,
    device: Annotated[
        str | None,
        typer.Option("--device", help="auto|cpu|cuda|npu|xpu|mps|<name> (default: the config's)."),
    ] = None,
    dtype: Annotated[
        list[str] | None,
        typer.Option(
            "--dtype",
            help="dtypes for an OpInfo test (repeatable; fp16, bf16, float32, ... or a docs restriction text).",
        ),
    ] = None,
    class_name: Annotated[
        str | None,
        typer.Option(
            "--class", help="With --into: the class to add to (default: the first TestCase)."
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the file instead of writing it.")
    ] = False,
    allow_cpu_fallback: CpuFallbackOpt = False,
    emulate: EmulateOpt = None,
    json_out: JsonOpt = False,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Write API's test (header, docstring, imports, device, TestCase) from resolve and agent facts."""
    cfg = config_for(config, repo)
    if emulate:
        cfg = emulated_config(cfg, emulate)
    dtypes: list[str] = []
    for text in dtype or []:
        found = dtypes_from_text(text)
        if not found:
            raise UsageError(
                f"--dtype {text!r} names no dtype; write e.g. --dtype fp16 --dtype float32"
            )
        dtypes += [d for d in found if d not in dtypes]
    if out_dir is None and into is None and repo is not None:
        out_dir = repo / conventions_from(cfg).test_dir
    check_destination(into, out_dir)
    interp = python or sys.executable
    settings = runner_settings(emulate or "", cfg.backend_module, device or cfg.device)
    backend, dev = settings.backend_module, settings.device
    if emulate:
        err.print(emulation(emulate).note(interp), markup=False)
    with agent_session(
        interp, backend, dev, allow_cpu_fallback=allow_cpu_fallback, environ=settings.environ
    ) as session:
        info = resolve_api([api], interp, backend, dev, trace=False, session=session)[0]
        result = scaffold_test(
            info,
            cfg,
            python=interp,
            device=dev,
            into=into,
            out_dir=out_dir,
            backend_module=backend,
            dtypes=dtypes,
            class_name=class_name,
            session=session,
            write=not dry_run,
        )
    if json_out:
        out.print_json(json.dumps(result.to_json(), ensure_ascii=False))
    elif dry_run:
        out.print(result.content, markup=False, end="")
    else:
        verb = "wrote" if result.created else f"added to {result.class_name} in"
        out.print(
            f"{verb} {result.path} ({result.family} family, {result.device_type}): "
            f"{', '.join(result.methods)}",
            markup=False,
        )
        if result.fill_in:
            out.print(
                "it checks nothing yet: it fails on purpose until the calls are written",
                markup=False,
            )
        else:
            out.print(f"it checks {result.summary}", markup=False)
        for note in result.notes:
            out.print(f"note: {note}", markup=False)
        if result.imports_added:
            out.print(f"imports added: {'; '.join(result.imports_added)}", markup=False)
        if result.head_added:
            out.print(f"added for the checklist: {'; '.join(result.head_added)}", markup=False)
        out.print(f"run it: torchparity run {result.path}", markup=False)
    if result.fill_in:
        err.print(
            f"warning: {result.path} fails on purpose until written: {result.fill_in[0]}",
            markup=False,
        )
    return int(ExitCode.OK)
