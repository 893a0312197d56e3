"""The ``graph`` family: torch.jit, torch.fx and torch.compile capture a program that runs on the device.

Every test checks the captured program's result on the device against values
worked out by hand and against eager execution on the CPU, and the documented
structure of what was captured: TorchScript node kinds in order and its code,
a save/load round trip (to the device and with ``map_location``); fx nodes'
ops, names, targets, args, users and neighbours, the generated code, and the
member under test (graph editing, code generation, tracer helpers); for
``torch.compile`` the graph a custom backend receives.
"""

from __future__ import annotations

from typing import Any

from ..api.records import ApiInfo
from .facts import Facts
from .measured import owner_spelling
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.graph import (
    COMPILE,
    EXPORT,
    EXPORTED_CLASSES,
    EXPORTED_MEMBERS,
    FX_CLASSES,
    FX_HELPERS,
    FX_MEMBERS,
    FX_MODULE,
    FX_TRACE,
    JIT,
    JIT_FLAGS,
    JIT_FUNCTION_CLASSES,
    JIT_FUNCTION_MEMBERS,
    JIT_MEMBERS,
)
from .render import render_macro


def _macro(
    name: str, device: str, leaf: str, owner: str, C: str, target: str = "", **kwargs: Any
) -> str:
    context = {"device": device, "leaf": leaf, "owner": owner, "C": C, "target": target}
    return render_macro("graph.py.j2", name, context, **kwargs)


def _recipe(lines: tuple[str, ...], owner: str, device: str) -> list[str]:
    """A recipe's lines, the member's class and the device spelled in."""
    return [line.format(owner=owner, device=device) for line in lines]


def graph_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    spelling = spelling_of(r)
    stem = stem_of(r)
    test = f"test_{stem}"
    names = {r.canonical, r.path, *r.aliases}
    member = bool(r.owner_class)
    owner = owner_spelling(info) if member else ""
    leaf = r.path.rsplit(".", 1)[-1] if member else ""
    base = (r.owner_class if member else r.canonical) or ""
    target = base.rsplit(".", 1)[-1]
    imports = ["import io"]
    if not member and r.canonical in JIT or member and base in JIT and leaf in JIT_MEMBERS:
        capture = JIT[base if member else r.canonical]
        save = spelling if capture == "save" else "torch.jit.save"
        load = spelling if capture == "load" else "torch.jit.load"
        source = _jit_module(device, leaf, owner, spelling, test, capture, save, load, member)
        what = (
            "a TorchScript module captured on the device: its result against values worked out by hand and "
            "the CPU, node kinds in order, its code, and a save/load round trip with and without map_location"
        )
    elif target in JIT_FUNCTION_CLASSES:
        lines = _recipe(JIT_FUNCTION_MEMBERS.get(leaf, ()), owner, device)
        source = _macro("jit_function", device, leaf, owner, spelling, test=test, lines=lines)
        imports += ["import os", "import tempfile"]
        what = "a scripted function on the device: its result, graph and code" + (
            f", and {leaf}" if leaf else ""
        )
    elif not member and r.canonical in JIT_FLAGS:
        scripting = JIT_FLAGS[r.canonical]
        source = _macro("jit_flag", device, leaf, owner, spelling, test=test, scripting=scripting)
        what = (
            "its value outside and inside capture, and the captured function's result on the device"
        )
    elif target in FX_CLASSES or r.canonical in FX_TRACE:
        recipe = FX_MEMBERS.get(f"{target}.{leaf}", FX_MEMBERS.get(leaf, ()))
        lines = _recipe(recipe, owner, device)
        source = _macro("fx", device, leaf, owner, spelling, target, test=test, lines=lines)
        what = (
            "a module traced by torch.fx: node ops, names, targets, args, users and neighbours, the generated "
            "code, and the GraphModule's result on the device against values worked out by hand and the CPU"
            + (f"; {leaf}" if leaf else "")
        )
    elif not member and target in FX_HELPERS and (r.module or "").startswith(FX_MODULE):
        lines = [line.format(C=spelling) for line in FX_HELPERS[target]]
        source = _macro("fx_helpers", device, leaf, owner, spelling, target, test=test, lines=lines)
        what = f"{target} on the nodes of a small graph, and the graph's result on the device"
    elif (
        not member
        and r.canonical in EXPORT
        or member
        and target in EXPORTED_CLASSES
        and leaf in EXPORTED_MEMBERS
    ):
        slots = EXPORTED_MEMBERS.get(leaf, {})
        graph = _recipe(slots.get("graph", ()), owner, device)
        module = _recipe(slots.get("module", ()), owner, device)
        source = _macro(
            "exported", device, leaf, owner, spelling, test=test, graph=graph, module=module
        )
        imports = []
        what = (
            "a module exported by torch.export: the ATen operators of its graph in order, its signature's "
            "inputs and state_dict on the device, and the exported module's result on the device against "
            "values worked out by hand and eager on the CPU"
        )
    elif not member and (names & set(COMPILE)):
        source = _macro("compiled", device, leaf, owner, spelling, test=test)
        imports = ["import torch._dynamo"]
        what = (
            "a function compiled with a recording backend and the eager backend: its result on the device "
            "against values worked out by hand and eager on the CPU, and the captured graph's nodes"
        )
    else:
        raise CannotDecide(f"no graph-capture template for {r.canonical}")
    methods = split_methods(source)
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="graph",
        stem=stem,
        methods=tuple(methods),
        imports=tuple(imports),
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )


def _jit_module(
    device: str,
    leaf: str,
    owner: str,
    spelling: str,
    test: str,
    capture: str,
    save: str,
    load: str,
    member: bool,
) -> str:
    """The jit_module macro with the capture spelled: the API itself when it captures, else torch.jit.script."""
    if not member and capture in ("trace", "freeze", "trace_module"):
        return _macro(
            "jit_module",
            device,
            leaf,
            owner,
            spelling,
            test=test,
            capture=capture,
            save=save,
            load=load,
        )
    how = spelling if not member and capture == "script" else "torch.jit.script"
    return _macro(
        "jit_module", device, leaf, owner, spelling, test=test, capture=how, save=save, load=load
    )
