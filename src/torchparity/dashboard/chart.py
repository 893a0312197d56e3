"""The burndown as an inline SVG's geometry, worked out in Python: the page draws it with no script.

One line per series (a branch on a product; its emulated passes a dashed line of their own), one
point per run in time order, the height the number of APIs passing there after that run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .model import Burndown

#: distinct colours that read on white, one per column (an emulated series takes its column's, dashed)
PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
)
WIDTH, HEIGHT = 760, 280
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 16, 40
#: at most this many run labels under the x axis (every k-th run beyond it)
X_LABELS = 12


@dataclass(frozen=True)
class Line:
    name: str
    colour: str
    dashed: bool
    points: str  # "x,y x,y ..." for <polyline points>
    dots: tuple[tuple[float, float, str], ...]  # (x, y, tooltip) per run
    last: int


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    top: int
    right: int  # the plot's right edge (x)
    bottom: int  # the plot's bottom edge (y)
    lines: tuple[Line, ...]
    y_ticks: tuple[tuple[float, int], ...]
    x_ticks: tuple[tuple[float, str], ...]


def when(ts: float) -> str:
    """A time as the page states it (UTC, so that the page reads the same wherever it was made)."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts)) if ts else "-"


def _step(top: int) -> int:
    """A round tick step that puts 2 to 5 ticks up to ``top``."""
    step = 1
    while top / step > 5:
        for mult in (2, 5, 10):
            if top / (step * mult) <= 5:
                return step * mult
        step *= 10
    return step


def chart(burn: Burndown) -> Chart:
    n = len(burn.points)
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM
    top_value = max((v for p in burn.points for v in p.passing), default=0)
    top_value = max(top_value, 1)
    step = _step(top_value)
    y_max = -(-top_value // step) * step

    def x(i: int) -> float:
        return round(LEFT + (right - LEFT) * (i / (n - 1) if n > 1 else 0.5), 1)

    def y(v: int) -> float:
        return round(bottom - (bottom - TOP) * v / y_max, 1)

    lines = []
    colours: dict[str, str] = {}
    for s_i, series in enumerate(burn.series):
        colour = colours.setdefault(series.column.key, PALETTE[len(colours) % len(PALETTE)])
        values = [p.passing[s_i] for p in burn.points]
        dots = tuple(
            (x(i), y(v), f"{series.name}: {v} API(s) passing after run {p.run_id} ({when(p.when)})")
            for i, (p, v) in enumerate(zip(burn.points, values, strict=True))
        )
        lines.append(
            Line(
                name=series.name,
                colour=colour,
                dashed=series.emulated,
                points=" ".join(f"{dx},{dy}" for dx, dy, _ in dots),
                dots=dots,
                last=values[-1] if values else 0,
            )
        )
    every = max(1, -(-n // X_LABELS))
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        top=TOP,
        right=right,
        bottom=bottom,
        lines=tuple(lines),
        y_ticks=tuple((y(v), v) for v in range(0, y_max + 1, step)),
        x_ticks=tuple(
            (x(i), f"#{p.run_id}")
            for i, p in enumerate(burn.points)
            if i % every == 0 or i == n - 1
        ),
    )


__all__ = ["Chart", "Line", "chart", "when"]
