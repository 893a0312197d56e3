"""``torchparity docs check|lint|add|matrix|propose``: the native API support pages of a backend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..coverage.spellings import docs_names
from ..docs import (
    RULES,
    DocsTree,
    add_entry,
    build_matrix,
    check_in_tree,
    lint_paths,
    load_baseline,
    split_baselined,
    write_baseline,
)
from ..docs.check import CheckResult, api_name_problem
from ..docs.lint import summary
from ..docs.tree import find_docs_dir
from ..errors import ExitCode, UsageError
from ..fsutil import write_regular
from ..records.task import check_one_line
from ._app import (
    DEFAULT_STORE,
    INVOCATION,
    ConfigOpt,
    DebugOpt,
    JsonOpt,
    StoreOpt,
    config_for,
    docs_app,
    err,
    out,
)
from ._choices import EntryKind

DocsOpt = Annotated[
    Path | None,
    typer.Option(
        "--docs",
        help="The native_api folder (holding pytorch_X-Y-Z/); default: [docs] root under --repo or here.",
    ),
]
RepoOpt = Annotated[
    Path | None,
    typer.Option("--repo", help="Backend repository (its torchparity.toml and docs root)."),
]
VersionsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--version", help="PyTorch version, e.g. 2.7.1 (repeatable; default: every folder found)."
    ),
]


def _echo(text: str) -> None:
    typer.echo(text)


def _tree(docs: Path | None, repo: Path | None, config: Path | None) -> DocsTree:
    cfg = config_for(config, repo)
    found = find_docs_dir(docs, [*([repo] if repo is not None else []), Path.cwd()], cfg.docs_root)
    if found is None:
        where = f"{repo}/{cfg.docs_root}" if repo is not None else cfg.docs_root
        raise UsageError(
            f"no docs folder at {where}; pass --docs DIR (the folder holding pytorch_X-Y-Z/)"
        )
    return DocsTree(found, cfg.docs_products, cfg.docs_root)


def _api_names(apis: list[str]) -> None:
    """Bad input (one line, exit 2) unless every name is an API name: ``''`` or ``not an api`` would
    otherwise be reported as an API with no entry (exit 1)."""
    for name in apis:
        problem = api_name_problem(name)
        if problem:
            raise UsageError(problem)


def _statuses_text(products: dict[str, Any]) -> str:
    return (
        " ".join(f"{code}={p['status']}" for code, p in products.items()) or "(no product status)"
    )


def _print_check(result: CheckResult) -> None:
    doc = result.to_json()
    _echo(doc["api"])
    width = max((len(v["version"]) for v in doc["versions"]), default=6)
    for v, vc in zip(doc["versions"], result.versions, strict=True):
        head = f"  {v['version']:<{width}}  "
        if v["present"]:
            link = "link ok" if v["link_ok"] else f"link: {v['link_problem']}"
            as_ = f"  (as {v['found_as']})" if v["found_as"] else ""
            _echo(
                f"{head}present  {v['page']}:{v['line']}{as_}  {v['kind']}  "
                f"{_statuses_text(v['products'])}  {link}"
            )
            if v["restrictions"]:
                first = v["restrictions"].splitlines()[0]
                more = " …" if "\n" in v["restrictions"] else ""
                _echo(f"  {'':<{width}}  限制与说明: {first}{more}")
        else:
            _echo(f"{head}MISSING  {f'nearest: {vc.hint}' if vc.hint else 'no entry'}")


@docs_app.command("check")
def check(
    apis: Annotated[list[str], typer.Argument(metavar="API", help="Fully qualified API names.")],
    docs: DocsOpt = None,
    version: VersionsOpt = None,
    json_out: JsonOpt = False,
    store: Annotated[
        Path | None,
        typer.Option("--store", help="Also keep each result as a docs-check record in this store."),
    ] = None,
    repo: RepoOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Does each API have an entry in every version's pages, under any spelling? (exit 1 when one is missing)"""
    _api_names(apis)
    tree = _tree(docs, repo, config)
    results = [check_in_tree(tree, name, version, others) for name, others in map(docs_names, apis)]
    if store is not None:
        from ..store import Store, keep

        rid = keep(
            Store(store), "docs-check", list(INVOCATION), [(r.api, r.to_record()) for r in results]
        )
        err.print(f"kept as run {rid} in {store}", markup=False)
    if json_out:
        _echo(json.dumps([r.to_json() for r in results], ensure_ascii=False, indent=2))
    else:
        for r in results:
            _print_check(r)
        for r in results:
            by_parent: dict[tuple[str, str], list[str]] = {}
            for vc in r.versions:
                if not vc.present and vc.hint:
                    key = (vc.hint_api or r.api, vc.hint.split(" is at ")[0])
                    by_parent.setdefault(key, []).append(vc.version)
            for (name, parent), versions in by_parent.items():
                flags = " ".join(f"--version {v}" for v in versions)
                err.print(
                    f"add with: torchparity docs add {name} --docs {tree.root} {flags} --like {parent}",
                    markup=False,
                )
    return int(ExitCode.FAILED) if any(not r.ok for r in results) else 0


