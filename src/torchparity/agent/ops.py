"""The jobs the agent can do. Each takes (context, args) and returns a JSON-able dict.

A job runs in a forked child of the warm worker or in a fresh interpreter; either way its output
(fd 1 and 2) is the job's captured log, and its dict is the structured answer.
"""

from __future__ import annotations

import os
from typing import Callable

from . import probe, state, testrun, trace, upstream
from .api import alias_facts, resolve, surface
from .api.states import API_STATES
from .backend import Context
from .facts import check as scaffold_check
from .facts import gather as scaffold_facts
from .protocol import Json


def op_probe(ctx: Context, args: Json) -> Json:
    facts = probe.probe(
        ctx.torch, ctx.backend_mod, ctx.backend_module, ctx.device_type, ctx.initialized_at_import
    )
    # which device, and why: asked for by name, the CPU fallback, or what "auto" found
    at = facts.index(("device_type", ctx.device_type)) + 1
    facts[at:at] = [
        ("device_requested", ctx.requested_device or "auto"),
        ("device_choice", probe.one_line(ctx.device_reason)),
    ]
    for key, value in facts:
        print("%s=%s" % (key, value))
    out: Json = {
        "facts": [[k, v] for k, v in facts],
        "device_type": ctx.device_type,
        "device_requested": ctx.requested_device or "auto",
        "device_reason": ctx.device_reason,
    }
    if ctx.device_problem:
        out["device_problem"] = ctx.device_problem
    return out


def op_run_file(ctx: Context, args: Json) -> Json:
    specs, skipped = state.usable(state.registry(ctx.device_type))
    if args.get("cwd"):
        os.chdir(args["cwd"])
    if args.get("entry"):  # chosen tests by id, as the file's entry runs them
        out = upstream.run_selected(args, list(args.get("selectors") or []), specs)
    else:
        out = testrun.run_as_main(args["path"], args.get("argv", ["-v"]), specs)
    out["states_skipped"] = skipped
    return out


def op_isolation(ctx: Context, args: Json) -> Json:
    if args.get("cwd"):
        os.chdir(args["cwd"])
    rec = testrun.isolation(
        args["path"], args["state"], args.get("patterns", []), ctx.device_type, args.get("tests")
    )
    rec["exit_code"] = 0 if rec["passed"] else 1
    return rec


def op_states(ctx: Context, args: Json) -> Json:
    """The registry as this torch sees it: name, title, values, available or why not."""
    out = []
    for name, spec in state.registry(ctx.device_type).items():
        why = spec.available()
        out.append(
            {
                "name": name,
                "title": spec.title,
                "doc": spec.doc,
                "values": [state._jsonable(v) for v in spec.values(ctx.device_type)],
                "available": not why,
                "why": why,
            }
        )
    return {"states": out, "api_states": {k: list(v) for k, v in API_STATES.items()}}


def op_resolve(ctx: Context, args: Json) -> Json:
    """Resolve ``args["names"]``; with ``trace``, run each API's call sample under the recorder."""
    results = resolve.resolve_many(args.get("names", []), ctx.backend_module or "")
    if args.get("trace"):
        for item in results:
            if item["status"] == "ok":
                item["trace"] = trace.trace_sample(ctx, item["resolution"])
    return {
        "results": results,
        "device_type": ctx.device_type,
        "torch_version": str(ctx.torch.__version__),
        "exit_code": 0,
    }


OPS: dict[str, Callable[[Context, Json], Json]] = {
    "probe": op_probe,
    "run_file": op_run_file,
    "isolation": op_isolation,
    "states": op_states,
    "resolve": op_resolve,
    "trace": trace.op_trace,
    "scaffold_facts": scaffold_facts.op_scaffold_facts,
    "scaffold_check": scaffold_check.op_scaffold_check,
    "alias_facts": alias_facts.op_alias_facts,
    "upstream_list": upstream.op_upstream_list,
    "upstream_run": upstream.op_upstream_run,
    "surface": surface.op_surface,
}
