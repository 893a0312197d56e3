"""What a running batch shows: a live table on a terminal, a plain line log otherwise.

Both say the same things: tasks done of total, failures so far, about how long
is left (the mean time of the tasks finished in this session, over the tasks
left, at the batch's concurrency), and for each running task its API, its stage
and its targets so far. The log writes one line per event, so a CI log or a
file shows the same story in order.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from ..records.batch import BatchTaskState


@dataclass
class _Running:
    api: str
    started: float
    stage: str = "queued"
    targets: list[str] = field(default_factory=list)


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


class BatchProgress:
    """Thread-safe: the tasks' threads report, the display reads."""

    def __init__(self, console: Console, total: int, jobs: int, live: bool | None = None) -> None:
        self.console = console
        self.total = total
        self.jobs = max(1, jobs)
        self.live = console.is_terminal if live is None else live
        self.done = 0
        self.failed = 0
        self.kept = 0  # finished by an earlier session (resume)
        #: the batch's uid, once its run exists (what --resume takes)
        self.batch_uid = ""
        self._durations: list[float] = []
        self._running: dict[int, _Running] = {}
        self._lock = threading.Lock()
        self._live: Live | None = None

    def __enter__(self) -> BatchProgress:
        if self.live:
            self._live = Live(
                get_renderable=self._render,
                console=self.console,
                refresh_per_second=4,
                transient=True,
            )
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None

    # -- events -------------------------------------------------------------------------------------
    def kept_done(self, state: BatchTaskState) -> None:
        """A task finished before this session (a resumed batch): counted, not run again."""
        with self._lock:
            self.done += 1
            self.kept += 1
            self.failed += state.result != "PASS"
        self._line(f"{state.api}: {self._word(state)} (kept from before the resume)")

    def task_started(self, index: int, api: str) -> None:
        with self._lock:
            self._running[index] = _Running(api, time.monotonic())
        self._line(f"{api}: started")

    def stage(self, index: int, name: str, detail: str = "") -> None:
        with self._lock:
            run = self._running.get(index)
            if run is not None:
                run.stage = name
        if run is not None:
            self._line(f"{run.api}: {name}{': ' + detail if detail else ''}")

    def target_done(self, index: int, label: str, result: str, said: tuple[str, ...] = ()) -> None:
        """``said``: what happened to the target on the way (a node lost and the retry), in words."""
        with self._lock:
            run = self._running.get(index)
            if run is not None:
                run.targets.append(f"{label}={result}")
        if run is not None:
            self._line(f"{run.api}: target {label} {result}" + "".join(f"; {s}" for s in said))
            if said and self._live is not None:
                self.console.print(
                    f"{run.api}: {label}: " + "; ".join(said), markup=False, highlight=False
                )

    def task_finished(self, index: int, state: BatchTaskState | None) -> None:
        """``state`` None: the task was interrupted (it resumes later)."""
        with self._lock:
            run = self._running.pop(index, None)
            if state is not None:
                self.done += 1
                self.failed += state.result != "PASS"
                if run is not None:
                    self._durations.append(time.monotonic() - run.started)
        if state is not None:
            self._line(
                f"{state.api}: {self._word(state)} in {_clock(state.seconds)} ({self.summary()})"
            )

    # -- what is shown ---------------------------------------------------------------------------------
    @staticmethod
    def _word(state: BatchTaskState) -> str:
        if state.status == "failed":
            return f"FAILED TO RUN: {state.error}"
        return state.result

    def eta(self) -> float | None:
        with self._lock:
            left = self.total - self.done
            if not self._durations or left <= 0:
                return None if left > 0 else 0.0
            mean = sum(self._durations) / len(self._durations)
            return mean * left / min(self.jobs, left)

    def summary(self) -> str:
        eta = self.eta()
        left = "" if eta is None else f", about {_clock(eta)} left"
        return f"{self.done}/{self.total} tasks done, {self.failed} not passed{left}"

    def _line(self, text: str) -> None:
        if self._live is None:
            self.console.print(f"[batch] {text}", markup=False, highlight=False)

    def _render(self) -> Group:
        table = Table(show_header=True, header_style="bold", expand=False, box=None)
        for col in ("task", "stage", "targets", "time"):
            table.add_column(col)
        now = time.monotonic()
        with self._lock:
            running = sorted(self._running.values(), key=lambda r: r.started)
        for r in running:
            table.add_row(r.api, r.stage, ", ".join(r.targets[-4:]) or "-", _clock(now - r.started))
        return Group(Text(f"batch: {self.summary()}; {len(running)} running"), table)


__all__ = ["BatchProgress"]
