"""The ``inherited`` family: members a class inherits from a base whose kind is covered, tested on the class.

``C.m`` that is the very function of ``torch.nn.Module.m`` (the agent's
``defined_on`` fact; ``torch.jit.ScriptModule.state_dict`` is
``Module.state_dict``) gets the base's member test on an instance of ``C``: a
module with hand-set weights, scripted by ``torch.jit.script`` when ``C`` is a
``ScriptModule``. The members here are those the ``module`` family has no
template for: the backward hooks (full, and full pre), the state_dict pre and
post hooks, the load_state_dict pre and post hooks, ``compile``, and, on a
``ScriptModule``, ``add_module``/``register_module`` (a scripted module takes
only a scripted submodule of the same type in place of one it has). Each hook
is checked where it runs (its arguments, the value it returns or changes taking
effect, nothing after ``handle.remove()``); on a ``ScriptModule`` a backward
hook is recorded but a call then raises, as this torch documents by raising.

Also: ``torch.jit.script_method`` (a ``ScriptModule`` subclass whose forward it
compiles), ``torch.fx`` ``Interpreter.get_attr``/``Transformer.get_attr`` on a
graph with a ``get_attr`` node, and ``Tracer.get_fresh_qualname`` (the names a
trace gives the tensor constants it meets).
"""

from __future__ import annotations

from typing import Any

from ..api.records import ApiInfo
from .facts import Facts
from .measured import owner_spelling
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.inherited import (
    FX_MEMBERS,
    FX_PACKAGE,
    HOOKS,
    IMPORTS,
    INTERPRETER,
    MODULE,
    MODULE_PACKAGES,
    SCRIPT_METHOD,
    SCRIPT_MODULES,
    SCRIPT_ONLY,
    TRACER,
    TRANSFORMER,
    WHAT,
)
from .render import render_macro


def applies(info: ApiInfo) -> bool:
    """Whether the family may decide: ``script_method``, or a member it has a template for of a class
    under ``torch.nn``/``torch.jit`` (a module's) or ``torch.fx``."""
    r = info.resolution
    if r.canonical in SCRIPT_METHOD:
        return True
    owner = r.owner_class or ""
    leaf = r.path.rsplit(".", 1)[-1]
    if owner.startswith(MODULE_PACKAGES):
        return leaf in HOOKS or leaf in SCRIPT_ONLY
    return owner.startswith(FX_PACKAGE) and leaf in FX_MEMBERS


def _macro(name: str, device: str, **kwargs: Any) -> str:
    return render_macro("inherited.py.j2", name, {"device": device}, **kwargs)


def inherited_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    spelling = spelling_of(r)
    stem = stem_of(r)
    test = f"test_{stem}"
    leaf = r.path.rsplit(".", 1)[-1]
    classes = facts.get("classes") or {}
    owner_mro = [str(c) for c in classes.get("owner") or []]
    defined_on = str(facts.get("defined_on") or "")
    imports: list[str] = []
    if r.canonical in SCRIPT_METHOD:
        source = _macro("script_method", device, test=test, C=spelling)
        imports.append("import io")
        what = (
            "a ScriptModule whose forward it compiles: the method's graph and code, its result on the device "
            "against values worked out by hand and the CPU, and a save/load round trip"
        )
    elif MODULE in owner_mro and r.kind == "method":
        if defined_on and defined_on != MODULE:
            raise CannotDecide(f"{leaf} is {defined_on}'s own, not torch.nn.Module's")
        script = any(c in owner_mro for c in SCRIPT_MODULES)
        owner = owner_spelling(info)
        if leaf in HOOKS:
            lines = [line.format(C=owner, leaf=leaf, device=device) for line in HOOKS[leaf][script]]
            source = _macro("module_hook", device, test=test, C=owner, script=script, lines=lines)
        elif leaf in SCRIPT_ONLY and script:
            source = _macro("script_add_module", device, test=test, leaf=leaf, C=owner)
        else:
            raise CannotDecide(f"no inherited-member template for {leaf!r}")
        imports += IMPORTS.get(leaf, ())
        what = (
            f"torch.nn.Module.{leaf} on {'a scripted' if script else 'a'} module with hand-set weights on the "
            "device: "
            + WHAT.get(leaf, "the submodule it puts in place and the forward that uses it")
        )
    elif r.kind == "method" and FX_MEMBERS.get(leaf) == INTERPRETER and INTERPRETER in owner_mro:
        if defined_on not in ("", INTERPRETER, TRANSFORMER):
            raise CannotDecide(f"get_attr is {defined_on}'s own")
        transformer = TRANSFORMER in owner_mro and defined_on != INTERPRETER
        source = _macro(
            "fx_get_attr", device, test=test, C=owner_spelling(info), transformer=transformer
        )
        what = (
            "a traced module that reads a parameter: the get_attr node "
            + (
                "the transformed graph gets, and the transformed module's result"
                if transformer
                else "it runs, and the interpreted result"
            )
            + " on the device"
        )
    elif r.kind == "method" and FX_MEMBERS.get(leaf) == TRACER and TRACER in owner_mro:
        source = _macro("fx_fresh_qualname", device, test=test, C=owner_spelling(info))
        what = "the names a trace gives the tensor constants it meets, the next free name, and the traced result"
    else:
        raise CannotDecide(
            "not a torch.nn.Module member it covers, script_method, or an fx member it covers"
        )
    methods = split_methods(source)
    if not methods:
        raise CannotDecide("the template wrote no test")
    text = "".join(m.source for m in methods)
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="inherited",
        stem=stem,
        methods=tuple(methods),
        imports=tuple(imports),
        summary=what + ".",
        coverage=coverage_rows(
            normal=what, invalid="非法名称、移除后的钩子" if "assertRaises" in text else ""
        ),
        facts=facts,
    )
