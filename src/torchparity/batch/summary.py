"""The batch summary: one row per task (refs, environments, result, what blocks it, its PR texts),
as JSON and as a Markdown table, and the PR texts grouped by the branch they go to."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write
from ..records.batch import BatchPlan, BatchTaskState


@dataclass(frozen=True)
class Row:
    index: int
    api: str
    refs: tuple[str, ...]
    envs: tuple[str, ...]
    result: str  # PASS | FAIL | ERROR | NOT RUN (failed) | INCOMPLETE (not finished)
    blockers: tuple[str, ...]
    run: str
    #: target branch -> its PR text
    prs: dict[str, str]
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.api,
            "index": self.index,
            "refs": list(self.refs),
            "envs": list(self.envs),
            "result": self.result,
            "blockers": list(self.blockers),
            "run": self.run,
            "prs": self.prs,
            "error": self.error,
        }


def rows(plan: BatchPlan, states: dict[int, BatchTaskState]) -> list[Row]:
    out = []
    for task in plan.tasks:
        st = states.get(task.index)
        outputs = dict(st.outputs) if st is not None else {}
        refs = (
            tuple(dict.fromkeys(t.label.split("@", 1)[0] for t in st.targets))
            if st and st.targets
            else (task.refs or plan.refs)
        )
        if st is None or st.status == "started":
            result = "INCOMPLETE"
        elif st.status == "failed":
            result = "NOT RUN"
        else:
            result = st.result
        prs = {k.split("@", 1)[1]: v for k, v in outputs.items() if k.startswith("pr@")}
        out.append(
            Row(
                task.index,
                task.api,
                tuple(refs),
                plan.envs,
                result,
                st.blockers if st is not None else (),
                st.run_uid if st is not None else "",
                prs,
                st.error if st is not None else "",
            )
        )
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(plan: BatchPlan, table: list[Row], batch_uid: str) -> str:
    counts: dict[str, int] = {}
    for r in table:
        counts[r.result] = counts.get(r.result, 0) + 1
    lines = [
        f"# Batch {batch_uid[:12]}: {len(table)} task(s) from {Path(plan.source).name}",
        "",
        ", ".join(f"{n} {k}" for k, n in sorted(counts.items())),
        "",
        "| task | refs | envs | result | blockers | run | PR texts |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table:
        blockers = "<br>".join(_cell(b) for b in r.blockers) or (_cell(r.error) if r.error else "-")
        prs = "<br>".join(f"{ref}: {path}" for ref, path in r.prs.items()) or "-"
        lines.append(
            f"| `{r.api}` | {', '.join(r.refs) or '-'} | {', '.join(r.envs)} | {r.result} | {blockers} | "
            f"{r.run[:12] or '-'} | {prs} |"
        )
    branches: dict[str, list[tuple[str, str]]] = {}
    for r in table:
        for ref, path in r.prs.items():
            branches.setdefault(ref, []).append((r.api, path))
    if branches:
        lines += ["", "## PRs per target branch"]
        for ref, items in branches.items():
            lines += ["", f"### {ref}", ""]
            lines += [f"- `{api}`: {path}" for api, path in items]
    return "\n".join(lines) + "\n"


def write(
    out: Path, plan: BatchPlan, states: dict[int, BatchTaskState], batch_uid: str, complete: bool
) -> tuple[Path, Path]:
    """``batch-summary.md`` and ``batch-summary.json`` in ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    table = rows(plan, states)
    doc = {
        "batch": batch_uid,
        "complete": complete,
        "source": plan.source,
        "form": plan.form,
        "envs": list(plan.envs),
        "ray_envs": list(plan.ray_envs),
        "tasks": [r.to_json() for r in table],
    }
    md, js = out / "batch-summary.md", out / "batch-summary.json"
    atomic_write(md, markdown(plan, table, batch_uid))
    atomic_write(js, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    return md, js


__all__ = ["Row", "markdown", "rows", "write"]
