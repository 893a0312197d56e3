"""Pick a template family from the resolved API and the agent's facts, and build its plan.

The families, tried in order of the API's kind:

* ``storage``: storage classes (construction, basic methods, device of results);
* ``runtime``: device-runtime functions and classes (streams, counts, synchronize);
* ``context``: context-manager/decorator classes and their ``clone``/``__enter__``/``__exit__``
  (how they move the states the state registry links to them, measured from every start value);
* ``opinfo``: operators with an OpInfo entry (sample inputs per dtype against a reference);
* ``tensor``: Tensor methods and properties (several shapes, 0-d and empty included);
* ``signature``: functions with a signature (valid and invalid calls measured on the CPU);
* ``measured``: any API the agent found a working call of (a receiver from a recipe or its
  constructor): the result, and what the call changed, measured on the CPU;
* ``fill-in``: anything no family can decide on: a test that fails and says what to write.

A family whose facts do not let it decide falls through to the next one, and
finally to ``fill-in``; no family writes a test that passes without checking.
Where the agent ran each family's candidate test (``checked`` in the facts;
``check.py``), a family whose tests do not pass, or pass with the API replaced
by a stand-in that returns a sentinel, falls through as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..api.classify import is_device_runtime
from ..api.records import ApiInfo
from .accelerator import accelerator_binding, accelerator_plan
from .autograd import autograd_plan
from .backward import backward_kernel, backward_plan
from .captured import captured_plan, private_aten
from .checker import checker_leaf, checker_plan
from .checkpoint import checkpoint_plan
from .collectives import collectives_plan, is_collective
from .configs import config_leaf, config_plan
from .data import data_plan
from .distributed import distributed_plan, is_distributed_utility
from .doctest import doctest_plan
from .dtypes import canonical_dtype, dtype_plan
from .factories import factory_leaf, factory_plan
from .fake import fake_plan, fake_role
from .graph import graph_plan
from .inherited import applies as inherited_applies
from .inherited import inherited_plan
from .jitgraph import jitgraph_applies, jitgraph_only, jitgraph_plan
from .jittypes import jit_type_leaf, jittype_plan
from .lazy import lazy_plan, lazy_role
from .library import library_plan, library_role
from .measured import measured_plan
from .nn import nn_plan
from .operators import TENSOR_FORMULAS, opinfo_plan, signature_plan, split_methods, tensor_plan
from .optim import optim_plan
from .overloads import is_overload_kind, overload_plan
from .package import package_plan
from .pairs import pair_leaf, pair_plan
from .pipelining import pipelining_plan, pipelining_role
from .plan import CannotDecide, Method, TestPlan, coverage_rows, root_module, spelling_of, stem_of
from .recorded import recorded_kind, recorded_plan
from .render import render
from .runtime import device_runtime_plan, generator_plan
from .serialization import serialization_plan
from .sparse import sparse_leaf, sparse_plan
from .states import StateCode, primary_and_secondaries, relation
from .switches import switch_leaf, switch_plan
from .tensor_kinds import kinds_plan
from .typeobjects import type_object, typeobject_plan
from .utilities import utility_kind, utility_plan

MEMBER_KINDS = ("method", "classmethod", "staticmethod", "property", "attribute")
CALLABLE_KINDS = ("function", "builtin", "method", "classmethod", "staticmethod")
#: what each family asks the agent for
WANTS = {
    "context": ["context"],
    "opinfo": ["opinfo"],
    "tensor": ["tensor"],
    "signature": ["calls", "states"],
    "storage": ["storage"],
    "runtime": ["runtime"],
    "measured": ["probe"],
    "module": ["probe", "module_db"],
    "optim": ["optim"],
    "serialization": [],
    "data": ["data"],
    "graph": [],
    "generator": [],
    "doctest": ["doctest"],
    "autograd": [],
    "checkpoint": [],
    "distributed": [],
    "package": [],
    "dtype": [],
    "factory": [],
    "overload": ["overload"],
    "backward": ["backward"],
    "captured": ["captured"],
    "sparse": [],
    "typeobject": [],
    "jittype": [],
    "jitgraph": ["jitgraph"],
    "switch": ["switch"],
    "pair": ["pair"],
    "checker": ["checker"],
    "fake": [],
    "library": [],
    "lazy": [],
    "pipelining": [],
    "collectives": [],
    "config": [],
    "inherited": [],
    "utility": [],
    "kinds": ["kinds"],
    "recorded": ["recorded"],
    "fill-in": [],
}
#: families whose test needs the device itself (not checked on the CPU by the agent)
DEVICE_ONLY = ("runtime",)


def candidates(info: ApiInfo, backend_module: str = "") -> list[str]:
    """Families to try for this API, best first (``fill-in`` always last)."""
    r = info.resolution
    if jitgraph_only(info):  # probing calls of the other families end the interpreter
        return ["jitgraph", "fill-in"]
    out: list[str] = []
    if r.kind == "storage-class":
        out.append("storage")
    elif is_device_runtime(r, backend_module):
        out.append("runtime")
    elif r.kind == "context-manager" or (
        r.owner_kind == "context-manager" and r.kind in MEMBER_KINDS
    ):
        out.append("context")
    elif r.owner_class == "torch.Tensor":
        out += ["opinfo", "tensor"] if r.kind == "method" else ["tensor"]
    elif r.kind in CALLABLE_KINDS:
        out += ["opinfo", "signature"]
    if _under(r, "torch.nn") or _under(r, "torch.jit") and r.owner_class:
        out.insert(0, "module")
    if _under(r, "torch.optim"):
        out.insert(0, "optim")
    if (
        _under(r, "torch.serialization")
        or r.canonical in ("torch.save", "torch.load")
        or "Storage" in (r.owner_class or "")
    ):
        out.insert(0, "serialization")
    if _under(r, "torch.utils.data"):
        out.insert(0, "data")
    if r.canonical.startswith(("torch.Generator", "torch._C.Generator")) or (
        r.owner_class or ""
    ) in ("torch.Generator", "torch._C.Generator"):
        out.insert(0, "generator")
    if _under(r, "torch.autograd") and r.path.rsplit(".", 1)[-1] in (
        "grad",
        "backward",
        "gradcheck",
        "gradgradcheck",
        "run_backward",
        "queue_callback",
    ):
        out.insert(0, "autograd")
    if _under(r, "torch.package"):
        out.insert(0, "package")
    if is_distributed_utility(r):
        out.insert(0, "distributed")
    if is_collective(r):
        out.insert(0, "collectives")
    if _under(r, "torch.distributed.checkpoint"):
        out.insert(0, "checkpoint")
    if pipelining_role(info):
        out.insert(0, "pipelining")
    if (
        _under(r, "torch.jit")
        or _under(r, "torch.fx")
        or _under(r, "torch.export")
        or r.canonical in ("torch.compile", "torch.compiler.compile")
    ):
        out.insert(0, "graph")
    if accelerator_binding(info) and "runtime" not in out:
        out.insert(0, "runtime")
    if is_overload_kind(info):
        out.insert(out.index("opinfo") + 1 if "opinfo" in out else 0, "overload")
    if backward_kernel(info):
        out.insert(out.index("overload") + 1 if "overload" in out else 0, "backward")
    if private_aten(info) and "opinfo" in out:
        after = [f for f in ("backward", "overload", "opinfo") if f in out][0]
        out.insert(out.index(after) + 1, "captured")
    if inherited_applies(info):
        out.insert(0, "inherited")
    if utility_kind(info):
        out.insert(0, "utility")
    if factory_leaf(info):
        out.insert(0, "factory")
    if sparse_leaf(info):
        out.insert(0, "sparse")
    if canonical_dtype(info):
        out.insert(0, "dtype")
    if type_object(info):
        out.insert(0, "typeobject")
    if jit_type_leaf(info):
        out.insert(0, "jittype")
    if jitgraph_applies(info):
        out.insert(0, "jitgraph")
    if fake_role(info):
        out.insert(0, "fake")
    if library_role(info):
        out.insert(0, "library")
    if lazy_role(info):
        out.insert(0, "lazy")
    if config_leaf(info):
        out.insert(0, "config")
    if r.kind != "module":
        out.append("measured")
    later = [i for i, f in enumerate(out) if f in ("signature", "measured")]
    if later:
        out.insert(later[0], "doctest")
    if recorded_kind(
        info
    ):  # calls public code makes of it, before the probe's and the name-guessed kinds
        out.insert(out.index("measured") if "measured" in out else len(out), "recorded")
    tensor_property = r.kind == "property" and r.owner_class in (
        "torch.Tensor",
        "torch._C.TensorBase",
    )
    if (
        (r.kind in CALLABLE_KINDS or tensor_property)
        and "measured" in out
        and not {"runtime", "context", "storage"} & set(out)
    ):  # tensors of another kind (sparse, nested, ...)
        out.insert(out.index("measured"), "kinds")
    if checker_leaf(
        info
    ):  # after every other family: a predicate or validator on measured arguments
        out.append("checker")
    if pair_leaf(info):  # after every other family: a function and its partner found by name
        out.append("pair")
    if switch_leaf(info):  # after every other family: a setter no other template could hold
        out.append("switch")
    out.append("fill-in")
    return out


def _under(r: Any, prefix: str) -> bool:
    """Whether the API (or its owner class) is spelled under ``prefix``."""
    names = [r.canonical, r.path, *r.aliases, r.owner_class or ""]
    return any(n == prefix or n.startswith(prefix + ".") for n in names if n)


def wants(families: list[str]) -> list[str]:
    out: list[str] = []
    for f in families:
        out += [w for w in WANTS[f] if w not in out]
    return out


def tensor_formula(info: ApiInfo) -> str:
    return TENSOR_FORMULAS.get(info.resolution.path.rsplit(".", 1)[-1], "")


BUILDERS: dict[str, Callable[[ApiInfo, dict[str, Any], str], TestPlan]] = {}


def candidate_plans(
    info: ApiInfo, facts: dict[str, Any], device: str, backend_module: str = ""
) -> tuple[list[TestPlan], list[str]]:
    """Every family's plan that can decide, in order, and why the others could not."""
    plans, reasons = [], []
    for family in candidates(info, backend_module):
        if family == "fill-in":
            break
        try:
            plans.append(_with_imports(BUILDERS[family](info, facts, device), facts))
        except CannotDecide as exc:
            reasons.append(f"{family}: {exc}")
    return plans, reasons


