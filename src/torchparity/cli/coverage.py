"""``torchparity coverage``: which tests already exercise an API, per ref, and why a new one is needed."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ..coverage import (
    ApiCoverage,
    CoverageReport,
    JsonSource,
    RefIndex,
    coverage_for,
    parse_upstream,
    resolve_targets,
)
from ..coverage.environment import environment
from ..coverage.justify import plural
from ..coverage.spellings import assemble
from ..errors import UsageError
from ..fsutil import read_text_file
from ..store import Store, keep
from ._app import DEFAULT_STORE, INVOCATION, ConfigOpt, DebugOpt, app, config_for, err, out

_GREP_MODES = ("auto", "git", "fast", "off")
#: hits listed per section in the text output (the JSON keeps them all)
_SHOWN = 8


def _read_apis(apis: list[str], from_file: Path | None) -> list[str]:
    names = list(apis)
    if from_file is not None:
        if not from_file.is_file():
            raise UsageError(
                f"API list not found: {from_file}; pass a file with one API name a line to --from"
            )
        for line in read_text_file(from_file, "--from").splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                names.append(line)
    if not names:
        raise UsageError("no API name given; pass API names or --from FILE (one name a line)")
    return names


def _note_unfound(cov: ApiCoverage) -> None:
    if not cov.known and not any(r.direct or r.related for r in cov.refs):
        hint = f"; did you mean {', '.join(cov.suggestions)}" if cov.suggestions else ""
        where = "static alias table" if cov.alias_source == "static" else "alias table"
        err.print(
            f"note: {cov.api} is not in the {where} and no test uses it by that name{hint}",
            markup=False,
        )


def _section(title: str, hits: tuple, total: int) -> None:
    more = f" (first {len(hits)})" if total > len(hits) else ""
    out.print(f"    {title:<8}{total}{more}", markup=False, emoji=False)
    for h in hits[:_SHOWN]:
        out.print(f"      {h.test}  L{h.line}-{h.end_line}  {h.how}", markup=False, emoji=False)
    if len(hits) > _SHOWN:
        out.print(f"      … {total - _SHOWN} more (--json lists them)", markup=False, emoji=False)


def _print_detail(cov: ApiCoverage, justification: bool) -> None:
    head = cov.api if cov.api == cov.canonical else f"{cov.api} -> {cov.canonical}"
    out.print(head, markup=False, emoji=False, style="bold")
    if not cov.known and not any(r.direct or r.related for r in cov.refs):
        table = "alias table" if cov.alias_source != "static" else "static alias table"
        out.print(f"  not in the {table}: searched literally", markup=False, emoji=False)
    if cov.suggestions:
        out.print(f"  did you mean: {', '.join(cov.suggestions)}", markup=False, emoji=False)
    for r in cov.refs:
        label = f"upstream {r.ref}" if r.upstream else r.ref
        out.print(
            f"  {label} @ {r.commit[:12]}  {plural(r.files, 'test file')}, {plural(r.tests, 'test')}, "
            f"{len(r.skipped_files)} skipped",
            markup=False,
            emoji=False,
        )
        _section("direct", r.direct, len(r.direct))
        _section("related", r.related, r.related_total)
        _section("weak", r.weak, r.weak_total)
        if r.grep is not None:
            how = (
                "matched in process" if r.grep.engine == "in-process" else f"run as {r.grep.engine}"
            )
            out.print(
                f"    regex   {r.grep.count} lines, {r.grep_in_direct} inside direct tests: "
                f"{r.grep.command} ({how})",
                markup=False,
                emoji=False,
            )
        for path, why in r.skipped_files:
            out.print(f"    skipped {path}: {why}", markup=False, emoji=False)
    if justification:
        out.print("", markup=False, emoji=False)
        out.print(cov.section_zh, markup=False, emoji=False)
        out.print("", markup=False, emoji=False)
        out.print(cov.section_en, markup=False, emoji=False)


def _print_table(report: CoverageReport) -> None:
    table = Table()
    for col in ("api", "ref", "direct", "related", "weak", "regex", "note"):
        table.add_column(col)
    for cov in report.apis:
        for r in cov.refs:
            note = (
                ""
                if cov.known or any(x.direct or x.related for x in cov.refs)
                else "not in table; literal"
            )
            table.add_row(
                cov.api,
                f"upstream {r.ref}" if r.upstream else r.ref,
                str(len(r.direct)),
                str(r.related_total),
                str(r.weak_total),
                "-" if r.grep is None else str(r.grep.count),
                note,
            )
    out.print(table)


@app.command()
def coverage(
    apis: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="API", help="API names, e.g. torch.autograd.grad_mode.set_grad_enabled.clone."
        ),
    ] = None,
    repo: Annotated[
        Path, typer.Option("--repo", help="Backend git repository (a checkout or a bare repo).")
    ] = Path("."),
    ref: Annotated[
        list[str] | None,
        typer.Option("--ref", help="Branch, tag or commit (repeatable; default HEAD)."),
    ] = None,
    tests: Annotated[
        list[str] | None,
        typer.Option(
            "--tests",
            help="Test root inside the repo (repeatable; default: the config's test_roots).",
        ),
    ] = None,
    upstream: Annotated[
        list[str] | None,
        typer.Option(
            "--upstream",
            help="Upstream PyTorch repo PATH[@REF], searched under test/ (repeatable).",
        ),
    ] = None,
    aliases: Annotated[
        Path | None,
        typer.Option(
            "--aliases",
            help="JSON of what resolve learnt (aliases, bases, is_class, defines, returns), on top of the static table.",
        ),
    ] = None,
    python: Annotated[
        str | None,
        typer.Option(
            "--python",
            metavar="PY",
            help="Resolve the names first in this interpreter (with torch); its answers and type facts win over the static ones.",
        ),
    ] = None,
    docs: Annotated[
        Path | None,
        typer.Option(
            "--docs",
            help="Native API pages folder (default: the repo's docs root): the backend spellings they state count too.",
        ),
    ] = None,
    from_file: Annotated[
        Path | None,
        typer.Option("--from", help="File with one API name a line (# comments allowed)."),
    ] = None,
    grep: Annotated[
        str,
        typer.Option(
            "--grep",
            help="Regex baseline: auto | git (run git grep) | fast (same match in process) | off.",
        ),
    ] = "auto",
    detail: Annotated[
        bool,
        typer.Option(
            "--detail", help="Full listing for every API of a batch (default for one API)."
        ),
    ] = False,
    jobs: Annotated[
        int,
        typer.Option("--jobs", "-j", help="Processes that parse test files (0: the CPU count)."),
    ] = 0,
    json_out: Annotated[
        bool,
        typer.Option("--json", help="Print the coverage records as JSON (a list, one per API)."),
    ] = False,
    store: Annotated[
        Path | None,
        typer.Option(
            "--store",
            help="Evidence store: keeps each record (kind 'coverage'); the parse cache lives there too.",
            envvar="TORCHPARITY_STORE",
        ),
    ] = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Which tests already exercise each API at each ref: direct, related, weak, and the git grep baseline."""
    if grep not in _GREP_MODES:
        raise UsageError(f"--grep {grep!r} is not one of {', '.join(_GREP_MODES)}")
    if jobs < 0:
        raise UsageError(f"--jobs {jobs}: give a positive number (0: the CPU count)")
    names = _read_apis(list(apis or []), from_file)
    cfg = config_for(config, repo if repo.is_dir() else None)
    tests_roots = list(tests or []) or list(cfg.test_roots)
    ups = [parse_upstream(u) for u in upstream or []]
    learnt = JsonSource(aliases).alias_table() if aliases is not None else None
    the_store = Store(store if store is not None else DEFAULT_STORE)
    env = None
    if python is not None:
        resolve_targets(
            repo, list(ref or []), tests_roots, ups
        )  # a bad ref fails before the interpreter starts
        env = environment(names, python, cfg.backend_module, the_store)
    spellings = assemble(
        names,
        cfg,
        repo=repo if repo.is_dir() else None,
        docs=docs,
        resolutions=env.resolutions if env else (),
        learnt=learnt,
        types=env.types if env else None,
        store=the_store,
    )
    for note in spellings.notes():
        err.print(note, markup=False, style="dim")
    started = time.perf_counter()

    def progress(ix: RefIndex, seconds: float) -> None:
        where = f"{ix.repo.name}@{ix.ref}"
        how = (
            "the index built before, loaded"
            if ix.kept
            else f"{ix.parsed} parsed, {len(ix.files) - ix.parsed} from cache"
        )
        err.print(
            f"indexed {where}: {plural(len(ix.files), 'test file')} ({how}), {plural(ix.tests, 'test')}, "
            f"{len(ix.skipped)} skipped in {seconds:.2f} s",
            markup=False,
            style="dim",
        )

    # a batch as JSON (and not kept): each record written as it is made, never all of them in memory
    stream = json_out and store is None and len(names) > 1
    written = 0

    def write(cov: ApiCoverage) -> None:
        nonlocal written
        _note_unfound(cov)
        sys.stdout.write(
            ("[" if not written else ", ") + json.dumps(cov.to_json(), ensure_ascii=False)
        )
        written += 1

    report = coverage_for(
        names,
        repo,
        list(ref or []),
        the_store,
        tests=tests_roots,
        aliases=spellings.table,
        upstream=ups,
        grep=grep,
        jobs=jobs,
        progress=progress,
        each=write if stream else None,
    )
    if stream:
        sys.stdout.write(("]" if written else "[]") + "\n")
    err.print(
        f"{report.answered} API(s) answered in {time.perf_counter() - started:.2f} s",
        markup=False,
        style="dim",
    )
    if stream:
        return 0
    if store is not None:
        rid = keep(the_store, "coverage", list(INVOCATION), [(cov.api, cov) for cov in report.apis])
        err.print(f"kept as run {rid} in {store}", markup=False, style="dim")
    for cov in report.apis:
        _note_unfound(cov)
    if json_out:
        # written as it is: a batch's records run to millions of lines, more than a console should lay out
        indent = (
            2 if len(report.apis) == 1 else None
        )  # a batch on one line each: json's fast encoder
        sys.stdout.write(json.dumps(report.to_json(), ensure_ascii=False, indent=indent) + "\n")
        return 0
    if len(report.apis) == 1 or detail:
        for cov in report.apis:
            _print_detail(cov, justification=len(report.apis) == 1 or detail)
            out.print("", markup=False, emoji=False)
    else:
        _print_table(report)
    return 0
