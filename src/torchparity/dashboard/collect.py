"""The store's facts, collected into the dashboard's typed records (``model``).

Every run that stored targets is read with ``read_run`` (checked against its seal), oldest first; each
target is one API at one branch on one product. A cell holds the newest run's state there; the
burndown counts, after each run, the APIs whose newest state in each column is PASS.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..records.run import RunRecords, TargetEvidence
from ..records.target import emulated_device
from ..report.model import target_report
from ..store import Store, read_run
from .model import (
    ApiRow,
    Burndown,
    BurnPoint,
    Cell,
    Column,
    Dashboard,
    Evidence,
    PlanSummary,
    Series,
    Skipped,
    state_rank,
)

#: the branches a backend develops on: listed before the release branches
_TRUNKS = ("master", "main")


def api_of(records: RunRecords) -> str | None:
    """The API a run is about, by its canonical name (aliases fold to one row): the verify record's,
    the resolve record's, else the task's; None for a run that names none (``run`` without ``--api``)."""
    if records.verify is not None and records.verify.canonical:
        return records.verify.canonical
    if records.resolve is not None and records.resolve.canonical:
        return str(records.resolve.canonical)
    if records.task is not None and records.task.api:
        return records.task.api
    return None


def column_of(ev: TargetEvidence, run_uid: str) -> tuple[Column, str]:
    """The target's column and the device its backend only emulated ("" on a real device).

    The product is the configured hardware only where the report model says the probe saw it
    (``hardware_matches``); an emulated run, a CPU run or an environment without hardware stands
    under the environment's name."""
    rec = ev.record
    emulated = rec.emulated or emulated_device(rec)
    seen = target_report(ev, run_uid=run_uid).hardware_matches is True and not emulated
    return Column(rec.ref, rec.hardware if seen else rec.env, seen), emulated


def _natural(text: str) -> tuple[object, ...]:
    return tuple(int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", text))


def column_order(col: Column) -> tuple[object, ...]:
    """master/main first, then release branches in version order; hardware before environments."""
    return (col.ref not in _TRUNKS, _natural(col.ref), not col.hardware, _natural(col.product))


@dataclass
class _Grid:
    """The newest cell per (API, column), and the burndown's counts after each run."""

    cells: dict[tuple[str, Column], Cell] = field(default_factory=dict)
    points: list[tuple[int, float, dict[tuple[Column, bool], int]]] = field(default_factory=list)
    seen: set[tuple[Column, bool]] = field(default_factory=set)

    def add_run(self, api: str, records: RunRecords) -> None:
        run = records.run
        newest: dict[Column, Cell] = {}
        for ev in records.targets:
            col, emulated = column_of(ev, run.uid)
            rec = ev.record
            cell = Cell(
                state=rec.result,
                emulated=emulated,
                evidence=Evidence(
                    run_id=run.id,
                    run_uid=run.uid,
                    label=rec.label,
                    env=rec.env,
                    log_sha256=ev.log_sha256,
                    finished=rec.finished or run.finished or run.created,
                ),
            )
            # two environments of one run on the same product: the worse state stands
            if col not in newest or state_rank(cell.state) < state_rank(newest[col].state):
                newest[col] = cell
        for col, cell in newest.items():
            before = self.cells.get((api, col))
            runs = 1 + (before.runs if before else 0)
            self.cells[(api, col)] = Cell(cell.state, cell.emulated, cell.evidence, runs)
            self.seen.add((col, bool(cell.emulated)))
        passing: dict[tuple[Column, bool], int] = {}
        for (_, col), cell in self.cells.items():
            if cell.state == "PASS":
                key = (col, bool(cell.emulated))
                passing[key] = passing.get(key, 0) + 1
        self.points.append((run.id, run.created, passing))

    def burndown(self, columns: tuple[Column, ...]) -> Burndown:
        series = tuple(
            Series(col, emu) for col in columns for emu in (False, True) if (col, emu) in self.seen
        )
        points = tuple(
            BurnPoint(rid, when, tuple(counts.get((s.column, s.emulated), 0) for s in series))
            for rid, when, counts in self.points
        )
        return Burndown(series, points)


def collect(store: Store, plan: PlanSummary | None = None) -> Dashboard:
    """The dashboard of every run in ``store`` that stored targets, oldest first."""
    rows = store.query(
        "SELECT id FROM runs WHERE id IN (SELECT DISTINCT run_id FROM targets) ORDER BY created, id"
    )
    grid = _Grid()
    asked: dict[str, dict[str, None]] = {}  # canonical -> the other names it was asked by, in order
    skipped: list[Skipped] = []
    newest = 0.0
    for row in rows:
        records = read_run(store, int(row["id"]))
        if not records.targets:
            continue  # its targets kept no record (cut short before one was written)
        api = api_of(records)
        if api is None:
            skipped.append(
                Skipped(
                    records.run.id, "it names no API (a 'run' without --api): no row to put it in"
                )
            )
            continue
        grid.add_run(api, records)
        for name in (
            records.task.api if records.task is not None else None,
            records.verify.doc_name if records.verify is not None else None,
        ):
            if name and name != api:
                asked.setdefault(api, {})[name] = None
        newest = max(newest, records.run.created)
    columns = tuple(sorted({col for _, col in grid.cells}, key=column_order))
    apis = sorted({api for api, _ in grid.cells}, key=lambda a: (a.lower(), a))
    api_rows = tuple(
        ApiRow(api, tuple(grid.cells.get((api, col)) for col in columns), tuple(asked.get(api, ())))
        for api in apis
    )
    return Dashboard(
        store=str(store.root),
        columns=columns,
        rows=api_rows,
        burndown=grid.burndown(columns),
        runs=len(grid.points),
        newest=newest,
        skipped=tuple(skipped),
        plan=plan,
    )


__all__ = ["api_of", "collect", "column_of", "column_order"]