def build_plan(
    info: ApiInfo, facts: dict[str, Any], device: str, backend_module: str = ""
) -> TestPlan:
    """The plan of the first family that can decide (``device``: the expression tests use).

    With the agent's ``checked`` outcomes, a family is kept only when some of its
    tests pass (on the CPU, or on the device its expected values were measured on) and
    some fail once the API is replaced by a stand-in; its tests that failed are left out
    (with a note).
    """
    plans, reasons = candidate_plans(info, facts, device, backend_module)
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
    plan: TestPlan, outcome: dict[str, Any], require_catch: bool = True
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


def _with_imports(plan: TestPlan, facts: dict[str, Any]) -> TestPlan:
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


# -- fill-in ---------------------------------------------------------------------------------
def fill_in_plan(info: ApiInfo, facts: dict[str, Any], reasons: list[str]) -> TestPlan:
    r = info.resolution
    spelling = spelling_of(r)
    why = "; ".join(reasons) if reasons else f"no template covers a {r.kind} ({r.kind_detail})"
    message = (
        f"torchparity scaffold could not decide what to assert for {r.canonical} "
        f"(kind: {r.kind}; {why}). Write calls of {spelling} with the results upstream "
        "documents, then remove this failure."
    )
    stem = stem_of(r)
    source = render(
        "fill_in.py.j2",
        test=f"test_{stem}",
        spelling=spelling,
        message_lines=_split_message(message),
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="fill-in",
        stem=stem,
        methods=(Method(f"test_{stem}", source),),
        summary="no template could decide what to assert; the test fails until it is written",
        coverage=coverage_rows(
            **{
                k: "待补充"
                for k in ("empty", "enum", "types", "omitted", "boundary", "normal", "invalid")
            }
        ),
        fill_in=(message,),
        uses_device=False,
        facts=facts,
    )


