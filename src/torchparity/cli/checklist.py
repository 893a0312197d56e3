"""``torchparity checklist``: the checklist alone, item by item, over test files and a commit range."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..config import load_config
from ..errors import ExitCode
from ..report import evaluate_checklist, find_resolve
from ..report.build import api_from_argv
from ..store import Store
from ._app import DEFAULT_STORE, ConfigOpt, DebugOpt, JsonOpt, StoreOpt, app, out
from ._pr_fields import TitleOpt

_MARK = {"pass": "PASS", "fail": "FAIL", "n.a.": "n.a."}
_STYLE = {"pass": "green", "fail": "red", "n.a.": "dim"}


@app.command()
def checklist(
    repo: Annotated[Path, typer.Option("--repo", help="Backend git repository.")],
    rev_range: Annotated[str, typer.Option("--range", help="The commits to check, BASE..HEAD.")],
    file: Annotated[list[str], typer.Option("--file", help="Target test file, relative to the repo root (repeatable).")],
    api: Annotated[str | None, typer.Option("--api", help="API under test (default: the runs' --api).")] = None,
    run: Annotated[list[str] | None, typer.Option("--run", help="Run whose records prove restored state (repeatable).")] = None,
    title: TitleOpt = None,
    lang: Annotated[str, typer.Option("--lang", help="zh | en: language of titles and reasons.")] = "zh",
    json_out: JsonOpt = False,
    config: ConfigOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    debug: DebugOpt = False,
) -> int:
    """Evaluate the checklist; exit 1 when an item fails. The result is kept in the store."""
    cfg = load_config(config, repo)
    st = Store(store)
    run_rows = [st.run(r) for r in (run or [])]
    if api is None:
        api = next((a for a in (api_from_argv(r.argv) for r in run_rows) if a), None)
    records = [st.read_json(t.record_sha) for r in run_rows for t in st.targets(r.id) if t.record_sha]
    result = evaluate_checklist(repo, rev_range, file, api=api, config=cfg, run_records=records, title=title,
                                resolve=find_resolve(st, api))
    doc = result.to_json()
    st.put_record("checklist", api or ",".join(result.files), doc, run_id=run_rows[0].id if run_rows else None)
    if json_out:
        out.print_json(json.dumps(doc, ensure_ascii=False))
    else:
        for item in result.items:
            title_text = item.title_zh if lang == "zh" else item.title_en
            reason = (item.reason_zh or item.reason) if lang == "zh" else item.reason
            out.print(f"[{_STYLE[item.status]}]{_MARK[item.status]:<4}[/] {title_text}", highlight=False)
            out.print(f"     {reason}", markup=False, style="dim")
        c = doc["counts"]
        out.print(f"{c['pass']} pass, {c['fail']} fail, {c['n.a.']} n.a.", markup=False)
    return int(ExitCode.FAILED if result.failed else ExitCode.OK)
