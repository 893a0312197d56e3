"""``torchparity bundle export|verify|import``: evidence that travels and re-verifies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from .. import __version__
from ..errors import ExitCode
from ..store import Store
from ..store.bundle import BundleCheck, BundleLimits, export_bundle, import_bundle, verify_bundle
from ..store.bundle_zip import parse_size
from ._app import DEFAULT_STORE, DebugOpt, JsonOpt, StoreOpt, app, out

bundle_app = typer.Typer(
    help="Export runs as a verifiable zip, verify one, import one.", no_args_is_help=True
)
app.add_typer(bundle_app, name="bundle")

_D = BundleLimits()
AllowedOpt = Annotated[
    Path | None,
    typer.Option(
        "--allowed-signers",
        metavar="FILE",
        help="Signers allowed to sign bundles (git's allowed-signers format); a signature is then required.",
    ),
]
EntriesOpt = Annotated[int, typer.Option("--max-entries", help="Most entries a bundle may hold.")]
EntrySizeOpt = Annotated[
    str,
    typer.Option(
        "--max-entry-size", metavar="SIZE", help="Most bytes one entry may expand to (e.g. 256M)."
    ),
]
TotalSizeOpt = Annotated[
    str,
    typer.Option(
        "--max-total-size", metavar="SIZE", help="Most bytes all entries may expand to (e.g. 2G)."
    ),
]


def _limits(entries: int, entry: str, total: str) -> BundleLimits:
    return BundleLimits(
        max_entries=entries, max_entry_bytes=parse_size(entry), max_total_bytes=parse_size(total)
    )


def _signature_line(bundle: Path, check: BundleCheck) -> str:
    sig = check.signature
    if sig.status == "good":
        return f"{bundle}: signed by {sig.principal} ({sig.key}), {sig.detail}"
    if sig.status == "valid":
        return f"{bundle}: signature valid, key {sig.key}; {sig.detail}"
    if sig.status == "unsigned" and check.signature_required:
        return f"{bundle}: UNSIGNED, and --allowed-signers asks for a signature"
    if sig.status == "unsigned":
        return (
            f"{bundle}: UNSIGNED: nothing shows who made it, and whoever can rewrite the file can recompute "
            "its hashes (export with --sign KEY, verify with --allowed-signers FILE)"
        )
    return f"{bundle}: signature {sig.status}: {sig.detail}"


@bundle_app.command("export")
def export(
    runs: Annotated[list[int], typer.Argument(metavar="RUN", help="Run ids to export.")],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The zip to write (must not exist).")
    ],
    sign: Annotated[
        Path | None,
        typer.Option(
            "--sign",
            metavar="KEY",
            help="Sign the manifest with this SSH private key (ssh-keygen -Y sign).",
        ),
    ] = None,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Write runs (logs, records, seals, manifest of SHA-256s) into one zip, signed with --sign."""
    path = export_bundle(
        Store(store, create=False), list(runs), output, version=__version__, sign_key=sign
    )
    signed = f", signed with {sign}" if sign is not None else ", unsigned"
    out.print(
        f"wrote {path} ({path.stat().st_size} bytes, runs {', '.join(map(str, runs))}{signed})",
        markup=False,
    )
    return 0


@bundle_app.command("verify")
def verify(
    bundle: Annotated[Path, typer.Argument(metavar="BUNDLE", help="A bundle zip.")],
    allowed_signers: AllowedOpt = None,
    max_entries: EntriesOpt = _D.max_entries,
    max_entry_size: EntrySizeOpt = f"{_D.max_entry_bytes >> 20}M",
    max_total_size: TotalSizeOpt = f"{_D.max_total_bytes >> 30}G",
    json_out: JsonOpt = False,
    debug: DebugOpt = False,
) -> int:
    """Recompute every hash, seal and signature of a bundle; exit 3 if anything disagrees."""
    check = verify_bundle(
        bundle, _limits(max_entries, max_entry_size, max_total_size), allowed_signers
    )
    if json_out:
        out.print_json(json.dumps(check.to_json(), ensure_ascii=False))
    else:
        for problem in check.problems:
            out.print(f"{bundle}: {problem}", markup=False)
        out.print(_signature_line(bundle, check), markup=False)
        if check.ok:
            out.print(
                f"{bundle}: OK: {check.files} files, {check.runs} runs checked, every seal matches",
                markup=False,
            )
        elif check.tampered:
            n = len(check.problems) + (check.signature.status == "bad")
            out.print(
                f"{bundle}: TAMPERED: {n} problem(s) in {check.files} files, {check.runs} runs; "
                "do not trust it",
                markup=False,
            )
        else:
            out.print(f"{bundle}: NOT ACCEPTED: {check.first_problem}", markup=False)
    return int(ExitCode.OK if check.ok else ExitCode.ENVIRONMENT_ERROR)


@bundle_app.command("import")
def import_(
    bundle: Annotated[Path, typer.Argument(metavar="BUNDLE", help="A bundle zip.")],
    allowed_signers: AllowedOpt = None,
    max_entries: EntriesOpt = _D.max_entries,
    max_entry_size: EntrySizeOpt = f"{_D.max_entry_bytes >> 20}M",
    max_total_size: TotalSizeOpt = f"{_D.max_total_bytes >> 30}G",
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Verify a bundle, then copy its runs into the store under new ids (all or nothing)."""
    result = import_bundle(
        Store(store), bundle, _limits(max_entries, max_entry_size, max_total_size), allowed_signers
    )
    out.print(_signature_line(bundle, result.check), markup=False)
    out.print(
        f"imported runs as {', '.join(map(str, result.ids))}; see 'torchparity show ID'",
        markup=False,
    )
    return 0