def _split_message(message: str, width: int = 80) -> list[str]:
    """Pieces of at most ``width`` characters that concatenate back to ``message``."""
    out, current = [], ""
    for word in re.split(r"(?<= )", message):
        if current and len(current) + len(word) > width:
            out.append(current)
            current = ""
        current += word
    if current:
        out.append(current)
    return out


# -- context managers --------------------------------------------------------------------------
def _expr_for(runs: list[dict[str, Any]], point: str, state: str, var: str, has_mode: bool) -> str:
    expr = relation(runs, point, state, var, has_mode)
    if expr is None:
        raise CannotDecide(
            f"the value of {state} at {point.replace('_', ' ')} follows no rule of the "
            "mode and the state before (measured from every start value)"
        )
    return expr


def context_plan(info: ApiInfo, facts: dict[str, Any], device: str) -> TestPlan:
    r = info.resolution
    ctx = facts.get("context") or {}
    if ctx.get("problem"):
        raise CannotDecide(ctx["problem"])
    member = ctx.get("member")
    if member not in (None, "clone", "__enter__", "__exit__", "__call__"):
        raise CannotDecide(f"member {member!r} of a context manager has no template")
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
        member=None if member == "__call__" else member,
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
    what = {
        "clone": "clone object independence, type and mode preservation",
        "__enter__": "explicit __enter__/__exit__ calls",
        "__exit__": "explicit __enter__/__exit__ calls",
    }.get(member or "", "the context manager's construction, entry and exit")
    summary = (
        f"{what}, the {titles} it sets when constructed, entered and left from every outer value, "
        f"restoration of the {titles} after the test"
        + (", and decorator use on device tensors." if decorator else ".")
    )
    leaf = "clone" if member == "clone" else class_spelling
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
            normal=(f"{leaf} 后对象独立、类型与 mode 保持；" if member == "clone" else "")
            + f"构造、进入、退出时 {titles} 符合预期"
            + ("；作为装饰器作用于设备张量" if decorator else "")
            + f"；测试结束后 {titles} 恢复",
        ),
        uses_device=decorator,
        facts=facts,
    )


