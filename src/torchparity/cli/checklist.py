"""``torchparity checklist``: the checklist alone, item by item, over test files and a commit range."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..checks import evaluate_checklist
from ..errors import ExitCode
from ..store import Store, keep, read_run
from ._app import (
    DEFAULT_STORE,
    INVOCATION,
    ConfigOpt,
    DebugOpt,
    JsonOpt,
    StoreOpt,
    app,
    config_for,
    err,
    out,
)
from ._choices import Lang
from ._pr_fields import TitleOpt

_MARK = {"pass": "PASS", "fail": "FAIL", "n.a.": "n.a."}
_STYLE = {"pass": "green", "fail": "red", "n.a.": "dim"}


@app.command()
def checklist(
    repo: Annotated[Path, typer.Option("--repo", help="Backend git repository.")],
    rev_range: Annotated[str, typer.Option("--range", help="The commits to check, BASE..HEAD.")],
    file: Annotated[
        list[str],
        typer.Option("--file", help="Target test file, relative to the repo root (repeatable)."),
    ],
    api: Annotated[
        str | None, typer.Option("--api", help="API under test (default: the runs' --api).")
    ] = None,
    run: Annotated[
        list[str] | None,
        typer.Option("--run", help="Run whose records prove restored state (repeatable)."),
    ] = None,
    title: TitleOpt = None,
    lang: Annotated[Lang, typer.Option("--lang", help="Language of titles and reasons.")] = Lang.zh,
    json_out: JsonOpt = False,
    config: ConfigOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Evaluate the checklist; exit 1 when an item fails. The result is kept in the store."""
    cfg = config_for(config, repo)
    st = Store(store)
    runs = [read_run(st, r) for r in (run or [])]
    if api is None:
        api = next((r.task.api for r in runs if r.task is not None and r.task.api), None)
    # the API's other spellings come from a resolve record of the runs given (--run), never from the store at large
    resolve = next((r.resolve.to_json() for r in runs if r.resolve is not None), None)
    result = evaluate_checklist(
        repo,
        rev_range,
        file,
        api=api,
        config=cfg,
        run_records=[ev.record for r in runs for ev in r.targets],
        title=title,
        resolve=resolve,
    )
    doc = result.to_json()
    rid = keep(st, "checklist", list(INVOCATION), [(api or ",".join(result.files), result)])
    err.print(f"kept as run {rid} in {store}", markup=False)
    if json_out:
        out.print_json(json.dumps(doc, ensure_ascii=False))
    else:
        for item in result.items:
            title_text = item.title_zh if lang is Lang.zh else item.title_en
            reason = (item.reason_zh or item.reason) if lang is Lang.zh else item.reason
            out.print(
                f"[{_STYLE[item.status]}]{_MARK[item.status]:<4}[/] {title_text}", highlight=False
            )
            out.print(f"     {reason}", markup=False, style="dim")
        c = doc["counts"]
        out.print(f"{c['pass']} pass, {c['fail']} fail, {c['n.a.']} n.a.", markup=False)
    return int(ExitCode.FAILED if result.failed else ExitCode.OK)
