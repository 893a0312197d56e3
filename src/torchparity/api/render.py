"""Tables for people: a summary row per API, then its facts, trace and conclusions."""

from __future__ import annotations

import re

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .records import ApiInfo, Resolution, Trace

_CATEGORY_STYLE = {
    "python-state": "green",
    "python-wrapper": "cyan",
    "operator": "magenta",
    "c-binding": "blue",
    "device-runtime": "yellow",
    "other": "dim",
}
MAX_OPS_ROWS = 15


def _ops_cell(trace: Trace | None) -> str:
    """Operator calls in the classifying trace: a count, or why there is none."""
    if trace is None:
        return "-"
    if not trace.ok:
        return trace.status
    return str(trace.total_ops)


def _calls(n: int) -> str:
    return f"{n} operator call" + ("" if n == 1 else "s")


def summary_table(infos: list[ApiInfo]) -> Table:
    table = Table(title="API resolution", title_justify="left")
    table.add_column("API (→ canonical)", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    table.add_column("source", no_wrap=True)
    table.add_column("public")
    table.add_column("category", no_wrap=True)
    table.add_column("ops", no_wrap=True, justify="right")
    for info in infos:
        r = info.resolution
        name = r.query if r.query == r.canonical else f"{r.query}\n→ {r.canonical}"
        style = _CATEGORY_STYLE.get(info.category, "")
        table.add_row(
            escape(name),
            r.kind,
            escape(r.source),
            "yes" if r.public else "no",
            f"[{style}]{info.category}[/]",
            escape(_ops_cell(info.trace)),
        )
    return table


def trace_table(trace: Trace) -> Table:
    """Operators dispatched, grouped by (operator, devices), with counts."""
    n = trace.device_tensors_created
    title = (
        f"{trace.target}: {_calls(trace.total_ops)}, "
        f"{n} tensor{'' if n == 1 else 's'} created on {trace.device_type}"
    )
    table = Table(title=escape(title), title_justify="left", show_edge=False)
    table.add_column("operator")
    table.add_column("devices")
    table.add_column("count", justify="right")
    for o in trace.ops[:MAX_OPS_ROWS]:
        table.add_row(escape(o.op), "/".join(o.devices) or "-", str(o.count))
    if len(trace.ops) > MAX_OPS_ROWS:
        rest = sum(o.count for o in trace.ops[MAX_OPS_ROWS:])
        table.add_row(f"… {len(trace.ops) - MAX_OPS_ROWS} more operators", "", str(rest))
    if not trace.ops:
        table.add_row("(no operator dispatched)", "-", "0")
    return table


NOT_TRACED = "pass --test-file, or use 'torchparity trace API --call CODE'"


#: what the names the probe's code is run with stand for, where the API is not named in the text
PROBE_NAMES = "_API_ is the API, _OWNER_ its class, DEVICE the device under test"


def probe_code(trace: Trace, res: Resolution | None = None) -> list[str]:
    """The probe's call as it ran (``setup:``/``call:``/``teardown:``); with ``res``, the API and its
    class named where the code binds them (``_API_``, ``_OWNER_``)."""

    def named(text: str) -> str:
        if res is None:
            return text
        text = re.sub(r"\b_API_\b", res.canonical, text)
        return re.sub(r"\b_OWNER_\b", res.owner_class or res.canonical, text)

    code = dict(trace.code)
    lines: list[str] = []
    for key in ("setup", "call", "teardown"):
        body = [line for line in named(code.get(key, "")).splitlines() if line.strip()]
        for i, line in enumerate(body):
            lines.append((f"{key}:" if i == 0 else "").ljust(10) + line)
    return lines


def _trace_lines(trace: Trace | None, res: Resolution | None = None) -> str:
    if trace is None:
        return f"not traced (no call sample; {NOT_TRACED})"
    if trace.status == "no-sample":
        return f"not traced (no call sample; {trace.error or 'nothing to run'}); {NOT_TRACED}"
    head = f"{trace.target} [{trace.status}]"
    if trace.error:
        head += f": {trace.error}"
    if trace.probed:  # not a sample nor the user's code: the reader sees the call that ran
        head += "\nno call sample: the facts probe built this call (setup untraced)"
        if res is not None:
            head += "".join(f"\n  {line}" for line in probe_code(trace, res))
    facts = (
        f"{_calls(trace.total_ops)}; tensors created: "
        f"{dict(trace.tensors_created) or 0}; devices: {', '.join(trace.devices) or '-'}"
    )
    if trace.tests_run is not None:
        facts += (
            f"; tests run: {trace.tests_run} ({'passed' if trace.successful else 'not all passed'})"
        )
    if trace.ignored_ops:
        facts += "; bookkeeping ops not counted: " + ", ".join(
            f"{o.op}×{o.count}" for o in trace.ignored_ops
        )
    return f"{head}\n{facts}"


def per_test_lines(trace: Trace) -> list[str]:
    """``N ops  test id`` for each selected test of a file trace."""
    return [f"{t.ops:6d} ops  {t.id}" for t in trace.tests]


def detail(info: ApiInfo) -> Text:
    """``key  value`` lines (values keep their own line breaks)."""
    r = info.resolution
    kind = f"{r.kind} ({r.kind_detail})"
    if r.owner_class:
        kind += f" of {r.owner_class}"
    rows = [
        ("canonical", r.canonical),
        ("resolved", r.resolved_via) if r.resolved_via else None,
        ("aliases", ", ".join(r.aliases) or "-"),
        ("kind", kind),
        ("signature", r.signature or "-"),
        ("source", f"{r.source} (module {r.module})"),
        ("defined in", r.defined_in) if r.defined_in else None,
        ("public", f"{'yes' if r.public else 'no'}: {r.public_reason}"),
        ("docs", r.docs_url or "- (private: no upstream docs page)"),
        ("torch", r.torch_version),
        ("trace", _trace_lines(info.trace, r)),
        ("category", info.category),
        ("结论", info.classification.conclusion_zh),
        ("conclusion", info.classification.conclusion_en),
    ]
    text = Text()
    for row in rows:
        if row is None:
            continue
        key, value = row
        pad = " " * (12 - Text(key).cell_len)
        for i, line in enumerate(value.splitlines() or [""]):
            text.append((key + pad) if i == 0 else " " * 12, style="bold" if i == 0 else "")
            text.append(line + "\n")
    text.rstrip()
    return text


def render(infos: list[ApiInfo]) -> list[RenderableType]:
    out: list[RenderableType] = [summary_table(infos)]
    for info in infos:
        parts: list[RenderableType] = [
            Text(f"\n{info.resolution.query}", style="bold underline"),
            detail(info),
        ]
        if info.trace is not None and info.trace.ops:
            parts.append(trace_table(info.trace))
        out.append(Group(*parts))
    return out
