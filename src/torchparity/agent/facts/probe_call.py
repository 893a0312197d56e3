"""The dispatch trace of a call the facts probe built: what resolve traces when an API has no call sample.

Scaffold's facts probe (``facts.probe``) finds calls of an API that work here: a receiver (a recipe or
the class's own constructor), named arguments and the call. An API without a built-in call sample
(``trace.sample_for``) is traced over the first of those calls: the probe is asked the way
scaffold's facts job asks it (``gather.facts_for`` with ``["probe"]``: the probe runs in a forked
child, the global states restored after), and the call runs under the recorder (imports, prelude
and setup untraced, the call traced, its teardown after): on the CPU in a forked child of its own
(``isolate.in_child``); on a device in the job itself (a forked child cannot use a device the job
started), under an alarm, the global states put back after.

The trace says where its call came from (``source: "probe"``) and keeps the code that ran, with the
probe's names bound: ``_API_`` (the API), ``_OWNER_`` (its class, for a member), ``DEVICE`` (the
device under test), ``_TMP_`` (a scratch folder), ``torch``, ``os``, ``datetime``. Where the probe
found no call the trace's status is ``no-sample`` and its error the probe's reason, one line.
Nothing the probe or the call does ends the job: an exception, a crash or a hang is the trace's
error.
"""

from __future__ import annotations

import datetime
import os
import shutil
import signal
import sys
import tempfile
import traceback
from types import FrameType
from typing import Any, List, Optional, Sequence, Tuple

from ..api.objects import walk
from ..protocol import Json, TorchModule
from . import gather
from .dispatch_keys import (
    dispatch_tls,
    mode_stacks,
    restore_dispatch_tls,
    restore_mode_stacks,
)
from .isolate import ChildFailed, fork_safe, in_child
from .schema_probe import Scenario
from .scratch_home import scratch_torch_home

#: seconds a traced call may take (in its child, or here under an alarm); the probe has its own budget
TRACE_SECONDS = 20.0
#: the probe's calls traced at most, in its order, until one runs to the end
MAX_CALLS = 2
#: where a trace's call came from
SOURCE = "probe"


def target_of(res: Json) -> str:
    return "call built by the facts probe for %s" % res["canonical"]


def _one_line(text: object) -> str:
    lines = [line.strip() for line in str(text or "").splitlines() if line.strip()]
    return lines[0] if lines else ""


def _error_text(exc: BaseException) -> str:
    return "%s: %s" % (type(exc).__name__, _one_line(exc))


def probe_calls(ctx: Any, res: Json) -> Tuple[List[Scenario], List[str], str]:
    """(the probe's valid scenarios, its ``import`` lines, why none) for one resolution record."""
    if not gather.BASELINE:  # what the scaffold facts job takes as loaded by ``import torch``
        gather.BASELINE.update(sys.modules)
    facts = gather.facts_for(ctx, res, ["probe"])
    probe = facts.get("probe")
    if not isinstance(probe, dict):
        return [], [], _one_line(facts.get("problem")) or "the probe gave no answer"
    valid = [sc for sc in probe.get("valid") or [] if isinstance(sc, dict) and sc.get("call")]
    why = _one_line(probe.get("problem") or facts.get("problem"))
    return valid, list(probe.get("imports") or []), why or "the probe found no call"


def code_of(scenario: Scenario, imports: Sequence[str] = ()) -> Tuple[str, str, str]:
    """(setup, call, teardown) source for one of the probe's scenarios (the names the probe binds kept)."""
    setup = list(imports) + list(scenario.get("prelude") or []) + list(scenario.get("setup") or [])
    call = scenario["call"]
    if scenario.get("statement"):
        body = call
    elif scenario.get("context"):  # the probe entered the context manager the call returned
        body = "with %s:\n    pass" % call
    elif scenario.get("listify"):  # an iterator: the probe drew its items
        body = "result = list(%s)" % call
    else:
        body = "result = %s" % call
    teardown = list(scenario.get("teardown") or [])
    if scenario.get("remove_handle"):
        teardown.insert(0, "result.remove()")
    return "\n".join(setup), body + "\n", "\n".join(teardown)


def _device(torch: TorchModule, device_type: str) -> Any:
    return torch.device(device_type if device_type in ("", "cpu") else "%s:0" % device_type)


