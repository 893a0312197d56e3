"""Timing that tells the truth on a shared machine: ways run interleaved, medians and minimums.

Each round runs every way once, the order rotated from one round to the next (A B C, B C A,
C A B, ...), so that a burst of load from elsewhere falls on all ways alike; a figure is the
median over the rounds (the minimum beside it: what the way costs when nothing else runs).
The load average is read before and after, and printed with the figures.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence


def interleaved(ways: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    """Seconds of each way in each round (wall clock), the order rotated every round."""
    names = list(ways)
    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            started = time.perf_counter()
            ways[name]()
            times[name].append(time.perf_counter() - started)
    return times


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f} (1 min) / {five:.1f} (5 min)"


def machine(python: str) -> str:
    torch = subprocess.run(
        [python, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
    ).stdout.strip()
    return f"{os.cpu_count()} cores, torch {torch or '?'}"


def row(name: str, values: Sequence[float], width: int = 44) -> str:
    return f"{name:<{width}} {median(values):7.2f} s {min(values):7.2f} s"


def header(width: int = 44) -> str:
    return f"{'':<{width}} {'median':>9} {'min':>9}"


def check(proc: subprocess.CompletedProcess[str], what: str, ok: Sequence[int] = (0,)) -> None:
    if proc.returncode not in ok:
        raise SystemExit(
            f"{what} ended with exit {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
