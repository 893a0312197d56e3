"""``torchparity attest RUN``: an in-toto test-result statement of a run, signed when a key is given."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..review import attest_run
from ..store import Store
from ._app import DEFAULT_STORE, DebugOpt, StoreOpt, app, out


@app.command()
def attest(
    run: Annotated[int, typer.Argument(metavar="RUN", help="The run to attest.")],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The statement file to write (must not exist).")
    ],
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            metavar="FILE",
            help="Private SSH key to sign with (ssh-keygen -Y sign; FILE.sig beside "
            "the statement).",
        ),
    ] = None,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Write the run's test results as an in-toto statement (predicate test-result/v0.1)."""
    made = attest_run(Store(store, create=False), run, output, key)
    subjects = ", ".join(s["digest"]["gitCommit"][:12] for s in made.statement["subject"])
    pred = made.statement["predicate"]
    out.print(f"wrote {made.path} (subject {subjects}, result {pred['result']})", markup=False)
    for e in pred.get("emulated", []):
        out.print(f"emulated: {e['target']} ({e['note']})", markup=False)
    if made.signature is not None:
        out.print(f"signed: {made.signature}", markup=False)
    return 0