def _relaxed_decorators(facts: dict[str, Any]) -> bool:
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


# -- storages -----------------------------------------------------------------------------------
def storage_plan(info: ApiInfo, facts: dict[str, Any], device: str) -> TestPlan:
    r = info.resolution
    st = facts.get("storage") or {}
    if not st or st.get("problem"):
        raise CannotDecide(st.get("problem") or "no storage facts")
    spelling = spelling_of(r)
    stem = stem_of(r)
    untyped = bool(st.get("untyped"))
    if not untyped and not st.get("moved_ok"):
        raise CannotDecide(f"{spelling}.to(device=...) did not keep the values on the CPU")
    source = render(
        "storage.py.j2",
        test=f"test_{stem}",
        spelling=spelling,
        device=device,
        untyped=untyped,
        values=st.get("values", ""),
        dtype=st.get("dtype", ""),
    )
    what = "bytes" if untyped else f"{st.get('dtype')} elements"
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="storage",
        stem=stem,
        methods=(Method(f"test_{stem}", source),),
        summary=(
            f"construction ({what}), size, element size and values, fill/copy/clone, moving to "
            "the device and back, and the device of the results."
        ),
        coverage=coverage_rows(
            empty="长度为 0 以外的存储（构造长度、按值构造）",
            types="按长度构造、按值序列构造" if not untyped else "按长度构造（device 参数）",
            normal="size/nbytes/element_size、取值、设备迁移后值与设备正确",
        ),
        facts=facts,
    )


# -- device runtime --------------------------------------------------------------------------------
_RUNTIME_FUNCTIONS = ("device_count", "is_available", "current_device", "synchronize")
_STREAM_FUNCTIONS = ("current_stream", "default_stream")


def _method_lines(methods: dict[str, Any], var: str) -> list[str]:
    lines = []
    if (methods.get("record") or {}).get("ok"):
        lines.append(f"{var}.record()")
    if (methods.get("synchronize") or {}).get("ok"):
        lines.append(f"self.assertIsNone({var}.synchronize())")
    q = methods.get("query") or {}
    if q.get("ok") and q.get("literal") == "True" and (methods.get("synchronize") or {}).get("ok"):
        lines.append(f"self.assertIs({var}.query(), True)")
    return lines


