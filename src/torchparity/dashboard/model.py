"""The dashboard's facts, typed: what the page shows, collected from the store before it is rendered.

A cell is one API at one branch (ref) on one product: the newest target of the store that ran the
API's tests there, with its state and its evidence (run, target, log SHA-256). A product is the
hardware an environment names (``[envs.X] hardware``) when the probe saw that hardware; any other
target (no hardware configured, the CPU, an emulated backend) stands under its environment's name,
so that nothing but hardware evidence is ever shown under a hardware's name.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the states a cell shows, worst first (the order a sort by state takes), with what each says
STATE_WORDS: dict[str, str] = {
    "FAIL": "one of the API's tests failed",
    "ERROR": "the environment broke before the tests could answer",
    "INCOMPLETE": "the run was cut short",
    "MISMATCH": "no environment has the torch release the branch targets: nothing ran",
    "NONE_RAN": "none of the API's tests ran (all skipped, disabled or never started)",
    "PASS": "the API's tests passed",
}
#: a cell no stored run has evidence for
NO_EVIDENCE = "NO_EVIDENCE"
STATE_ORDER: tuple[str, ...] = (*STATE_WORDS, NO_EVIDENCE)


def state_rank(state: str) -> int:
    """Where ``state`` sorts (worst first); a state this version does not know sorts before the rest."""
    return STATE_ORDER.index(state) if state in STATE_ORDER else -1


@dataclass(frozen=True)
class Column:
    """One branch on one product (or environment)."""

    ref: str
    product: str
    #: the product is a hardware the probe saw (True), or an environment's name (False)
    hardware: bool

    @property
    def key(self) -> str:
        return f"{self.ref} · {self.product}"


@dataclass(frozen=True)
class Evidence:
    """Where a cell's state comes from: a target of a stored run, and its log."""

    run_id: int
    run_uid: str
    label: str  # the target's ref@env
    env: str
    log_sha256: str  # "" when the target kept no log
    finished: float
    #: the log's file beside the page (relative to it), "" when logs were not written
    log_href: str = ""

    @property
    def show_command(self) -> str:
        """The command that prints the log, checked against its SHA-256."""
        return f"torchparity show {self.run_id} --target {self.label}"


@dataclass(frozen=True)
class Cell:
    state: str  # one of STATE_WORDS
    #: the device the backend only emulated ("npu"), "" on a real device: an emulated cell is a dry
    #: run, never hardware evidence
    emulated: str
    evidence: Evidence
    #: how many stored targets ran the API here (the newest decides the state)
    runs: int = 1

    @property
    def hardware_pass(self) -> bool:
        return self.state == "PASS" and not self.emulated


@dataclass(frozen=True)
class ApiRow:
    api: str
    #: one per column of the dashboard, in its order (None: no evidence there)
    cells: tuple[Cell | None, ...]
    #: the names the tasks asked for and the docs name, where they are not the canonical one
    #: (``torch.nn.functional.avg_pool3d`` for ``torch._C._nn.avg_pool3d``); the filter reads them
    names: tuple[str, ...] = ()

    def hardware_passes(self, columns: tuple[Column, ...]) -> int:
        """Cells that passed on hardware the probe saw (not emulated, not a plain environment)."""
        return sum(
            1
            for c, col in zip(self.cells, columns, strict=True)
            if c and col.hardware and c.hardware_pass
        )


@dataclass(frozen=True)
class BurnPoint:
    """After one run (in time order): how many APIs pass in each series."""

    run_id: int
    when: float
    passing: tuple[int, ...]  # one per ``Burndown.series``


@dataclass(frozen=True)
class Series:
    column: Column
    #: counts the emulated passes of the column (a dry run), apart from the real ones
    emulated: bool

    @property
    def name(self) -> str:
        return self.column.key + (" (emulated)" if self.emulated else "")


@dataclass(frozen=True)
class Burndown:
    series: tuple[Series, ...]
    points: tuple[BurnPoint, ...]


@dataclass(frozen=True)
class PlanSummary:
    """The counts of a ``plan`` summary JSON: APIs per state, and per module and state."""

    source: str
    states: tuple[tuple[str, int], ...]
    modules: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]

    @property
    def total(self) -> int:
        return sum(n for _, n in self.states)

    @property
    def module_states(self) -> tuple[str, ...]:
        """Every state a module row names, in the order first met (the top-level states first)."""
        names = [s for s, _ in self.states]
        for _, counts in self.modules:
            names += [s for s, _ in counts]
        return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class Skipped:
    """A run with targets that the dashboard leaves out, and why."""

    run_id: int
    why: str


@dataclass(frozen=True)
class Dashboard:
    store: str
    columns: tuple[Column, ...]
    rows: tuple[ApiRow, ...]
    burndown: Burndown
    runs: int  # runs whose targets the grid is made of
    newest: float  # when the newest of them was made (0.0: none)
    skipped: tuple[Skipped, ...] = ()
    plan: PlanSummary | None = None

    def state_counts(self) -> dict[str, int]:
        """Cells per state (emulated ones counted apart as ``emulated``), empty cells as NO_EVIDENCE."""
        counts: dict[str, int] = {}
        for row in self.rows:
            for cell in row.cells:
                key = NO_EVIDENCE if cell is None else cell.state
                counts[key] = counts.get(key, 0) + 1
                if cell is not None and cell.emulated:
                    counts["emulated"] = counts.get("emulated", 0) + 1
        return counts


__all__ = [
    "NO_EVIDENCE",
    "STATE_ORDER",
    "STATE_WORDS",
    "ApiRow",
    "BurnPoint",
    "Burndown",
    "Cell",
    "Column",
    "Dashboard",
    "Evidence",
    "PlanSummary",
    "Series",
    "Skipped",
    "state_rank",
]
