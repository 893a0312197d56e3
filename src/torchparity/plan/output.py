"""What a plan writes: the ranked task file ``batch`` reads, and the summary (counts per state, product
and module, every API's row) as JSON.

The task file is a TOML file of ``[[task]]`` tables (``*.toml``), or one API a line (any other
suffix): the forms ``batch`` reads (``batch/tasks.py``), unchanged. What a task table may hold is the
PR's fields, so what the plan knows of each task (state, products ✘, direct tests, family) is written
as comments, which ``batch`` skips.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..fsutil import write_regular
from .build import Plan
from .pages import STATES
from .rank import RULE, PlanRow

SCHEMA = "torchparity.plan/1"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _tests_text(row: PlanRow) -> str:
    if not row.tests.direct:
        return "no direct test"
    shown = ", ".join(row.tests.tests[:3])
    more = f", … {row.tests.direct - 3} more" if row.tests.direct > 3 else ""
    return f"{row.tests.direct} direct test(s): {shown}{more}"


def _about(row: PlanRow, plan: Plan) -> str:
    """One comment line: what the plan knows of a task."""
    state = row.page.state
    if row.page.unsupported_on:
        state += f" on {', '.join(row.page.unsupported_on)}"
    where = f" ({row.page.page}:{row.page.line})" if row.page.page else ""
    regex = f"; regex lines {row.tests.regex}" if row.tests.regex is not None else ""
    family = f"; family {row.family}" if row.family else ""
    return _one_line(
        f"#{row.rank} {state}{where}; {row.api.kind} in {row.api.module}; at {plan.ref}: "
        f"{_tests_text(row)}{regex}{family}"
    )


def task_rows(plan: Plan, limit: int | None = None) -> list[PlanRow]:
    """The planned rows a task file lists, in rank order, each task name once."""
    seen: set[str] = set()
    out: list[PlanRow] = []
    for row in plan.planned:
        if row.task in seen:
            continue
        seen.add(row.task)
        out.append(row)
        if limit is not None and len(out) >= limit:
            break
    return out


def _header(plan: Plan, rows: list[PlanRow]) -> list[str]:
    s = plan.surface
    return [
        f"torchparity plan: the public API of torch {s.torch_version} ({s.python}) against the "
        f"{plan.pages.version} pages ({plan.pages.folder})",
        f"and the tests of {plan.repo} at {plan.ref} ({plan.commit[:12]}): {len(rows)} task(s) of "
        f"{len(plan.planned)} planned ({', '.join(plan.states)}).",
        f"Ranked: {RULE}.",
        f"Run them: torchparity batch THIS_FILE --repo {plan.repo} --ref {plan.ref} (with the "
        "environments bound to the products).",
    ]


def render_toml(plan: Plan, limit: int | None = None) -> str:
    rows = task_rows(plan, limit)
    lines = [f"# {line}" for line in _header(plan, rows)]
    for row in rows:
        lines += ["", "[[task]]", f"api = {json.dumps(row.task)}", f"# {_about(row, plan)}"]
    return "\n".join(lines) + "\n"


def render_text(plan: Plan, limit: int | None = None) -> str:
    rows = task_rows(plan, limit)
    lines = [f"# {line}" for line in _header(plan, rows)]
    lines += [f"{row.task}  # {_about(row, plan)}" for row in rows]
    return "\n".join(lines) + "\n"


def write_tasks(plan: Plan, path: Path, limit: int | None = None, flag: str = "--tasks") -> int:
    """Write the task file (TOML for ``*.toml``, else one API a line); returns the tasks written."""
    text = render_toml(plan, limit) if path.suffix == ".toml" else render_text(plan, limit)
    write_regular(path, text, flag)
    return len(task_rows(plan, limit))


def counts(rows: Iterable[PlanRow]) -> dict[str, int]:
    c = Counter(r.page.state for r in rows)
    return {state: c.get(state, 0) for state in STATES}


def summary(plan: Plan, tasks_file: str = "", tasks: int = 0) -> dict[str, Any]:
    """The summary document (``SCHEMA``): counts per state, product and module, and every row."""
    rows = plan.rows
    by_state = counts(rows)
    with_tests = counts(r for r in rows if r.tests.direct)
    products: dict[str, dict[str, Any]] = {}
    for code, name in plan.pages.products:
        marks = Counter(
            "supported" if ok else "unsupported" if ok is False else "not understood"
            for r in rows
            if code in r.page.products
            for ok in (r.page.products[code][1],)
        )
        products[code] = {
            "name": name,
            "supported": marks.get("supported", 0),
            "unsupported": marks.get("unsupported", 0),
            "not understood": marks.get("not understood", 0),
        }
    modules: dict[str, dict[str, int]] = {}
    for r in rows:
        per = modules.setdefault(r.api.module, {state: 0 for state in STATES})
        per[r.page.state] += 1
    families = Counter(r.family for r in rows if r.family)
    s = plan.surface
    return {
        "schema": SCHEMA,
        "repo": plan.repo,
        "ref": plan.ref,
        "commit": plan.commit,
        "test_roots": list(plan.test_roots),
        "docs": {
            "version": plan.pages.version,
            "folder": plan.pages.folder,
            "entries": plan.pages.entries,
            "not_in_surface": [{"api": api, "why": why} for api, why in plan.pages.unmatched],
        },
        "environment": {
            "python": s.python,
            "torch_version": s.torch_version,
            "backend_module": plan.backend_module,
            "emulated": plan.emulated,
            "roots": list(s.roots),
            "modules": len(s.modules),
            "failed_modules": [{"module": m, "error": why} for m, why in s.failed],
        },
        "rule": RULE,
        "states_planned": list(plan.states),
        "states": by_state,
        "counts": {**by_state, "total": len(rows), "planned": len(plan.planned)},
        "with_direct_tests": {**with_tests, "total": sum(with_tests.values())},
        "products": products,
        "modules": dict(sorted(modules.items())),
        "families": {
            "asked": plan.families_asked,
            "checked": plan.family_check,
            "counts": dict(families.most_common()),
        },
        "tasks": {"file": tasks_file, "written": tasks},
        "timings": plan.timings,
        "apis": [r.to_json() for r in rows],
    }


def dumps(doc: dict[str, Any]) -> str:
    """The summary as JSON text: indented, but each API's row on one line of its own."""
    head, _, tail = json.dumps({**doc, "apis": []}, ensure_ascii=False, indent=1).rpartition(
        '"apis": []'
    )
    rows = ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in doc["apis"])
    return f'{head}"apis": [\n{rows}\n ]{tail}\n' if rows else f'{head}"apis": []{tail}\n'


