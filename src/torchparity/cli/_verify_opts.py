"""The options ``verify`` and ``batch`` share: one spelling, one help."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

RepoOpt = Annotated[
    Path | None, typer.Option("--repo", metavar="R", help="Backend git repository.")
]
RefOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--ref",
        metavar="REF",
        help="Branch, tag or commit (repeatable; default: the config's active branches).",
    ),
]
EnvOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--env", metavar="NAME", help="Named environment from torchparity.toml (repeatable)."
    ),
]
PythonOpt = Annotated[
    list[str] | None,
    typer.Option("--python", metavar="PY", help="Interpreter with torch (repeatable)."),
]
DeviceOpt = Annotated[
    str | None, typer.Option("--device", metavar="D", help="auto|cpu|cuda|npu|xpu|mps|<name>.")
]
DocsOpt = Annotated[
    Path | None,
    typer.Option(
        "--docs",
        metavar="DIR",
        help="Native API docs folder (default: the repo's, when it has one).",
    ),
]
DocsVersionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--docs-version", metavar="V", help="Docs versions to check (default: all found)."
    ),
]
DocsAddOpt = Annotated[
    bool, typer.Option("--docs-add", help="Add missing docs entries (statuses like the parent).")
]
DocsStatusOpt = Annotated[
    str | None,
    typer.Option(
        "--docs-status",
        metavar="S",
        help="Statuses for --docs-add instead of the parent's, e.g. 910b=支持,A3=支持,950=不支持.",
    ),
]
ScaffoldOpt = Annotated[
    bool, typer.Option("--scaffold", help="Write a new test even when a direct test exists.")
]
FreshOpt = Annotated[
    bool, typer.Option("--fresh", help="A new interpreter per step instead of the warm worker.")
]
TimeoutOpt = Annotated[float, typer.Option("--timeout", metavar="S", help="Seconds per step.")]
RayOpt = Annotated[
    str | None,
    typer.Option(
        "--ray",
        metavar="ADDRESS",
        help="Ray cluster: environments with a ray table run on a matching node (default: [ray] address).",
    ),
]
ContinueOpt = Annotated[
    int | None,
    typer.Option(
        "--continue-run", hidden=True, help="(set by --resume) the run this invocation continues."
    ),
]
