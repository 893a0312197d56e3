"""``torchparity plan``: the environment's public torch API against a version's pages and a ref's tests,
ranked into a task file ``batch`` reads, with a summary per state, product and module."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..api import agent_session
from ..coverage.gitobjects import open_repo
from ..docs import DocsTree
from ..docs.tree import find_docs_dir
from ..docs.versions import normalize_version
from ..emulated import emulation, runner_settings
from ..errors import ExitCode, UsageError
from ..gitrepo import resolve_commit
from ..plan import STATES, make_plan, render_summary, summary, write_summary, write_tasks
from ..plan.rank import PLANNED, RULE
from ..store import Store
from ._app import DEFAULT_STORE, ConfigOpt, DebugOpt, EmulateOpt, app, config_for, err, out

_GREP_MODES = ("fast", "off")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
#: planned APIs whose scaffold family is asked for unless --families says otherwise (the facts cost an
#: agent job of about 1.5 s an API: 20 keep a plan of the whole surface near its minute)
DEFAULT_FAMILIES = 20


def _docs_tree(docs: Path | None, repo: Path, docs_root: str, products: object) -> DocsTree:
    found = find_docs_dir(docs, [repo], docs_root)
    if found is None:
        raise UsageError(
            f"no docs folder at {repo / docs_root}; pass --docs DIR (the folder holding pytorch_X-Y-Z/)"
        )
    return DocsTree(found, products, docs_root)  # type: ignore[arg-type]


def _check_choices(states: list[str], grep: str, modules: list[str]) -> None:
    for s in states:
        if s not in STATES:
            raise UsageError(f"--state {s!r} is not one of {', '.join(STATES)}")
    if grep not in _GREP_MODES:
        raise UsageError(f"--grep {grep!r} is not one of {', '.join(_GREP_MODES)}")
    for m in modules:
        if not _MODULE.match(m):
            raise UsageError(f"--module {m!r} is not a module name; write e.g. torch.optim")


@app.command()
def plan(
    version: Annotated[
        str,
        typer.Option(
            "--version",
            metavar="V",
            help="The pages' PyTorch version (pytorch_X-Y-Z/), e.g. 2.13.0.",
        ),
    ],
    repo: Annotated[
        Path, typer.Option("--repo", metavar="R", help="Backend git repository.")
    ] = Path("."),
    ref: Annotated[
        str,
        typer.Option("--ref", metavar="REF", help="Branch, tag or commit whose tests count."),
    ] = "HEAD",
    docs: Annotated[
        Path | None,
        typer.Option(
            "--docs",
            metavar="DIR",
            help="The native_api folder (holding pytorch_X-Y-Z/); default: the config's docs root in --repo.",
        ),
    ] = None,
    python: Annotated[
        str | None,
        typer.Option("--python", metavar="PY", help="Interpreter with torch (default: this one)."),
    ] = None,
    emulate: EmulateOpt = None,
    module: Annotated[
        list[str] | None,
        typer.Option(
            "--module",
            metavar="M",
            help="Plan only the public API under this module (repeatable; default: torch).",
        ),
    ] = None,
    state: Annotated[
        list[str] | None,
        typer.Option(
            "--state",
            metavar="S",
            help=f"States that become tasks: {', '.join(STATES)} (repeatable; default: "
            f"{', '.join(PLANNED)}).",
        ),
    ] = None,
    families: Annotated[
        int,
        typer.Option(
            "--families",
            metavar="N",
            help="Ask the scaffold family of the first N planned APIs (an agent job per API; 0: none).",
        ),
    ] = DEFAULT_FAMILIES,
    check_families: Annotated[
        bool,
        typer.Option(
            "--check-families",
            help="Run each family's candidate test as scaffold does (the family it would write; slower).",
        ),
    ] = False,
    grep: Annotated[
        str,
        typer.Option("--grep", help="The community's regex baseline per API: fast | off."),
    ] = "fast",
    tasks: Annotated[
        Path | None,
        typer.Option(
            "--tasks",
            metavar="FILE",
            help="The task file: TOML for *.toml, else one API a line (default: "
            "torchparity-out/plan-V.toml).",
        ),
    ] = None,
    summary_file: Annotated[
        Path | None,
        typer.Option(
            "--summary",
            metavar="FILE",
            help="The summary as JSON (default: the task file's name with .json).",
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", metavar="N", help="Write only the first N tasks (default: all)."),
    ] = None,
    jobs: Annotated[
        int,
        typer.Option("--jobs", "-j", help="Processes that parse test files (0: the CPU count)."),
    ] = 0,
    store: Annotated[
        Path | None,
        typer.Option(
            "--store",
            help="Store of the coverage index (default .torchparity).",
            envvar="TORCHPARITY_STORE",
        ),
    ] = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Every public API of the environment's torch as documented, ✘, or missing on a version's pages,
    with its direct tests at a ref: a ranked task file for batch and a summary."""
    states = list(state or PLANNED)
    roots = list(module or ["torch"])
    _check_choices(states, grep, roots)
    if families < 0 or jobs < 0:
        raise UsageError("--families and --jobs take 0 or a positive number")
    if limit is not None and limit < 1:
        raise UsageError(f"--limit {limit}: give a positive number of tasks")
    if emulate:
        emulation(emulate)
    # bad input is one line before any interpreter starts: the repo, the ref, the pages, the version
    root = open_repo(repo, "--repo")
    commit = resolve_commit(root, ref)
    cfg = config_for(config, root)
    tree = _docs_tree(docs, root, cfg.docs_root, cfg.docs_products)
    picked = tree.pick_versions([version])[0]
    tasks_path = tasks or Path("torchparity-out") / f"plan-{normalize_version(version)}.toml"
    summary_path = summary_file or tasks_path.with_suffix(".json")
    for path in (tasks_path, summary_path):
        path.parent.mkdir(parents=True, exist_ok=True)
    interp = python or sys.executable
    settings = runner_settings(emulate or "", cfg.backend_module, "auto" if emulate else "cpu")
    if emulate:
        err.print(emulation(emulate).note(interp), markup=False)

    def say(msg: str) -> None:
        err.print(msg, markup=False, style="dim")

    with agent_session(
        interp, settings.backend_module, settings.device, environ=settings.environ
    ) as session:
        made = make_plan(
            session,
            repo=root,
            ref=ref,
            commit=commit,
            version=picked,
            tree=tree,
            config=cfg,
            store=Store(store if store is not None else DEFAULT_STORE),
            roots=roots,
            states=states,
            families=families,
            family_check=check_families,
            regex=grep == "fast",
            jobs=jobs,
            backend_module=settings.backend_module,
            emulated=emulate or "",
            progress=say,
        )
    written = write_tasks(made, tasks_path, limit)
    doc = summary(made, str(tasks_path), written)
    write_summary(doc, summary_path)
    for line in render_summary(doc):
        out.print(line, markup=False, emoji=False)
    out.print(
        f"tasks: {written:,} written to {tasks_path} (ranked: {RULE})", markup=False, emoji=False
    )
    out.print(f"summary: {summary_path}", markup=False, emoji=False)
    return int(ExitCode.OK)
