"""``torchparity resolve`` and ``torchparity trace``: what an API is and what it dispatches."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..api import resolve_api, trace_call, trace_file
from ..api.render import PROBE_NAMES, per_test_lines, probe_code, render, trace_table
from ..config import load_config
from ..errors import ExitCode, UsageError
from ..store import Store, keep
from ._app import INVOCATION, ConfigOpt, CpuFallbackOpt, DebugOpt, JsonOpt, app, err, out

PythonOpt = Annotated[
    str | None, typer.Option("--python", help="Interpreter with torch to ask (default: this one).")
]
DeviceOpt = Annotated[
    str | None,
    typer.Option("--device", help="auto|cpu|cuda|npu|xpu|mps|<name> (default: the config's)."),
]
FreshOpt = Annotated[
    bool, typer.Option("--fresh", help="A fresh interpreter per job instead of the warm worker.")
]
KeepStoreOpt = Annotated[
    Path | None, typer.Option("--store", help="Also keep each record in this evidence store.")
]


@app.command()
def resolve(
    apis: Annotated[
        list[str],
        typer.Argument(
            metavar="API", help="API names: qualified, alias or short form (Optimizer.zero_grad)."
        ),
    ],
    python: PythonOpt = None,
    device: DeviceOpt = None,
    trace: Annotated[
        bool,
        typer.Option(
            "--trace/--no-trace",
            help="Trace each API's call sample, else a call the facts probe built (and --test-file).",
        ),
    ] = True,
    test_file: Annotated[
        list[Path] | None,
        typer.Option("--test-file", help="The API's test file to trace (repeatable)."),
    ] = None,
    keyword: Annotated[
        list[str] | None,
        typer.Option(
            "-k",
            help="Select tests in --test-file (substring or glob; repeatable, first match wins).",
        ),
    ] = None,
    fresh: FreshOpt = False,
    allow_cpu_fallback: CpuFallbackOpt = False,
    json_out: JsonOpt = False,
    store: KeepStoreOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Resolve API names in the environment under test and classify them with trace evidence."""
    cfg = load_config(config, None)
    infos = resolve_api(
        apis,
        python or sys.executable,
        cfg.backend_module,
        device or cfg.device,
        trace=trace,
        test_files=list(test_file or []),
        patterns=list(keyword or []) or None,
        mode="fresh" if fresh else "warm",
        allow_cpu_fallback=allow_cpu_fallback,
    )
    if store is not None:
        rid = keep(
            Store(store), "resolve", list(INVOCATION), [(info.canonical, info) for info in infos]
        )
        err.print(f"kept as run {rid} in {store}", markup=False)
    if json_out:
        out.print_json(json.dumps([i.to_json() for i in infos], ensure_ascii=False))
    else:
        for part in render(infos):
            out.print(part)
    return int(ExitCode.OK)


@app.command("trace")
def trace_cmd(
    api: Annotated[
        str | None,
        typer.Argument(
            metavar="API", help="API whose call sample to trace (or bound as `api` in --call)."
        ),
    ] = None,
    file: Annotated[
        Path | None, typer.Option("--file", help="Trace the tests of this file instead.")
    ] = None,
    keyword: Annotated[
        list[str] | None,
        typer.Option("-k", help="Select tests in --file (substring or glob; repeatable)."),
    ] = None,
    call: Annotated[
        str | None, typer.Option("--call", help="Code to trace; sees torch, device, api, owner.")
    ] = None,
    setup: Annotated[str, typer.Option("--setup", help="Code run before --call, not traced.")] = "",
    python: PythonOpt = None,
    device: DeviceOpt = None,
    fresh: FreshOpt = False,
    allow_cpu_fallback: CpuFallbackOpt = False,
    json_out: JsonOpt = False,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Record the ATen operators a call, an API's call sample or some tests dispatch, per device."""
    cfg = load_config(config, None)
    interp = python or sys.executable
    dev = device or cfg.device
    mode = "fresh" if fresh else "warm"
    if file is not None:
        if call:
            raise UsageError("pass either --file or --call, not both")
        result = trace_file(
            file,
            interp,
            list(keyword or []),
            cfg.backend_module,
            dev,
            mode=mode,
            allow_cpu_fallback=allow_cpu_fallback,
        )
    else:
        if keyword:
            raise UsageError("-k selects tests and takes effect with --file")
        result = trace_call(
            api,
            interp,
            call,
            setup,
            "",
            cfg.backend_module,
            dev,
            mode=mode,
            allow_cpu_fallback=allow_cpu_fallback,
        )
    if json_out:
        out.print_json(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        out.print(trace_table(result))
        if result.probed:  # no call sample: say whose call this is, and show it
            out.print(
                f"no call sample: the facts probe built this call ({PROBE_NAMES}):", markup=False
            )
            for line in probe_code(result):
                out.print(f"  {line}", markup=False)
        if result.error:
            out.print(f"{result.status}: {result.error}", markup=False)
        for line in per_test_lines(result):
            out.print(line, markup=False)
        if result.tests_run is not None:
            out.print(
                f"tests run: {result.tests_run}; "
                f"{'all passed' if result.successful else 'not all passed'}",
                markup=False,
            )
    failed = not result.ok or result.successful is False
    return int(ExitCode.FAILED if failed else ExitCode.OK)
