"""A ``plan`` summary JSON, read into the counts the dashboard shows.

The shape read (every other key, at any level, is ignored)::

    {"states": {"documented": 3300, "missing": 6500, "unsupported": 2150},
     "modules": {"torch.nn": {"documented": 120, "missing": 40},
                 "torch.fft": {"states": {"missing": 20}, "tests": 4},
                 "torch.cuda": 12}}

``states``: APIs per state. ``modules``: per module, its counts per state (an object of counts, or
an object whose ``states`` key holds them), or one count of APIs. A count is a whole number >= 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..fsutil import read_text_file
from .model import PlanSummary

#: the name a module's count stands under when the plan gives one number, not counts per state
APIS = "APIs"


def _counts(value: Any, where: str) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, dict):
        raise UsageError(f"{where} is {type(value).__name__}, not an object of counts per state")
    out = []
    for state, n in value.items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise UsageError(f"{where}[{state!r}] = {n!r}: a count is a whole number >= 0")
        out.append((str(state), n))
    return tuple(out)


def _module(value: Any, where: str) -> tuple[tuple[str, int], ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return _counts({APIS: value}, where)
    if isinstance(value, dict) and "states" in value:
        return _counts(value["states"], f'{where}["states"]')
    return _counts(value, where)


def plan_summary(doc: Any, source: str) -> PlanSummary:
    """The counts of a parsed plan summary; bad input (exit 2) naming the key that is wrong."""
    where = f"--plan {source}"
    if not isinstance(doc, dict):
        raise UsageError(f"{where}: the summary is {type(doc).__name__}, not a JSON object")
    states = _counts(doc.get("states", {}), f'{where}: "states"')
    modules = doc.get("modules", {})
    if not isinstance(modules, dict):
        raise UsageError(f'{where}: "modules" is {type(modules).__name__}, not an object')
    return PlanSummary(
        source=source,
        states=states,
        modules=tuple(
            (str(name), _module(value, f'{where}: "modules"[{name!r}]'))
            for name, value in modules.items()
        ),
    )


def read_plan(path: Path) -> PlanSummary:
    """The plan summary in the JSON file ``path`` (``--plan``)."""
    text = read_text_file(path, "--plan")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"--plan {path}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            "pass the summary JSON that 'torchparity plan' writes"
        ) from None
    return plan_summary(doc, str(path))


__all__ = ["APIS", "plan_summary", "read_plan"]
