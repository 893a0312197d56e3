"""Runtime objects through the backend's spelling: events, streams, RNG state, memory, device contexts.

``torch.cuda.Event`` is tested as ``torch.npu.Event`` when the device under
test is the NPU (the agent finds the device module's own name for it). These
tests need the device itself: the agent does not check them on the CPU.
Generators (``torch.Generator`` and its members) are the ``generator`` family:
seeding, state round trips and draws on the device, checked on the CPU too.
``runtime_plan`` is the ``runtime`` family's plan: a ``torch.accelerator`` binding
(``accelerator.py``), the objects above, else the older templates (counts,
availability, the current device, synchronize, streams).
"""

from __future__ import annotations

from typing import Any

from ..agent.facts.schema import RuntimeCall, RuntimeFacts
from ..api.records import ApiInfo
from .accelerator import accelerator_plan
from .facts import Facts
from .operators import split_methods
from .plan import CannotDecide, Method, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.runtime import (
    DEVICE_NEUTRAL_MODULES,
    GENERATOR_CALLS,
    GENERATOR_CLASS_CALLS,
    GENERATOR_CLASSES,
    GENERATOR_MEMBERS,
    MODULE_NEEDS,
    RUNTIME_FUNCTIONS,
    RUNTIME_OBJECTS,
    SHARED_MODULES,
)
from .render import render, render_macro

#: what each macro of runtime_more.py.j2 checks
WHAT = {
    "event": "record, query, synchronize, wait and elapsed_time around work on the device",
    "stream": (
        "work queued on a new stream, current_stream inside its context, synchronize, query, wait_stream "
        "and record_event"
    ),
    "stream_context": "current_stream inside and after the context, and the work queued in it",
    "rng": "reproducible draws on the device after seeding, and RNG state round trips",
    "memory": "the memory counters around a 1 MiB allocation on the device",
    "device_context": "the current device inside and after the context",
    "current_accelerator": "the accelerator it reports: the device under test, or none on a CPU-only build",
    "set_device": "the current device it sets, and where new tensors go",
}


def _macro(name: str, device: str, X: str, M: str, **kwargs: Any) -> str:
    return render_macro("runtime_more.py.j2", name, {"device": device, "X": X, "M": M}, **kwargs)


def _ok(methods: dict[str, RuntimeCall], *names: str) -> bool:
    """Whether each of the object's methods ``names`` worked where the agent measured."""
    return all((methods.get(m) or {}).get("ok") for m in names)


def _measured(macro: str, rt: RuntimeFacts, members: list[str]) -> bool:
    """Whether the agent measured what ``macro``'s test needs (the object, its methods, its module's members)."""
    methods = rt.get("methods") or {}
    if macro == "event":
        return bool(
            rt.get("is_class")
            and _ok(methods, "record", "synchronize", "query")
            and rt.get("timing")
        )
    if macro == "stream":
        return bool(
            rt.get("is_class")
            and "stream" in members
            and rt.get("device") is not None
            and _ok(methods, "synchronize", "query")
        )
    if macro == "device_context":
        return bool(rt.get("is_class"))
    return macro not in MODULE_NEEDS or MODULE_NEEDS[macro] in members


def device_runtime_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan | None:
    """A plan for the runtime objects this module knows, or None (the older runtime templates decide)."""
    r = info.resolution
    rt = facts.get("runtime") or {}
    spelled = str(rt.get("spelled") or spelling_of(r))
    members = [str(m) for m in rt.get("module_members") or []]
    leaf = spelled.rsplit(".", 1)[-1]
    module = spelled.rsplit(".", 1)[0]
    if module in SHARED_MODULES and rt.get(
        "home"
    ):  # torch.Stream: the device module's stream functions
        module = str(rt["home"])
    macro, variant = RUNTIME_OBJECTS.get(leaf, ("", ""))
    if not macro or not _measured(macro, rt, members):
        return None
    kwargs: dict[str, Any] = {"test": f"test_{stem_of(r)}"}
    what = WHAT.get(macro, "")
    if macro == "stream":
        kwargs["events"] = bool(((rt.get("methods") or {}).get("record_event") or {}).get("ok"))
    elif macro in ("rng", "memory"):
        kwargs.update(variant=variant, members=members)
    elif macro == "device_context":
        kwargs["variant"] = variant
    elif macro == "is_initialized":
        device_type = str(facts.get("device_type") or "cpu")
        own = module == f"torch.{device_type}" or bool(rt.get("spelled"))
        kwargs["own"] = own
        what = (
            "the runtime reported initialised once a tensor lives on the device"
            if own
            else "the runtime of another backend not started by work on the device under test"
        )
    source = _macro(macro, device, spelled, module, **kwargs)
    return TestPlan(
        api=r.canonical,
        spelling=spelled,
        family="runtime",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )


def generator_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    names = {r.canonical, r.path, *r.aliases, r.owner_class or ""}
    members = tuple(f"{c}." for c in GENERATOR_CLASSES)
    if not names & set(GENERATOR_CLASSES) and not any(n.startswith(members) for n in names):
        raise CannotDecide("not torch.Generator or one of its members")
    leaf = r.path.rsplit(".", 1)[-1] if r.owner_class else ""
    if leaf and leaf not in GENERATOR_MEMBERS:
        raise CannotDecide(f"no generator template for {leaf!r}")
    # the member under test is called through its class, the others on the generator
    calls = {
        member: GENERATOR_CLASS_CALLS[member] if member == leaf else call
        for member, call in GENERATOR_CALLS.items()
    }
    source = _macro(
        "generator",
        device,
        spelling_of(r),
        "",
        test=f"test_{stem_of(r)}",
        calls=calls,
        extra=[line.format(device=device) for line in GENERATOR_MEMBERS.get(leaf, ())],
    )
    what = "seeding, reproducible draws on the device, initial_seed, and get_state/set_state round trips"
    return TestPlan(
        api=r.canonical,
        spelling=spelling_of(r),
        family="generator",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )


# -- the older runtime templates: counts, availability, the current device, synchronize, streams ---------


def _method_lines(methods: dict[str, RuntimeCall], var: str) -> list[str]:
    lines = []
    if (methods.get("record") or {}).get("ok"):
        lines.append(f"{var}.record()")
    if (methods.get("synchronize") or {}).get("ok"):
        lines.append(f"self.assertIsNone({var}.synchronize())")
    q = methods.get("query") or {}
    if q.get("ok") and q.get("literal") == "True" and (methods.get("synchronize") or {}).get("ok"):
        lines.append(f"self.assertIs({var}.query(), True)")
    return lines


def runtime_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
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
    elif leaf in RUNTIME_FUNCTIONS:
        kind, summary = RUNTIME_FUNCTIONS[leaf]
        zero = rt.get("zero_arg") or {}
        if not zero.get("ok"):
            raise CannotDecide(f"{spelling}() failed here: {zero.get('error', '')}")
        if kind == "stream_function":
            ctx.update(
                kind="stream_function",
                result_class=f"{module_spelling}.{zero.get('type')}",
                method_lines=[],
            )
        elif kind == "current_device":
            ctx.update(
                kind="current_device",
                index_type=zero.get("type"),
                device_count=f"{module_spelling}.device_count",
            )
        elif kind in ("device_count", "is_available"):
            device_type = str(facts.get("device_type") or "cpu")
            # the CPU, or another backend's module (torch.xpu where the device is the NPU): none here
            own = (f"torch.{device_type}", *DEVICE_NEUTRAL_MODULES)
            foreign = not spelling.startswith(tuple(f"{m}." for m in own)) and not rt.get("spelled")
            none_here = (device_type == "cpu" or foreign) and zero.get("literal") in ("0", "False")
            ctx.update(kind=kind, minimum=0 if none_here else 1)
        else:
            ctx.update(kind=kind)
    else:
        raise CannotDecide(
            f"no runtime template for {leaf!r} (known: "
            f"{', '.join(RUNTIME_FUNCTIONS)}, and runtime classes)"
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
