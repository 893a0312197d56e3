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

from ..config import Config, load_config
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


class Session:
    """This invocation's global settings (``--debug`` before or after the verb) and the notes it
    prints once the verb has done its work (never in front of an error line)."""

    debug = False
    notices: list[str] = []


def _debug_on(value: bool) -> bool:
    if value:
        Session.debug = True
    return value


DebugOpt = Annotated[
    bool, typer.Option("--debug", callback=_debug_on, help="Show tracebacks for errors.")
]


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
    debug: DebugOpt = False,
) -> None:
    """Prove, API by API, that PyTorch behaves on a device backend as upstream says.

    Exit codes: 0 verified, 1 verified and it fails, 2 bad input, 3 broken environment or
    store, 4 a torchparity bug, 130 interrupted.
    """


docs_app = typer.Typer(
    help="Native API support pages: check, lint, add, matrix, propose.", no_args_is_help=True
)
app.add_typer(docs_app, name="docs")


class SafeConsole(Console):
    """A console that never passes a control character from the data it shows to the terminal.

    Test names, outputs, file names and error messages reach the screen only through here:
    every text segment goes through ``textsafe.escape_controls`` (rich's own control sequences,
    kept apart as control segments, are left alone)."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            seg if seg.control else Segment(escape_controls(seg.text), seg.style, seg.control)
            for seg in buffer
        )


#: stdout for results, stderr for progress and warnings
out = SafeConsole(highlight=False, soft_wrap=True)
if not out.is_terminal:  # piped output keeps whole lines rather than 80 columns
    out.width = 160
err = SafeConsole(stderr=True, highlight=False, soft_wrap=True)

StoreOpt = Annotated[
    Path,
    typer.Option(
        "--store", metavar="DIR", help="Evidence store folder.", envvar="TORCHPARITY_STORE"
    ),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config", metavar="FILE", help="torchparity.toml to use (default: repo root, then cwd)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
AllowRepoTemplatesOpt = Annotated[
    bool,
    typer.Option(
        "--allow-repo-templates",
        help="Use the [report] templates that the backend repository's "
        "own torchparity.toml names (they render in a sandbox); without it they are ignored.",
    ),
]
EmulateOpt = Annotated[
    str | None,
    typer.Option(
        "--emulate",
        metavar="npu",
        help="Run every environment with torchparity's emulated backend "
        "(npu: an NPU emulated on CPU) first on its path; nothing is installed; logs say EMULATED.",
    ),
]

DEFAULT_STORE = Path(".torchparity")

VersionMismatchOpt = Annotated[
    bool,
    typer.Option(
        "--allow-version-mismatch",
        help="Run a ref in environments whose torch is not the release the ref targets "
        "(its version.txt / [torch_release]); every text says so. Without it such a ref is MISMATCH.",
    ),
]

CpuFallbackOpt = Annotated[
    bool,
    typer.Option(
        "--allow-cpu-fallback",
        help="When the requested --device is not available, run on the cpu "
        "(the log says so) instead of stopping with exit 3.",
    ),
]


def config_for(
    path: Path | None, repo: Path | None, *, allow_repo_templates: bool = False
) -> Config:
    """The config (``load_config``); how it was chosen, when the user did not choose it, is said on
    stderr after the verb's own output (and that the repository's report templates were ignored)."""
    cfg = load_config(path, repo, allow_repo_templates=allow_repo_templates)
    if cfg.notice and cfg.notice not in Session.notices:
        Session.notices.append(cfg.notice)
    return cfg


#: the argv of this invocation (set by ``main``), kept with each run in the store
INVOCATION: list[str] = []