def _trace_here(torch: TorchModule, device_type: str, res: Json, code: Tuple[str, str, str]) -> Any:
    """The trace of ``code`` run here under the recorder (``trace.trace_code``), as plain JSON data."""
    import json

    from .. import trace

    hit = walk(res["path"])
    owner = hit.parent if isinstance(hit.parent, type) else None
    tmp = tempfile.mkdtemp(prefix="torchparity-trace-")
    ns = {
        "os": os,
        "datetime": datetime,
        "DEVICE": _device(torch, device_type or "cpu"),
        "_TMP_": tmp,
        "_API_": hit.obj,
        "_OWNER_": owner,
    }
    setup, call, teardown = code
    here = os.getcwd()
    cwd = tempfile.mkdtemp(prefix="torchparity-cwd-")  # what a call writes to its folder goes there
    os.chdir(cwd)
    try:
        with scratch_torch_home():
            out = trace.trace_code(torch, device_type, target_of(res), call, setup, teardown, ns)
    finally:
        os.chdir(here)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(cwd, ignore_errors=True)
    return json.loads(json.dumps(out, default=str))


class _OutOfTime(Exception):
    pass


def _out_of_time(signum: int, frame: Optional[FrameType]) -> None:
    raise _OutOfTime("did not finish within %.0f s" % TRACE_SECONDS)


def forks(device_type: str) -> bool:
    """Whether the call is traced in a forked child: on the CPU, where forking is safe. On a device
    it runs here: a child forked after the job started the device cannot use it (hardware raises,
    and so does the emulated NPU; ``gather.calls_on_device`` measures here for the same reason)."""
    return device_type in ("", "cpu") and fork_safe(device_type)


def _trace_isolated(ctx: Any, res: Json, code: Tuple[str, str, str]) -> Any:
    torch, device_type = ctx.torch, ctx.device_type
    args = (torch, device_type, res, code)
    if forks(device_type):
        return in_child(_trace_here, args, timeout=TRACE_SECONDS)
    # here, under an alarm as the probe's calls are, and the global states put back after
    saved = gather._states_now(device_type)
    tls, modes = dispatch_tls(torch), mode_stacks(torch)
    old = signal.signal(signal.SIGALRM, _out_of_time)
    signal.setitimer(signal.ITIMER_REAL, TRACE_SECONDS)
    try:
        return _trace_here(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        restore_mode_stacks(torch, modes)
        gather._restore_states(saved)
        restore_dispatch_tls(torch, tls)


def _record(
    ctx: Any, res: Json, status: str, error: str, code: Optional[Tuple[str, str, str]] = None
) -> Json:
    from .. import trace

    out = trace.Recorder(ctx.torch, ctx.device_type).result(target_of(res), status, error)
    if code is not None:
        out["code"] = {"setup": code[0], "call": code[1], "teardown": code[2]}
    return out


def _trace_one(ctx: Any, res: Json, code: Tuple[str, str, str]) -> Any:
    """The trace of one of the probe's calls; a call that crashed, hung or raised is the trace's error."""
    try:
        return _trace_isolated(ctx, res, code)
    except ChildFailed as exc:
        return _record(ctx, res, "error", "the probe's call %s" % _one_line(exc), code)
    except Exception as exc:  # _OutOfTime included
        traceback.print_exc()
        why = "tracing the probe's call failed: %s" % _error_text(exc)
        return _record(ctx, res, "error", why, code)


def trace_probed(ctx: Any, res: Json) -> Any:
    """The trace of a call the facts probe built for ``res`` (``source: "probe"``): its first call, or
    the next where that one did not run to the end here; never raises."""
    try:
        valid, imports, why = probe_calls(ctx, res)
    except Exception as exc:
        traceback.print_exc()
        valid, imports, why = [], [], "asking the probe failed: %s" % _error_text(exc)
    if not valid:
        out = _record(ctx, res, "no-sample", "the facts probe found no working call: %s" % why)
    else:
        first: Any = None
        for scenario in valid[:MAX_CALLS]:
            out = _trace_one(ctx, res, code_of(scenario, imports))
            first = first or out
            if out.get("status") == "ok":
                break
        else:
            out = first
    out["source"] = SOURCE
    return out
