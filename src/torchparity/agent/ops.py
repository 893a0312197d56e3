"""The jobs the agent can do. Each takes (context, args) and returns a JSON-able dict.

A job runs in a forked child of the warm worker or in a fresh interpreter;
either way its output (fd 1 and 2) is the job's captured log, and its dict is
the structured answer.
"""

import os

from . import backend, probe, state, testrun, trace, upstream
from .api import alias_facts, resolve, surface
from .facts import check as scaffold_check
from .facts import gather as scaffold_facts


class Context(object):
    """What the worker imported once, shared by every job."""

    def __init__(
        self,
        torch,
        backend_mod,
        backend_module,
        requested_device,
        initialized_at_import,
        allow_cpu_fallback=False,
    ):
        self.torch = torch
        self.backend_mod = backend_mod
        self.backend_module = backend_module
        self.requested_device = requested_device
        self.initialized_at_import = initialized_at_import
        self.allow_cpu_fallback = allow_cpu_fallback
        #: what preloading torch's test framework changed, done again in a job (``preload.Replay``)
        self.replay = None
        self._choice = None

    def _chosen(self):
        # asked in the job's process only: availability may initialise the device runtime
        if self._choice is None:
            self._choice = backend.choose_device(
                self.torch, self.requested_device, self.backend_module, self.allow_cpu_fallback
            )
        return self._choice

    @property
    def device_type(self):
        return self._chosen()[0]

    @property
    def device_reason(self):
        """Why this device: requested, the CPU fallback, or what ``auto`` found."""
        return self._chosen()[1]

    @property
    def device_problem(self):
        """A requested device that is not there (a broken environment), "" when all is well."""
        return self._chosen()[2]

    def prepare_child(self):
        """In the job's process: initialise the device (tests then find it ready)."""
        if self.device_problem:
            return self.device_problem
        problem = backend.init_device(self.torch, self.device_type)
        if problem and self.initialized_at_import:
            # the warm worker's rule: import the backend, never initialise the device before fork
            problem = (
                "the %s device was already initialised in the warm worker when it imported the "
                "backend, before this job was forked, and a forked child cannot use it (run with "
                "--fresh, or fix the backend's import): %s" % (self.device_type, problem)
            )
        return problem


def op_probe(ctx, args):
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
    out = {
        "facts": [[k, v] for k, v in facts],
        "device_type": ctx.device_type,
        "device_requested": ctx.requested_device or "auto",
        "device_reason": ctx.device_reason,
    }
    if ctx.device_problem:
        out["device_problem"] = ctx.device_problem
    return out


def op_run_file(ctx, args):
    specs, skipped = state.usable(state.registry(ctx.device_type))
    if args.get("cwd"):
        os.chdir(args["cwd"])
    if args.get("entry"):  # chosen tests by id, as the file's entry runs them
        out = upstream.run_selected(args, list(args.get("selectors") or []), specs)
    else:
        out = testrun.run_as_main(args["path"], args.get("argv", ["-v"]), specs)
    out["states_skipped"] = skipped
    return out


def op_isolation(ctx, args):
    if args.get("cwd"):
        os.chdir(args["cwd"])
    rec = testrun.isolation(
        args["path"], args["state"], args.get("patterns", []), ctx.device_type, args.get("tests")
    )
    rec["exit_code"] = 0 if rec["passed"] else 1
    return rec


def op_states(ctx, args):
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
    return {"states": out, "api_states": {k: list(v) for k, v in state.API_STATES.items()}}


def op_resolve(ctx, args):
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


OPS = {
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
