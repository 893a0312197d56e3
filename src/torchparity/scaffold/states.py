"""The code a test uses to read, set and restore each registry state; rules read off measurements.

The agent's state registry (``agent/state.py``) says which states an API
touches and measures them; a generated test needs the same states as source
text: a getter expression, ``with`` statements that set a value, and a call
that restores a saved value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StateCode:
    name: str
    title: str
    #: short name for test variables (``initial_grad``, ``before_grad``)
    var: str
    getter: str
    #: ``with`` items that set the state to ``{v}``, preferred first
    setters: tuple[str, ...] = ()
    #: a statement that sets the state back to ``{v}`` (plain functions that change it)
    restore: str = ""

    def setter(self, api_class: str, value: str) -> str:
        """A ``with`` item setting the state to ``value``; avoids the class under test if it can."""
        if not self.setters:
            return ""
        usable = [s for s in self.setters if not (api_class and api_class + "(" in s)]
        chosen = (usable or list(self.setters))[0]
        return chosen.replace("{v}", value)

    def before_var(self, primary: bool) -> str:
        return "outer" if primary else f"before_{self.var}"


STATE_CODE: dict[str, StateCode] = {
    s.name: s
    for s in (
        StateCode(
            "grad_mode",
            "grad mode",
            "grad",
            "torch.is_grad_enabled()",
            ("torch.set_grad_enabled({v})", "torch.enable_grad() if {v} else torch.no_grad()"),
            "torch.set_grad_enabled({v})",
        ),
        StateCode(
            "inference_mode",
            "inference mode",
            "inference",
            "torch.is_inference_mode_enabled()",
            ("torch.inference_mode({v})",),
        ),
        StateCode(
            "multithreading",
            "autograd multithreading",
            "multithreading",
            "torch.autograd.is_multithreading_enabled()",
            ("torch.autograd.set_multithreading_enabled({v})",),
        ),
        StateCode(
            "anomaly_mode",
            "anomaly mode",
            "anomaly",
            "torch.is_anomaly_enabled()",
            ("torch.autograd.set_detect_anomaly({v})",),
        ),
        StateCode(
            "anomaly_check_nan",
            "anomaly NaN check",
            "check_nan",
            "torch.is_anomaly_check_nan_enabled()",
        ),
        # each restore keeps the other state (one call sets both), so the two restore in either order
        StateCode(
            "deterministic",
            "deterministic algorithms",
            "deterministic",
            "torch.are_deterministic_algorithms_enabled()",
            (),
            "torch.use_deterministic_algorithms({v}, warn_only=torch.is_deterministic_algorithms_warn_only_enabled())",
        ),
        StateCode(
            "deterministic_warn_only",
            "deterministic algorithms warn only",
            "warn_only",
            "torch.is_deterministic_algorithms_warn_only_enabled()",
            (),
            "torch.use_deterministic_algorithms(torch.are_deterministic_algorithms_enabled(), warn_only={v})",
        ),
        StateCode(
            "default_dtype",
            "default dtype",
            "default_dtype",
            "torch.get_default_dtype()",
            (),
            "torch.set_default_dtype({v})",
        ),
        StateCode(
            "num_threads",
            "intra-op threads",
            "num_threads",
            "torch.get_num_threads()",
            (),
            "torch.set_num_threads({v})",
        ),
        StateCode(
            "matmul_precision",
            "float32 matmul precision",
            "matmul_precision",
            "torch.get_float32_matmul_precision()",
            (),
            "torch.set_float32_matmul_precision({v})",
        ),
    )
}


def primary_and_secondaries(
    names: list[str], class_under_test: bool, spelling: str
) -> tuple[StateCode | None, list[StateCode], list[str]]:
    """(state the test sets from outside, states it only reads, states without code)."""
    known = [STATE_CODE[n] for n in names if n in STATE_CODE]
    missing = [n for n in names if n not in STATE_CODE]
    settable = [s for s in known if s.setters]
    if not settable:
        return None, [], missing
    primary = settable[0]
    return primary, [s for s in known if s is not primary], missing


def _per_before(table: dict[tuple[Any, Any], Any], mode: Any, var: str) -> str | None:
    """The value for one mode as an expression of the state before (``var``)."""
    seen = {b: v for (m, b), v in table.items() if m == mode}
    if not seen:
        return None
    values = set(seen.values())
    if len(values) == 1 and all(isinstance(v, bool) for v in values):
        return repr(next(iter(values)))
    if all(v == b for b, v in seen.items()):
        return var
    if all(isinstance(b, bool) and v == (not b) for b, v in seen.items()):
        return f"not {var}"
    return None


def relation(
    runs: Sequence[Mapping[str, Any]], point: str, state: str, var: str, has_mode: bool
) -> str | None:
    """The expression (of ``mode`` and ``var``) every measured run agrees with, or None.

    ``runs`` hold ``args`` (the mode), ``before`` and ``point`` snapshots; a
    value that depends on anything else (another state) gives None.
    """
    table: dict[tuple[Any, Any], Any] = {}
    for run in runs:
        mode = run["args"][0] if run.get("args") else None
        key = (mode, run["before"][state])
        value = run[point][state]
        if table.setdefault(key, value) != value:
            return None
    if not has_mode:
        return _per_before(table, None, var)
    on_false, on_true = _per_before(table, False, var), _per_before(table, True, var)
    if on_false is None or on_true is None:
        return None
    if (on_false, on_true) == ("False", "True"):
        return "mode"
    if (on_false, on_true) == ("True", "False"):
        return "not mode"
    if on_false == on_true:
        return on_true
    return f"{_wrapped(on_true)} if mode else {_wrapped(on_false)}"


def _wrapped(expr: str) -> str:
    return f"({expr})" if " " in expr else expr
