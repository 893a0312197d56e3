"""The Typer application and the options every verb shares.

Verb modules in this package import ``app`` and register their commands with
``@app.command()``; ``torchparity.cli`` imports them all. The CLI holds no
logic: each command parses its flags, calls the library, prints the result.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.segment import Segment

from ..textsafe import escape_controls

app = typer.Typer(
    name="torchparity",
    help="Prove, API by API, that PyTorch behaves on a device backend as upstream says.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
def _version(value: bool) -> None:
    if value:
        from .. import __version__

        print(f"torchparity {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Prove, API by API, that PyTorch behaves on a device backend as upstream says."""


docs_app = typer.Typer(help="Native API support pages: check, lint, add, matrix.", no_args_is_help=True)
app.add_typer(docs_app, name="docs")

class SafeConsole(Console):
    """A console that never passes a control character from the data it shows to the terminal.

    Test names, outputs, file names and error messages reach the screen only through here:
    every text segment goes through ``textsafe.escape_controls`` (rich's own control sequences,
    kept apart as control segments, are left alone)."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            seg if seg.control else Segment(escape_controls(seg.text), seg.style, seg.control) for seg in buffer
        )


#: stdout for results, stderr for progress and warnings
out = SafeConsole(highlight=False, soft_wrap=True)
if not out.is_terminal:  # piped output keeps whole lines rather than 80 columns
    out.width = 160
err = SafeConsole(stderr=True, highlight=False, soft_wrap=True)

StoreOpt = Annotated[
    Path, typer.Option("--store", metavar="DIR", help="Evidence store folder.", envvar="TORCHPARITY_STORE")
]
ConfigOpt = Annotated[
    Path | None, typer.Option("--config", metavar="FILE", help="torchparity.toml to use (default: repo root, then cwd).")
]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]

DEFAULT_STORE = Path(".torchparity")

CpuFallbackOpt = Annotated[
    bool, typer.Option("--allow-cpu-fallback", help="When the requested --device is not available, run on the cpu "
                       "(the log says so) instead of stopping with exit 3.")
]

#: the argv of this invocation (set by ``main``), kept with each run in the store
INVOCATION: list[str] = []
