"""Progress display and the summary table for collector runs (terminal only)."""

from __future__ import annotations

from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..collect import Reporter, Step, Target, TargetRecord
from ._app import err

_STYLE = {
    "PASS": "green",
    "FAIL": "red",
    "NONE_RAN": "red",
    "MISMATCH": "yellow",
    "ERROR": "red",
    "INCOMPLETE": "yellow",
}


class ProgressReporter(Reporter):
    def __init__(self) -> None:
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} steps"),
            TimeElapsedColumn(),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        )
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> ProgressReporter:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(*exc)  # type: ignore[arg-type]

    def target_started(self, target: Target, steps: int) -> None:
        self._tasks[target.label] = self.progress.add_task(target.label, total=steps)

    def step_done(self, target: Target, step: Step) -> None:
        reason = step.result.get("device_reason") if step.name == "probe" else None
        if reason and step.result.get("device_requested") == "auto":
            err.print(
                f"{target.label}: device {step.result.get('device_type')} ({reason})", markup=False
            )
        task = self._tasks.get(target.label)
        if task is not None:
            self.progress.update(
                task, advance=1, description=f"{target.label}: {step.name} {step.status}"
            )

    def target_done(self, target: Target, record: TargetRecord) -> None:
        task = self._tasks.get(target.label)
        if task is not None:
            self.progress.update(task, description=f"{target.label}: {record.result}")
        if not err.is_terminal:
            err.print(f"{target.label}: {record.result}", markup=False)


def emulated_table(title: str, emulated: list[str]) -> Table:
    """A table titled ``title``; ``emulated``: each target's emulated device ("" for a real one), so a
    table of emulated targets says so in its title and caption."""
    names = sorted({e for e in emulated if e})
    if names:
        title += f" (EMULATED {', '.join(names)} on CPU)"
    caption = (
        (
            f"EMULATED: {sum(1 for e in emulated if e)} of {len(emulated)} target(s) ran on an emulated "
            f"{', '.join(names)}: a dry run, not hardware evidence"
        )
        if names
        else None
    )
    return Table(title=title, title_justify="left", caption=caption, caption_justify="left")


def summary_table(run_id: int, records: list[TargetRecord], log_shas: dict[str, str]) -> Table:
    table = emulated_table(f"run {run_id}", [r.emulated for r in records])
    for col in (
        "target",
        "commit",
        "result",
        "files",
        "tests",
        "leaks",
        "isolation",
        "seconds",
        "log sha256",
    ):
        table.add_column(col)
    for r in records:
        # a file that failed before any test ran (an import error) shows here, not in the tests count
        files_ok = sum(1 for s in r.full if (s.verdict == "PASS" if s.verdict else s.ok))
        tests = sum(len(s.tests) for s in r.full)
        api = r.api_counts()
        bad = sum(1 for s in r.full for t in s.tests if t.outcome in ("failed", "error"))
        probed = [
            s for s in r.isolation if not s.result.get("skipped")
        ]  # a skipped probe ran nothing
        iso = (
            "-"
            if not probed
            else ("PASS" if all(s.ok and s.result.get("passed") for s in probed) else "FAIL")
        )
        leak_status = r.leak_verdict()[0]
        leaks = (
            str(len(r.leaks))
            if leak_status in ("PASS", "LEAKS")
            else leak_status.lower().replace("_", " ")
        )
        table.add_row(
            r.label,
            "-" if r.commit.startswith("n/a") else r.commit[:12],
            f"[{_STYLE.get(r.result, 'default')}]{r.result}[/]"
            + (" (emulated)" if r.emulated else ""),
            f"{files_ok}/{len(r.full)}" if r.full else "-",
            (f"{api['passed']}/{api['total']}" if api["total"] else "-")
            if r.api_tests or any(tf.selection for tf in r.test_files)
            else (f"{tests - bad}/{tests}" if tests else "-"),
            leaks,
            iso,
            f"{r.finished - r.started:.1f}",
            log_shas.get(r.label, "")[:16],
        )
    return table