def write_summary(doc: dict[str, Any], path: Path, flag: str = "--summary") -> None:
    write_regular(path, dumps(doc), flag)


#: modules listed in the printed summary (the JSON has every one)
SHOWN_MODULES = 20


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in [head, *rows]
    ]


def render_summary(doc: dict[str, Any]) -> list[str]:
    """The printed summary of a plan's summary document."""
    env, docs, c = doc["environment"], doc["docs"], doc["counts"]
    failed = env["failed_modules"]
    lines = [
        f"torch {env['torch_version']} ({env['python']}): {c['total']:,} public APIs in "
        f"{env['modules']:,} modules"
        + (
            f"; {len(failed)} could not be imported ("
            + ", ".join(f"{f['module']}: {f['error']}" for f in failed[:3])
            + (", …" if len(failed) > 3 else "")
            + ")"
            if failed
            else ""
        ),
        f"pages {docs['version']} ({docs['folder']}): {docs['entries']:,} entries, "
        f"{len(docs['not_in_surface']):,} of them reach no API of the surface",
        f"tests at {doc['ref']} ({doc['commit'][:12]}): "
        f"{doc['with_direct_tests']['total']:,} APIs have direct tests",
        "",
    ]
    rows = [[state, f"{c[state]:,}", f"{doc['with_direct_tests'][state]:,}"] for state in STATES]
    rows.append(["total", f"{c['total']:,}", f"{doc['with_direct_tests']['total']:,}"])
    lines += _table(["state", "APIs", "with direct tests"], rows)
    if doc["products"]:
        lines.append("")
        lines += _table(
            ["product", "✔", "✘", "not understood"],
            [
                [f"{code} ({p['name']})", f"{p['supported']:,}", f"{p['unsupported']:,}"]
                + [f"{p['not understood']:,}"]
                for code, p in doc["products"].items()
            ],
        )
    modules = sorted(
        doc["modules"].items(),
        key=lambda kv: (-(kv[1]["missing"] + kv[1]["unsupported"]), kv[0]),
    )
    lines.append("")
    lines += _table(
        ["module", *STATES],
        [[m, *(f"{per[s]:,}" for s in STATES)] for m, per in modules[:SHOWN_MODULES]],
    )
    if len(modules) > SHOWN_MODULES:
        lines.append(
            f"(the {SHOWN_MODULES} modules with the most planned APIs of {len(modules):,}; "
            "the summary file has every one)"
        )
    fam = doc["families"]
    lines.append("")
    if fam["asked"]:
        shown = ", ".join(f"{name} {n:,}" for name, n in fam["counts"].items()) or "none"
        lines.append(
            f"families of the first {fam['asked']:,} planned APIs"
            + (" (their tests checked)" if fam["checked"] else "")
            + f": {shown}; the others' are not computed (an agent job per API: --families N)"
        )
    else:
        lines.append("families: not computed (an agent job per API: --families N)")
    t = doc["timings"]
    lines.append(
        f"took {sum(t.values()):.1f} s: " + ", ".join(f"{step} {s:.1f} s" for step, s in t.items())
    )
    return lines