@docs_app.command("lint")
def lint(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(metavar="PATH", help="Pages or folders (default: the docs folder)."),
    ] = None,
    json_out: JsonOpt = False,
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", help="Known findings (from --write-baseline) that do not fail."),
    ] = None,
    write: Annotated[
        Path | None,
        typer.Option(
            "--write-baseline", help="Write every current finding to this file and exit 0."
        ),
    ] = None,
    docs: DocsOpt = None,
    repo: RepoOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Check pages against the writing guide's rules: path:line: rule-id message (exit 1 on findings)."""
    products = config_for(config, repo).docs_products
    targets = list(paths or []) or [_tree(docs, repo, config).root]
    findings, pages = lint_paths(targets, products)
    if write is not None:
        write_baseline(write, findings)
        err.print(f"wrote {summary(findings, pages)} to {write}", markup=False)
        return 0
    known: list[Any] = []
    if baseline is not None:
        findings, known = split_baselined(findings, load_baseline(baseline), baseline)
    if json_out:
        _echo(
            json.dumps(
                {
                    "pages": pages,
                    "pages_with_findings": len({f.path for f in findings}),
                    "baselined": len(known),
                    "rules": RULES,
                    "findings": [f.to_json() for f in findings],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        for f in findings:
            _echo(str(f))
        extra = f", {len(known)} baselined" if baseline is not None else ""
        err.print(f"{summary(findings, pages)}{extra}", markup=False)
    return int(ExitCode.FAILED) if findings else 0


@docs_app.command("add")
def add(
    api: Annotated[str, typer.Argument(metavar="API", help="Fully qualified API name to add.")],
    version: VersionsOpt = None,
    like: Annotated[
        str | None,
        typer.Option("--like", help="Copy the product statuses of this entry (per version)."),
    ] = None,
    status: Annotated[
        str | None, typer.Option("--status", help="Statuses, e.g. 910b=支持,A3=支持,950=不支持.")
    ] = None,
    restriction: Annotated[
        list[str] | None,
        typer.Option("--restriction", help="限制与说明 text (repeatable; none: no field)."),
    ] = None,
    kind: Annotated[
        EntryKind, typer.Option("--kind", help="How the entry is written.")
    ] = EntryKind.auto,
    section: Annotated[
        str | None,
        typer.Option("--section", help="Section heading for a function (default: its relatives')."),
    ] = None,
    link: Annotated[
        str | None, typer.Option("--link", help="原生文档 URL (default: derived for the version).")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the diff; write nothing.")
    ] = False,
    docs: DocsOpt = None,
    json_out: JsonOpt = False,
    repo: RepoOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Add API's entry, in each page's own format, to every version that lacks it."""
    _api_names([api])
    for text in (
        restriction or ()
    ):  # each a line of its own in the page: a newline would write an entry
        check_one_line(text, "--restriction")
    tree = _tree(docs, repo, config)
    result = add_entry(
        api,
        tree.root,
        version,
        like=like,
        statuses=status,
        restrictions=restriction or (),
        kind=kind.value,
        section=section,
        link=link,
        dry_run=dry_run,
        tree=tree,
    )
    if json_out:
        _echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
        return 0
    for c in result.changes:
        if c.action == "present":
            _echo(f"{c.page}:{c.start}: {c.api} already present ({c.kind}); nothing to change")
            continue
        where = (
            f"sub-method of {c.parent}"
            if c.parent
            else f"section {c.section!r}"
            if c.section
            else "page end"
        )
        ids = f", ids {' '.join(c.ids)}" if c.ids else ""
        verb = "would add" if dry_run else "added"
        _echo(f"{c.page}:{c.start}-{c.end}: {verb} {c.api} ({where}, {c.format} format{ids})")
        if dry_run:
            _echo(c.diff.rstrip("\n"))
    if not result.changed:
        err.print(f"nothing to change: {api} is present in every version checked", markup=False)
    elif dry_run:
        err.print("dry run: nothing written", markup=False)
    return 0


@docs_app.command("matrix")
def matrix(
    docs: DocsOpt = None,
    version: VersionsOpt = None,
    json_out: JsonOpt = False,
    csv_out: Annotated[
        bool, typer.Option("--csv", help="CSV rows: api, kind, version, product, status, ...")
    ] = False,
    repo: RepoOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Every API x version x product status."""
    if json_out and csv_out:
        raise UsageError("pass one of --json and --csv")
    m = build_matrix(versions=version, tree=_tree(docs, repo, config))
    if m.unknown:
        named = "; ".join(
            f"{name!r} {len(places)} status{'es' if len(places) > 1 else ''}, first at {places[0]}"
            for name, places in m.unknown.items()
        )
        err.print(
            f"note: statuses of products that are not configured are left out of the matrix ({named}); "
            "docs lint reports them as product-unknown; configure the product in [[docs.products]] "
            "to get its column",
            markup=False,
        )
    if json_out:
        _echo(json.dumps(m.to_json(), ensure_ascii=False, indent=2))
        return 0
    if csv_out:
        typer.echo(m.to_csv(), nl=False)
        return 0
    order = " ".join(m.products)
    out.print(
        f"{len(m.apis)} APIs x {len(m.versions)} versions; each cell: {order} "
        "(✔ supported, ✘ not, ? unclear, · no status, — no entry)",
        markup=False,
    )
    table = Table(show_edge=False)
    table.add_column("api", no_wrap=True)
    for v in m.versions:
        table.add_column(v, no_wrap=True)
    for api in m.apis:
        row = [api]
        for v in m.versions:
            c = m.cell(api, v)
            if c is None:
                row.append("—")
                continue
            marks = ""
            for code in m.products:
                ok = c.statuses.get(code, ("", "none"))[1]
                marks += "·" if ok == "none" else "?" if ok is None else "✔" if ok else "✘"
            row.append(marks)
        table.add_row(*row)
    out.print(table)
    for v in m.versions:
        missing = len(m.missing(v))
        if missing:
            out.print(f"{v}: {missing} of {len(m.apis)} APIs have no entry", markup=False)
    return 0


def _evidence_text(cell: Any) -> str:
    lines = []
    for e in cell.evidence:
        flag = "" if e.decides else f" ({e.why_code})"
        lines.append(
            f"{e.result}{flag} {e.label} run {e.run_uid[:12]} log {e.log_sha256[:12] or '-'}"
        )
    return "\n".join(lines) or "-"


def _print_proposal(proposal: Any, console: Any) -> None:
    from ..docs.propose_cells import mark

    n = proposal.counts()
    console.print(
        f"docs propose: {n['runs']} run(s), {n['targets']} target(s), {n['cells']} cell(s) "
        f"of {proposal.docs_dir}",
        markup=False,
    )
    if proposal.cells:
        table = Table(show_edge=False)
        for col in ("api", "version", "product", "page", "proposed", "state", "evidence", "why"):
            table.add_column(
                col,
                no_wrap=col in ("version", "product", "proposed", "state"),
                overflow="fold" if col == "api" else "ellipsis",
            )
        for c in proposal.cells:
            # the version is a column of its own: the page as its version folder names it
            page = (
                "no entry"
                if c.page is None
                else f"{mark(c.page.supported) if c.page.has_line else '·'} "
                f"{c.page.page.split('/', 1)[-1]}:{c.page.line}"
            )
            proposed = "-" if c.proposed is None else mark(c.proposed)
            table.add_row(
                c.api,
                c.version,
                c.product,
                page,
                proposed,
                c.state,
                _evidence_text(c),
                c.why,
            )
        console.print(table)
    for e in proposal.unbound:
        console.print(
            f"no cell: {e.label} in run {e.run_uid[:12]} ({e.result}, log {e.log_sha256[:12] or '-'}): {e.why}",
            markup=False,
        )
    for p in proposal.entries:
        if p.change is not None:
            c = p.change
            console.print(
                f"new entry: {c.page}:{c.start}-{c.end} {p.ask.api} ({c.format} format), as: "
                f"{_docs_add_line(p)}",
                markup=False,
            )
        else:
            console.print(
                f"no new entry for {p.ask.api} in {p.ask.version}: {p.refused}", markup=False
            )
    for note in proposal.notes:
        console.print(f"note: {note}", markup=False)


def _why_none(proposal: Any) -> str:
    """Why no cell is proposed, counted by reason over every target read."""
    from collections import Counter

    every = [*(e for c in proposal.cells for e in c.evidence), *proposal.unbound]
    if not every:
        return "the runs hold no target"
    codes = Counter(e.why_code or e.result for e in every)
    return "no target decides a cell (" + ", ".join(f"{n} {c}" for c, n in codes.items()) + ")"


def _docs_add_line(planned: Any) -> str:
    from ..docs.propose_edit import docs_add_command

    return str(docs_add_command(planned.ask))


@docs_app.command("propose")
def propose(
    runs: Annotated[
        list[str],
        typer.Argument(
            metavar="RUN",
            help="Runs (ids or uids) of verify, run or batch (a batch is read as its tasks' runs).",
        ),
    ],
    diff: Annotated[
        Path | None,
        typer.Option(
            "--diff",
            metavar="FILE",
            help="Write the proposed page edits (new entries) as one unified diff to FILE; "
            "'-' prints it on stdout (the table then goes to stderr).",
        ),
    ] = None,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Write the new entries into the pages through docs add's all-or-nothing writer "
            "(only in a clean, committed docs folder).",
        ),
    ] = False,
    stand_in: Annotated[
        list[str] | None,
        typer.Option(
            "--stand-in",
            metavar="ENV",
            help="A CPU environment that stands for its configured hardware (a CPU backend, a "
            "rehearsal): its PASS/FAIL decides that product's cells, and every cell it decides says "
            "'stand-in'. Never applies to an emulated device. Repeatable.",
        ),
    ] = None,
    docs: DocsOpt = None,
    version: VersionsOpt = None,
    json_out: JsonOpt = False,
    store: StoreOpt = DEFAULT_STORE,
    repo: RepoOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> int:
    """Propose each page cell (✔/✘ per product and version) from runs, with the evidence behind it;
    list contradictions and cells left to a person (exit 1 when the pages contradict the evidence)."""
    from ..coverage.spellings import docs_names
    from ..docs.propose import apply
    from ..docs.propose import propose as propose_cells
    from ..docs.propose_runs import read_runs
    from ..store import Store

    to_stdout = diff is not None and str(diff) == "-"
    if to_stdout and json_out:
        raise UsageError("--diff - and --json both print on stdout; write the diff to a file")
    tree = _tree(docs, repo, config)
    if version:
        tree.pick_versions(version)  # a version without its folder is bad input, as for check/add
    st = Store(store, create=False)
    found, notes = read_runs(st, runs, tree.products, stand_in or ())
    ran_in = {e.env for r in found for e in r.evidence}
    for env in stand_in or ():
        if env not in ran_in:
            raise UsageError(
                f"--stand-in {env}: no target of the runs ran in environment {env} "
                f"(environments: {', '.join(sorted(ran_in)) or 'none'}); name one of those"
            )
    proposal = propose_cells(found, tree, versions=version, names=docs_names, notes=notes)
    if diff is not None and not to_stdout:
        write_regular(diff, proposal.diff, "--diff")
    if write:
        proposal = apply(proposal, tree)
    if json_out:
        _echo(json.dumps(proposal.to_json(), ensure_ascii=False, indent=2))
    else:
        _print_proposal(proposal, err if to_stdout else out)
    if to_stdout:
        typer.echo(proposal.diff, nl=False)
    n = proposal.counts()
    said = (
        f"{n['contradiction']} contradiction(s), {n['left']} cell(s) left to a person, "
        f"{n['agrees']} agree(s), {n['new']} cell(s) in {n['entries']} new entr"
        f"{'y' if n['entries'] == 1 else 'ies'} on {n['pages']} page(s)"
    )
    if not any(c.proposed is not None for c in proposal.cells):
        said += f"; nothing proposed: {_why_none(proposal)}"
    if diff is not None and not to_stdout:
        said += f"; diff written to {diff}"
    if proposal.written:
        said += f"; written: {', '.join(p.rel for p in proposal.pages)}"
    elif proposal.pages and not write:
        said += "; nothing written (--write writes them)"
    err.print(said, markup=False)
    return int(ExitCode.FAILED) if proposal.contradictions else 0
