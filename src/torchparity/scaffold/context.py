"""The ``context`` family's plan: context-manager/decorator classes and their ``clone``/``__enter__``/
``__exit__``: how they move the states the state registry links to them, measured from every start value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..api.records import ApiInfo
from .facts import Facts
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.context import CONTEXT_MEMBERS
from .render import render
from .states import StateCode, primary_and_secondaries, relation


def _expr_for(
    runs: Sequence[Mapping[str, Any]], point: str, state: str, var: str, has_mode: bool
) -> str:
    expr = relation(runs, point, state, var, has_mode)
    if expr is None:
        raise CannotDecide(
            f"the value of {state} at {point.replace('_', ' ')} follows no rule of the "
            "mode and the state before (measured from every start value)"
        )
    return expr


def context_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    ctx = facts.get("context") or {}
    if ctx.get("problem"):
        raise CannotDecide(ctx["problem"])
    member = ctx.get("member")
    if member not in CONTEXT_MEMBERS:
        raise CannotDecide(f"member {member!r} of a context manager has no template")
    recipe = CONTEXT_MEMBERS[member]
    names = [s["name"] for s in ctx.get("states", []) if s.get("available")]
    primary, secondaries, missing = primary_and_secondaries(names, member is None, spelling_of(r))
    if primary is None:
        raise CannotDecide(
            "no registry state with a known getter and setter among "
            f"{', '.join(names) or 'none'}"
            + (f" (no code for {', '.join(missing)})" if missing else "")
        )
    states: list[StateCode] = [primary, *secondaries]
    has_mode = bool(ctx.get("mode_param"))
    runs = ctx.get("runs") or []
    checks: dict[str, list[tuple[str, str]]] = {}
    for point in ("after_construct", "inside", "after_exit"):
        checks[point] = [
            (s.getter, _expr_for(runs, point, s.name, s.before_var(s is primary), has_mode))
            for s in states
        ]
    spelling = spelling_of(r)
    class_spelling = spelling if member is None else spelling.rsplit(".", 1)[0]
    make = f"{class_spelling}(mode)" if has_mode else f"{class_spelling}()"
    stem = stem_of(r)
    test = f"test_{stem}"
    decorator = bool(ctx.get("decorator")) and bool(ctx.get("decorator_runs"))
    decorator_call = ""
    used = " ".join(expr for point in checks.values() for _, expr in point)
    if decorator:
        druns = ctx["decorator_runs"]
        dchecks = {
            s.name: _expr_for(druns, "inside", s.name, s.before_var(s is primary), has_mode)
            for s in states
        }
        dused = " ".join(dchecks.values())
        decorator_call = render(
            "context_call.py.j2",
            primary=_code(primary, class_spelling),
            secondaries_deco=[_code(s) for s in secondaries if f"before_{s.var}" in dused],
            states=[_code(s) for s in states],
            decorator_checks=dchecks,
            grad_expr=dchecks.get("grad_mode", ""),
            inference_expr=dchecks.get("inference_mode", ""),
        ).rstrip("\n")
    source = render(
        "context.py.j2",
        test=test,
        use=recipe["use"],
        make=make,
        class_spelling=class_spelling,
        mode=has_mode,
        mode_attrs=ctx.get("mode_attrs") or [],
        primary=_code(primary, class_spelling),
        secondaries_main=[_code(s) for s in secondaries if f"before_{s.var}" in used],
        states=[_code(s) for s in states],
        checks=checks,
        decorator=decorator,
        decorator_call=decorator_call,
        device=device,
        relaxed_decorators=_relaxed_decorators(facts),
        enter_none=bool(ctx.get("enter_returns_none")),
    )
    methods = split_methods(source)
    titles = ", ".join(s.title for s in states)
    what = recipe["what"]
    summary = (
        f"{what}, the {titles} it sets when constructed, entered and left from every outer value, "
        f"restoration of the {titles} after the test"
        + (", and decorator use on device tensors." if decorator else ".")
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="context",
        stem=stem,
        methods=tuple(methods),
        summary=summary,
        coverage=coverage_rows(
            enum="mode=False、mode=True" if has_mode else "",
            types="mode 为 bool" if has_mode else "",
            boundary=f"外层 {titles} 与 mode 相同、相反（全部组合）",
            normal=recipe["normal"]
            + f"构造、进入、退出时 {titles} 符合预期"
            + ("；作为装饰器作用于设备张量" if decorator else "")
            + f"；测试结束后 {titles} 恢复",
        ),
        uses_device=decorator,
        facts=facts,
    )


def _relaxed_decorators(facts: Facts) -> bool:
    """``@f(x).clone()`` needs Python >= 3.9 (PEP 614); older interpreters get ``decorator = ...``."""
    try:
        major, minor = (int(p) for p in str(facts.get("python_version", "3.8")).split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (3, 9)


def _code(state: StateCode, api_class: str = "") -> dict[str, str]:
    return {
        "name": state.name,
        "var": state.var,
        "getter": state.getter,
        "title": state.title,
        "setter_outer": state.setter(api_class, "outer"),
        "setter_initial": state.setter(api_class, f"initial_{state.var}"),
    }
