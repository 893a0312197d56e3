"""The ``module`` family: nn modules, containers and parameters, built on the device.

Containers (``ModuleList``, ``Sequential``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``) and their members get their own semantics checked (append,
insert, extend, pop, indexing, slicing, length, iteration order, keys, nesting,
state_dict keys and devices); ``torch.nn.Module`` and its members a small
module with hand-set weights (parameters and buffers on the device, forward
against values worked out by hand and against the CPU, state_dict round trip
with strict and non-strict loads); ``Parameter``/``Buffer`` their registration
and gradients; any other module class its state_dict round trip between the
device and the CPU.
"""

from __future__ import annotations

from typing import Any

from ..api.records import ApiInfo
from .facts import Facts
from .measured import owner_spelling
from .moduledb import forward_lines, make_of, rnn_lines
from .operators import lines_method, split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.nn import CONTAINER_MEMBERS, CONTAINERS, FORWARD, MEMBERS
from .render import render_macro

MODULE = "torch.nn.modules.module.Module"
SCRIPT_MODULE = "torch.jit._script.ScriptModule"


def _macro(name: str, **kwargs: Any) -> str:
    return render_macro("nn.py.j2", name, {"device": kwargs.pop("device")}, **kwargs)


def _container_kind(mro: list[str]) -> str:
    for name, kind in CONTAINERS.items():
        if name in mro:
            return kind
    return ""


def _construction(facts: Facts, spelling: str) -> str:
    """``Cls(args)`` from the measured class scenario (how the agent constructed it on the CPU)."""
    for sc in (facts.get("probe") or {}).get("valid") or []:
        call = str(sc.get("call", ""))
        if call.startswith("_API_(") and not sc.get("setup"):
            return spelling + call[len("_API_") :]
    return ""


def nn_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    classes = facts.get("classes") or {}
    api_mro = [str(c) for c in classes.get("api") or []]
    owner_mro = [str(c) for c in classes.get("owner") or []]
    members = [str(m) for m in facts.get("members") or []]
    spelling = spelling_of(r)
    stem = stem_of(r)
    test = f"test_{stem}"
    leaf = r.path.rsplit(".", 1)[-1]
    sources: list[str] = []
    imports: list[str] = []
    what = ""
    if api_mro:
        kind = _container_kind(api_mro)
        if kind:
            sources.append(_container_source(kind, test, spelling, api_mro, members, device))
            what = f"the {spelling} container's semantics"
        elif api_mro[0] == MODULE:
            sources.append(_macro("module_protocol", test=test, C=spelling, device=device))
            what = "a module's parameters and buffers on the device, its forward and its state_dict round trip"
        elif "torch.nn.parameter.Buffer" in api_mro or "torch.nn.parameter.Parameter" in api_mro:
            if any("Uninitialized" in c for c in api_mro):
                raise CannotDecide("an uninitialized parameter has no data to check")
            buffer = "torch.nn.parameter.Buffer" in api_mro
            sources.append(_macro("parameter", test=test, C=spelling, buffer=buffer, device=device))
            what = "registration in a module and, for a parameter, its gradient on the device"
        elif MODULE in api_mro:
            make = _construction(facts, spelling)
            db = facts.get("module_db") or {}
            if db.get("found"):  # upstream's module_db sample: its forward is checked too
                make = make_of(db, spelling)
                sources.append(
                    _macro("module_class", test=test, C=spelling, make=make, device=device)
                )
                sources.append(
                    lines_method(f"{test}_forward", forward_lines(db, make, device)).source
                )
                if db.get("rnn"):
                    sources.append(
                        lines_method(f"{test}_batched_shapes", rnn_lines(db, make, device)).source
                    )
                what = (
                    "its parameters and buffers on the device, its state_dict round trip to the CPU and its "
                    "forward on a module_db sample against values measured on the CPU"
                    + (" and the documented shapes of a batched input" if db.get("rnn") else "")
                )
            elif not make:
                why = f"; module_db: {db['problem']}" if db.get("problem") else ""
                raise CannotDecide(f"no construction of {spelling} was measured{why}")
            else:
                sources.append(
                    _macro("module_class", test=test, C=spelling, make=make, device=device)
                )
                what = "its parameters and buffers on the device and its state_dict round trip to the CPU"
        else:
            raise CannotDecide("not an nn module, container or parameter")
    elif MODULE in owner_mro and r.kind in ("method", "property", "attribute"):
        owner = owner_spelling(info)
        kind = _container_kind(owner_mro)
        db = facts.get("module_db") or {}
        if leaf in FORWARD and owner_mro[0] != MODULE and not kind and db.get("found"):
            # the class's own forward, through a module_db sample of the class
            make = make_of(db, owner)
            forward = FORWARD[leaf].format(owner=owner)  # named, so the checklist sees the call
            sources.append(lines_method(test, forward_lines(db, make, device, forward)).source)
            what = (
                f"{owner}'s forward on the device on a module_db sample, against values measured on the CPU "
                "and the CPU module with the same state"
            )
        elif kind and leaf in CONTAINER_MEMBERS[kind]:
            sources.append(_container_source(kind, test, owner, owner_mro, members, device))
            what = f"{leaf} within the {owner} container's semantics"
        elif leaf in MEMBERS and not kind:
            sources.append(
                _macro(
                    "module_member",
                    test=test,
                    lines=[line.format(C=owner, device=device) for line in MEMBERS[leaf]],
                    device=device,
                    script=SCRIPT_MODULE in owner_mro,
                )
            )
            what = f"{leaf} on a module with hand-set weights on the device"
        else:
            raise CannotDecide(f"no module template for {leaf!r}")
    else:
        raise CannotDecide("not an nn module, container, parameter or one of their members")
    methods = [m for s in sources for m in split_methods(s)]
    if not methods:
        raise CannotDecide("the template wrote no test")
    text = "".join(m.source for m in methods)
    if "copy.deepcopy" in text:
        imports.append("import copy")
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="module",
        stem=stem,
        methods=tuple(methods),
        imports=tuple(imports),
        summary=what + ".",
        coverage=coverage_rows(
            empty="空容器与非空容器" if "container" in what else "",
            normal=what,
            invalid="load_state_dict 缺失/多余键、非法名称" if "assertRaises" in text else "",
        ),
        facts=facts,
    )


def _container_source(
    kind: str, test: str, spelling: str, mro: list[str], members: list[str], device: str
) -> str:
    if kind == "list":
        star = "torch.nn.modules.container.Sequential" in mro
        source = _macro(
            "container_list", test=test, C=spelling, star=star, members=members, device=device
        )
        if star:
            source += "\n" + _macro("sequential_forward", test=test, C=spelling, device=device)
        return source
    if kind == "dict":
        return _macro("container_dict", test=test, C=spelling, members=members, device=device)
    if kind == "params":
        return _macro("parameter_list", test=test, C=spelling, members=members, device=device)
    return _macro("parameter_dict", test=test, C=spelling, members=members, device=device)
