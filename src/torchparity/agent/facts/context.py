"""How a context manager (or its member) moves the global states it touches, from every start value.

The states come from the agent's state registry (``state.py``); each run
pushes a start value, constructs/enters/leaves the manager, snapshots the
states at each point and puts every state back.
"""

from __future__ import annotations

import inspect
import itertools
from typing import Any, Callable, Dict, List, Literal, Optional, Sequence, Set, Tuple, Union

from .. import state as state_mod
from ..api.kinds import class_attrs
from ..api.states import states_for_api
from ..protocol import Json, TorchModule
from ..state import StateSpec
from .literal import error_text
from .recipes.layout import CLONE_MEMBER
from .schema import ContextFacts, ContextRun, StateFacts
from .schema_common import StateValue


def _state_names(resolution: Json) -> List[str]:
    for name in [resolution.get("canonical", "")] + list(resolution.get("aliases", [])):
        found = states_for_api(name)
        if found:
            return list(found)
    return []


def state_facts(resolution: Json, device_type: str) -> List[StateFacts]:
    """The states the API touches (registry entries), with their values and availability."""
    specs = state_mod.registry(device_type)
    out: List[StateFacts] = []
    for name in _state_names(resolution):
        spec = specs.get(name)
        if spec is None:
            out.append(
                {"name": name, "available": False, "why": "not in this registry", "values": []}
            )
            continue
        why = spec.available()
        values = [state_mod._jsonable(v) for v in spec.values(device_type)] if not why else []
        out.append({"name": name, "available": not why, "why": why, "values": values})
    return out


def _bool_specs(states: List[StateFacts], device_type: str) -> List[Tuple[str, StateSpec]]:
    specs = state_mod.registry(device_type)
    return [
        (s["name"], specs[s["name"]])
        for s in states
        if s["available"] and s["values"] and all(isinstance(v, bool) for v in s["values"])
    ]


def snapshot(specs: Sequence[Tuple[str, StateSpec]]) -> Dict[str, StateValue]:
    return dict((name, spec.get()) for name, spec in specs)