def runtime_plan(info: ApiInfo, facts: dict[str, Any], device: str) -> TestPlan:
    r = info.resolution
    rt = facts.get("runtime") or {}
    known = accelerator_plan(info, facts, device) or device_runtime_plan(info, facts, device)
    if known is not None:
        return known
    spelling = str(rt.get("spelled") or spelling_of(r))
    stem = stem_of(r)
    leaf = r.path.rsplit(".", 1)[-1]
    module_spelling = spelling.rsplit(".", 1)[0]
    if rt.get("problem"):
        raise CannotDecide(rt["problem"])
    ctx: dict[str, Any] = {"test": f"test_{stem}", "spelling": spelling, "device": device}
    if rt.get("is_class"):
        methods = rt.get("methods") or {}
        construct = (
            f"{spelling}(device={device})" if rt.get("construct") == "device" else f"{spelling}()"
        )
        ctx.update(
            kind="class",
            construct=construct,
            has_device=rt.get("device") is not None,
            method_lines=_method_lines(methods, "obj"),
        )
        summary = "construction, its basic methods and the device it belongs to."
    elif leaf in _RUNTIME_FUNCTIONS or leaf in _STREAM_FUNCTIONS:
        zero = rt.get("zero_arg") or {}
        if not zero.get("ok"):
            raise CannotDecide(f"{spelling}() failed here: {zero.get('error', '')}")
        if leaf in _STREAM_FUNCTIONS:
            ctx.update(
                kind="stream_function",
                result_class=f"{module_spelling}.{zero.get('type')}",
                method_lines=[],
            )
        elif leaf == "current_device":
            ctx.update(
                kind="current_device",
                index_type=zero.get("type"),
                device_count=f"{module_spelling}.device_count",
            )
        elif leaf in ("device_count", "is_available"):
            device_type = str(facts.get("device_type") or "cpu")
            # the CPU, or another backend's module (torch.xpu where the device is the NPU): none here
            foreign = not spelling.startswith(
                (f"torch.{device_type}.", "torch.accelerator.")
            ) and not rt.get("spelled")
            none_here = (device_type == "cpu" or foreign) and zero.get("literal") in ("0", "False")
            ctx.update(kind=leaf, minimum=0 if none_here else 1)
        else:
            ctx.update(kind=leaf)
        summary = {
            "device_count": "the device count it reports for the device under test.",
            "is_available": "availability of the device under test.",
            "current_device": "the current device it reports.",
            "synchronize": "that work queued on the device is complete and correct after it returns.",
        }.get(leaf, "the stream it returns.")
    else:
        raise CannotDecide(
            f"no runtime template for {leaf!r} (known: "
            f"{', '.join(_RUNTIME_FUNCTIONS + _STREAM_FUNCTIONS)}, and runtime classes)"
        )
    if ctx.get("kind") == "class" and not ctx.get("method_lines") and not ctx.get("has_device"):
        summary = "construction and the type of the object."
    source = render(
        "runtime.py.j2",
        **{
            "index_type": "",
            "device_count": "",
            "result_class": "",
            "minimum": 1,
            "method_lines": [],
            "has_device": False,
            "construct": "",
            **ctx,
        },
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="runtime",
        stem=stem,
        methods=(Method(f"test_{stem}", source),),
        summary=summary,
        coverage=coverage_rows(normal="在被测设备上调用并检查返回值、对象类型与所属设备"),
        facts=facts,
    )


BUILDERS.update(
    {
        "context": context_plan,
        "opinfo": opinfo_plan,
        "tensor": tensor_plan,
        "signature": signature_plan,
        "storage": storage_plan,
        "runtime": runtime_plan,
        "measured": measured_plan,
        "module": nn_plan,
        "optim": optim_plan,
        "serialization": serialization_plan,
        "data": data_plan,
        "graph": graph_plan,
        "generator": generator_plan,
        "doctest": doctest_plan,
        "autograd": autograd_plan,
        "checkpoint": checkpoint_plan,
        "pipelining": pipelining_plan,
        "distributed": distributed_plan,
        "package": package_plan,
        "dtype": dtype_plan,
        "factory": factory_plan,
        "overload": overload_plan,
        "backward": backward_plan,
        "captured": captured_plan,
        "sparse": sparse_plan,
        "typeobject": typeobject_plan,
        "fake": fake_plan,
        "library": library_plan,
        "lazy": lazy_plan,
        "collectives": collectives_plan,
        "config": config_plan,
        "inherited": inherited_plan,
        "utility": utility_plan,
        "jittype": jittype_plan,
        "jitgraph": jitgraph_plan,
        "switch": switch_plan,
        "pair": pair_plan,
        "checker": checker_plan,
        "kinds": kinds_plan,
        "recorded": recorded_plan,
    }
)
