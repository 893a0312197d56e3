"""``torchparity runs`` and ``torchparity show``: what the store holds."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated

import typer
from rich.table import Table

from ..errors import UsageError
from ..records.target import emulated_device, record_from_json
from ..report.logkeys import check_log
from ..store import Store
from ..store.db import TargetRow
from ..textsafe import escape_controls, one_line
from ._app import DEFAULT_STORE, DebugOpt, JsonOpt, StoreOpt, app, err, out


def _when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts)) if ts else "-"


def _emulated(st: Store, t: TargetRow) -> str:
    """The device the target's backend only emulated ("" on hardware), from its sealed record."""
    if not t.record_sha:
        return ""
    rec = record_from_json(st.read_json(t.record_sha))
    return rec.emulated or emulated_device(rec)


def _result(result: str | None, emulated: list[str]) -> str:
    """A result as listed: an emulated one says so (a dry run, never hardware evidence)."""
    text = result or "-"
    return f"{text} (emulated {', '.join(emulated)})" if emulated else text


@app.command()
def runs(
    limit: Annotated[int, typer.Option("--limit", help="How many recent runs.")] = 50,
    json_out: JsonOpt = False,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """List runs: id, time, targets, result (an emulated target's says so: a dry run, not hardware evidence)."""
    st = Store(store, create=False)
    rows = st.runs(limit)
    listed = [(r, [(t, _emulated(st, t)) for t in st.targets(r.id)]) for r in rows]
    if json_out:
        doc = [
            {
                "id": r.id,
                "kind": r.kind,
                "created": r.created,
                "finished": r.finished,
                "status": r.status,
                "result": r.result,
                "emulated": sorted({emu for _, emu in targets if emu}),
                "targets": [
                    {"label": t.label, "result": t.result, "emulated": emu, "log_sha256": t.log_sha}
                    for t, emu in targets
                ],
            }
            for r, targets in listed
        ]
        out.print_json(json.dumps(doc, ensure_ascii=False))
        return 0
    table = Table()
    for col in ("id", "time", "kind", "targets", "result", "status"):
        table.add_column(col)
    for r, targets in listed:
        shown = (
            ", ".join(f"{t.label}={_result(t.result, [emu] if emu else [])}" for t, emu in targets)
            or "-"
        )
        status = "incomplete (its process is gone)" if r.orphaned else r.status
        emulated = sorted({emu for _, emu in targets if emu})
        table.add_row(
            str(r.id), _when(r.created), r.kind, shown, _result(r.result, emulated), status
        )
    out.print(table)
    return 0


@app.command()
def show(
    run: Annotated[str, typer.Argument(metavar="RUN", help="Run id (see 'torchparity runs').")],
    target: Annotated[
        str | None, typer.Option("--target", help="Only this target (ref@env).")
    ] = None,
    record: Annotated[
        bool, typer.Option("--record", help="Print the JSON record instead of the log.")
    ] = False,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Print a run's evidence logs (verified against their SHA-256); exit 1 when a log holds a key the tool
    writes once twice (its KEY=VALUE lines cannot be trusted)."""
    st = Store(store, create=False)
    row = st.run(run)
    targets = st.targets(row.id)
    if target is not None:
        targets = [t for t in targets if t.label == target]
        if not targets:
            known = ", ".join(t.label for t in st.targets(row.id)) or "none"
            raise UsageError(f"run {row.id} has no target {target!r}; its targets: {known}")
    if not targets:
        out.print(f"run {row.id} has no stored target (status: {row.status})", markup=False)
        return 0
    rc = 0
    for t in targets:
        sha = t.record_sha if record else t.log_sha
        if sha is None:
            continue
        data = st.blobs.read(sha)  # raises StoreCorrupt (exit 3) when the bytes changed
        sys.stdout.flush()
        if out.is_terminal:  # a test's escape sequences are shown, never obeyed by the terminal
            sys.stdout.write(escape_controls(data.decode("utf-8", "replace")))
            sys.stdout.flush()
        else:  # piped: the evidence byte for byte (its SHA-256 checks out), no markup or tab expansion
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        out.print(
            f"# {'record' if record else 'log'} sha256 {sha} verified", markup=False, style="dim"
        )
        problem = "" if record else check_log(data.decode("utf-8", "replace"))
        if problem:
            err.print(
                f"ERROR: the log of run {row.id} target {one_line(t.label)} ({sha[:12]}) is rejected: "
                f"{problem}",
                markup=False,
            )
            rc = 1
    return rc