def _ctor_params(cls: type) -> Tuple[Optional[List[str]], Union[str, Literal[False], None]]:
    """(parameter names, first parameter if it takes a bool mode, else None)."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return None, None
    params = [
        p
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    if not params:
        return [], None
    first = params[0]
    required = [p for p in params[1:] if p.default is p.empty]
    boolish = first.annotation in (bool, "bool") or isinstance(first.default, bool)
    if boolish and not required:
        return [p.name for p in params], first.name
    if all(
        p.default is not p.empty for p in params
    ):  # ``no_grad(orig_func=None)``: used without arguments
        return [p.name for p in params], None
    return [p.name for p in params], False


def _mode_attrs(cls: type, specs: Sequence[Tuple[str, StateSpec]]) -> List[str]:
    """Instance attributes that hold the mode argument (``mode``), for both values."""
    found: Optional[Set[str]] = None
    for value in (False, True):
        undo = push_all(specs, [spec.get() for _, spec in specs])
        try:
            inst = cls(value)
            attrs = set(
                k
                for k, v in vars(inst).items()
                if v is value and not k.startswith("_") and k != "prev"
            )
        except Exception:
            return []
        finally:
            undo_all(undo)
        found = attrs if found is None else found & attrs
    return sorted(found or [])


def push_all(
    specs: Sequence[Tuple[str, StateSpec]], combo: Sequence[Any]
) -> List[Callable[[], Any]]:
    undo: List[Callable[[], Any]] = []
    for i, (_, spec) in enumerate(specs):
        undo.append(spec.push(combo[i]))
    return undo


def undo_all(undo: List[Callable[[], Any]]) -> None:
    for fn in reversed(undo):
        fn()


def context_facts_here(
    torch: TorchModule, resolution: Json, obj: Any, owner: Any, device_type: str
) -> ContextFacts:
    """How the context manager (or its member) moves each state, from every start value."""
    states = state_facts(resolution, device_type)
    cls = obj if isinstance(obj, type) else owner
    member = None if obj is cls else resolution["path"].rsplit(".", 1)[-1]
    out: ContextFacts = {
        "states": states,
        "member": member,
        "runs": [],
        "decorator_runs": [],
        "decorator": False,
        "params": [],
        "mode_param": None,
        "mode_attrs": [],
        "problem": "",
    }
    if not isinstance(cls, type):
        out["problem"] = "no context-manager class to construct"
        return out
    params, mode_param = _ctor_params(cls)
    if params is None:
        out["problem"] = "the signature of %s cannot be read" % cls.__name__
        return out
    if mode_param is False:
        out["problem"] = "%s takes (%s): only a single bool mode (or no argument) is measured" % (
            cls.__name__,
            ", ".join(params),
        )
        return out
    out["params"], out["mode_param"] = params, mode_param
    arg_sets = [(False,), (True,)] if mode_param else [()]
    specs = _bool_specs(states, device_type)
    if not specs:
        out["problem"] = "no usable bool state is linked to %s" % resolution["canonical"]
        return out
    if mode_param:
        out["mode_attrs"] = _mode_attrs(cls, specs)
    out["decorator"] = "__call__" in class_attrs(cls) and member in (None, "clone", "__call__")
    combos = list(itertools.product(*[spec.values(device_type) for _, spec in specs]))
    for args in arg_sets:
        for combo in combos:
            undo = push_all(specs, combo)
            try:
                run: ContextRun = {
                    "args": list(args),
                    "outer": dict((specs[i][0], v) for i, v in enumerate(combo)),
                }
                run["before"] = snapshot(specs)
                ctx = cls(*args)
                target = ctx.clone() if member == CLONE_MEMBER else ctx
                if member == CLONE_MEMBER:
                    run["identity"] = {
                        "is_not": target is not ctx,
                        "same_type": type(target) is cls,
                        "attrs": dict(
                            (a, getattr(target, a, None) == getattr(ctx, a, None))
                            for a in out["mode_attrs"]
                        ),
                    }
                run["after_construct"] = snapshot(specs)
                if member in ("__enter__", "__exit__"):
                    entered = target.__enter__()
                    out["enter_returns_none"] = (
                        out.get("enter_returns_none", True) and entered is None
                    )
                    run["inside"] = snapshot(specs)
                    target.__exit__(None, None, None)
                else:
                    with target:
                        run["inside"] = snapshot(specs)
                run["after_exit"] = snapshot(specs)
            except Exception as exc:
                out["problem"] = "measuring %s%r failed: %s" % (cls.__name__, args, error_text(exc))
                return out
            finally:
                undo_all(undo)
            out["runs"].append(run)
    if out["decorator"]:
        for args in arg_sets:
            undo = push_all(specs, [spec.get() for _, spec in specs])
            try:
                deco = cls(*args)
                if member == CLONE_MEMBER:
                    deco = deco.clone()
                probe = deco(lambda: snapshot(specs))
            finally:
                undo_all(undo)
            for combo in combos:
                undo = push_all(specs, combo)
                try:
                    before = snapshot(specs)
                    inside = probe()
                except Exception as exc:
                    out["decorator"] = False
                    out["problem"] = "calling a function decorated with %s failed: %s" % (
                        cls.__name__,
                        error_text(exc),
                    )
                    break
                finally:
                    undo_all(undo)
                out["decorator_runs"].append(
                    {"args": list(args), "before": before, "inside": inside}
                )
    return out


def api_specs(resolution: Json, device_type: str) -> List[Tuple[str, StateSpec]]:
    """Registry specs of the states the API touches that this torch has (any value type)."""
    specs = state_mod.registry(device_type)
    return [
        (s["name"], specs[s["name"]])
        for s in state_facts(resolution, device_type)
        if s["available"] and s["name"] in specs
    ]


def context_facts(
    torch: TorchModule, resolution: Json, obj: Any, owner: Any, device_type: str
) -> ContextFacts:
    """``context_facts_here`` in a forked child (``isolate.run_isolated``): what its calls change
    in this interpreter (a global mode, a registry) stays there, and a call that aborts costs only the
    child."""
    from .isolate import isolated_facts

    return isolated_facts(
        "context-manager",
        context_facts_here,
        (torch, resolution, obj, owner, device_type),
        device_type,
    )
