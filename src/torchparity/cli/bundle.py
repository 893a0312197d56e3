"""``torchparity bundle export|verify|import``: evidence that travels and re-verifies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from .. import __version__
from ..errors import ExitCode
from ..store import Store
from ..store.bundle import export_bundle, import_bundle, verify_bundle
from ._app import DEFAULT_STORE, DebugOpt, JsonOpt, StoreOpt, app, out

bundle_app = typer.Typer(help="Export runs as a verifiable zip, verify one, import one.", no_args_is_help=True)
app.add_typer(bundle_app, name="bundle")


@bundle_app.command("export")
def export(
    runs: Annotated[list[int], typer.Argument(metavar="RUN", help="Run ids to export.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The zip to write (must not exist).")],
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Write runs (logs, records, manifest of SHA-256s) into one zip."""
    path = export_bundle(Store(store, create=False), list(runs), output, version=__version__)
    out.print(f"wrote {path} ({path.stat().st_size} bytes, runs {', '.join(map(str, runs))})", markup=False)
    return 0


@bundle_app.command("verify")
def verify(
    bundle: Annotated[Path, typer.Argument(metavar="BUNDLE", help="A bundle zip.")],
    json_out: JsonOpt = False,
    debug: DebugOpt = False,
) -> int:
    """Recompute every hash in a bundle; exit 1 if anything does not match."""
    check = verify_bundle(bundle)
    if json_out:
        out.print_json(json.dumps(check.to_json(), ensure_ascii=False))
    else:
        for problem in check.problems:
            out.print(f"{bundle}: {problem}", markup=False)
        verdict = "OK" if check.ok else "FAILED"
        out.print(f"{bundle}: {verdict}: {check.files} files, {check.runs} runs checked", markup=False)
    return int(ExitCode.OK if check.ok else ExitCode.FAILED)


@bundle_app.command("import")
def import_(
    bundle: Annotated[Path, typer.Argument(metavar="BUNDLE", help="A bundle zip.")],
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Verify a bundle, then copy its runs into the store under new ids."""
    ids = import_bundle(Store(store), bundle)
    out.print(f"imported runs as {', '.join(map(str, ids))}; see 'torchparity show ID'", markup=False)
    return 0
