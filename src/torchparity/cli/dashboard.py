"""``torchparity dashboard``: one static HTML page of APIs × branches × products from the store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..dashboard import collect, read_plan, write_dashboard
from ..store import Store
from ._app import DEFAULT_STORE, DebugOpt, StoreOpt, app, out

DEFAULT_OUT = Path("torchparity-out/dashboard")


@app.command()
def dashboard(
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Folder to write index.html into, with the evidence logs in DIR/evidence/.",
        ),
    ] = DEFAULT_OUT,
    plan: Annotated[
        Path | None,
        typer.Option(
            "--plan",
            metavar="FILE",
            help='A plan summary JSON to show the counts of: {"states": {STATE: N}, '
            '"modules": {MODULE: {STATE: N}}} (other keys are ignored).',
        ),
    ] = None,
    logs: Annotated[
        bool,
        typer.Option(
            "--logs/--no-logs",
            help="Write each cell's evidence log beside the page and link it (--no-logs: each "
            "cell names its 'torchparity show' command and log SHA-256 only).",
        ),
    ] = True,
    title: Annotated[str, typer.Option("--title", help="The page's title.")] = (
        "torchparity dashboard"
    ),
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """One HTML page, opened as a file: every API's state per branch and product (the newest run's,
    emulated runs marked as such), a link to each cell's evidence, the plan's counts and a burndown."""
    summary = read_plan(plan) if plan is not None else None
    st = Store(store, create=False)
    dash = collect(st, plan=summary)
    page = write_dashboard(dash, out_dir, st, logs=logs, title=title)
    out.print(
        f"dashboard: {page} ({len(dash.rows)} API(s), {len(dash.columns)} branch x product "
        f"column(s), {dash.runs} run(s)); open it in a browser",
        markup=False,
    )
    return 0
