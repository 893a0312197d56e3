"""The template families, one module each, and choosing among them: the family whose plan is written.

Each module of this package declares one family (``scaffold/registry.py`` says what it declares):
its name, its priority (the families that apply to an API are tried lowest first), the facts it
asks the agent for, whether it applies to an API, and its plan. A family whose facts do not let it
decide falls through to the next one, and finally to ``fill-in``; no family writes a test that
passes without checking. Where the agent ran each family's candidate test (``checked`` in the facts;
``check.py``), a family whose tests do not pass, or pass with the API replaced by a stand-in that
returns a sentinel, falls through as well.

Adding a family is one new module here (docs/scaffold.md, "Adding a family").
"""

from __future__ import annotations

from ...agent.facts.schema import CheckedOutcome
from ...api.records import ApiInfo
from ..facts import Facts
from ..fill_in import FILL_IN, fill_in_plan
from ..plan import CannotDecide, TestPlan, root_module
from ..recipes.tensor import TENSOR_FORMULAS
from ..registry import Registry, discover

#: the families of this package, checked and in order
REGISTRY = Registry(discover(__name__))
#: families whose test needs the device itself (not checked on the CPU by the agent)
DEVICE_ONLY = REGISTRY.device_only
#: every family's name, by priority, ``fill-in`` last
NAMES = REGISTRY.names


def candidates(info: ApiInfo, backend_module: str = "", registry: Registry = REGISTRY) -> list[str]:
    """Families to try for this API, best first (``fill-in`` always last)."""
    return registry.candidates(info, backend_module)


def wants(families: list[str], registry: Registry = REGISTRY) -> list[str]:
    """The facts ``families`` ask the agent for, each once."""
    return registry.wants(families)


def tensor_formula(info: ApiInfo) -> str:
    return TENSOR_FORMULAS.get(info.resolution.path.rsplit(".", 1)[-1], "")


def candidate_plans(
    info: ApiInfo,
    facts: Facts,
    device: str,
    backend_module: str = "",
    registry: Registry = REGISTRY,
) -> tuple[list[TestPlan], list[str]]:
    """Every family's plan that can decide, in order, and why the others could not."""
    plans, reasons = [], []
    for family in registry.candidates(info, backend_module):
        if family == FILL_IN:
            break
        try:
            plans.append(_with_imports(registry[family].plan(info, facts, device), facts))
        except CannotDecide as exc:
            reasons.append(f"{family}: {exc}")
    return plans, reasons


def build_plan(
    info: ApiInfo,
    facts: Facts,
    device: str,
    backend_module: str = "",
    registry: Registry = REGISTRY,
) -> TestPlan:
    """The plan of the first family that can decide (``device``: the expression tests use).

    With the agent's ``checked`` outcomes, a family is kept only when some of its
    tests pass (on the CPU, or on the device its expected values were measured on) and
    some fail once the API is replaced by a stand-in; its tests that failed are left out
    (with a note).
    """
    plans, reasons = candidate_plans(info, facts, device, backend_module, registry)
    checked = facts.get("checked") or {}
    for plan in plans:
        outcome = checked.get(plan.family)
        if outcome is None:
            return plan
        kept = checked_plan(plan, outcome)
        if isinstance(kept, str):  # a test that would pass with the API broken checks nothing of it
            reasons.append(f"{plan.family}: {kept}")
            continue
        return kept
    return _with_imports(fill_in_plan(info, facts, reasons), facts)


NOT_CAUGHT = "its tests still pass when the API only returns a sentinel"


def checked_plan(
    plan: TestPlan, outcome: CheckedOutcome, require_catch: bool = True
) -> TestPlan | str:
    """The plan without its tests that failed where they were run (the CPU, or the device the facts
    were measured for: ``on``), or why none of it can be kept."""
    where = str(outcome.get("on") or "the CPU")
    clean = (outcome.get("clean") or {}).get("outcomes") or {}
    error = (outcome.get("clean") or {}).get("error") or ""
    passed = [t for t in plan.tests if (clean.get(t) or {}).get("status") == "pass"]
    if not passed:
        why = error or "; ".join(
            f"{t}: {(clean.get(t) or {}).get('message', 'did not run')}" for t in plan.tests
        )
        return f"its test did not pass on {where} ({why[:300]})"
    broken = outcome.get("broken")
    if broken is not None:
        standin = broken.get("standin") or {}
        if standin.get("replaced"):
            outs = broken.get("outcomes") or {}
            caught = [
                t
                for t in passed
                if (outs.get(t) or {}).get("status") in ("fail", "error") or t not in outs
            ]
            if not caught and require_catch:
                return NOT_CAUGHT
    dropped = [t for t in plan.tests if t not in passed]
    if not dropped:
        return plan
    methods = tuple(m for m in plan.methods if m.helper or m.name in passed)
    notes = tuple(
        f"{t} left out: it failed on {where} ({(clean.get(t) or {}).get('message', 'did not run')})"
        for t in dropped
    )
    return TestPlan(**{**plan.__dict__, "methods": methods, "notes": plan.notes + notes})


def _with_imports(plan: TestPlan, facts: Facts) -> TestPlan:
    """The plan with the imports its spelling of the API needs (its root module, and a submodule
    ``import torch`` does not load, as the agent found)."""
    extra: list[str] = []
    root = root_module(plan.spelling)
    if root != "torch":
        extra.append(f"import {root}")
    known = facts.get("imports") or {}
    spelled = [plan.spelling, plan.spelling.rsplit(".", 1)[0]]
    for name in spelled:
        extra += [i for i in known.get(name) or [] if isinstance(i, str)]
    missing = [i for i in dict.fromkeys(extra) if i not in plan.imports]
    if not missing:
        return plan
    return TestPlan(**{**plan.__dict__, "imports": (*plan.imports, *missing)})
