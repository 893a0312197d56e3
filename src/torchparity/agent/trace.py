"""Record the operators an API dispatches and the devices they touch (a TorchDispatchMode).

Three targets: a piece of code (``setup`` untraced, ``call`` traced,
``teardown`` untraced), an API's built-in call sample (``SAMPLES``), or the
selected tests of a test file (loaded and selected with ``testrun``'s
helpers). The recorder sits at the Python dispatch key, so it sees every
operator that reaches a kernel (factories and in-place ops included) with the
devices of its tensor arguments and results; ``profiler::`` bookkeeping ops are
counted apart. Nothing here names one torch version's module paths except the
recorder's own home, looked up tolerantly.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
import unittest
from typing import Any, Dict, Sequence, Tuple

from . import testrun
from .api import resolve as resolve_mod
from .api.objects import NotFound, walk
from .backend import Context
from .facts import probe_call
from .protocol import Json, TorchModule

#: operator namespaces that are bookkeeping, not device work (counted apart)
IGNORED_NAMESPACES = ("profiler",)
#: where TorchDispatchMode has lived
MODE_HOMES = (("torch.utils._python_dispatch", "TorchDispatchMode"),)
OUTSIDE_TESTS = "(outside tests)"

# API -> (setup, call, teardown). Code sees: torch, device (the device type under
# test), api (the resolved object), owner (its class for a member). Only ``call``
# is traced; ``teardown`` restores any state the call changed.
_GRAD_STATE = ("prev = torch.is_grad_enabled()", "owner(prev)")
_MT_STATE = ("prev = torch.autograd.is_multithreading_enabled()", "owner(prev)")
_CLONE_CALL = (
    "for mode in (False, True):\n    copy = owner(mode).clone()\n    with copy:\n        pass\n"
)
_BINARY_SETUP = "a = torch.ones(3, device=device)\nb = torch.full((3,), 2.0, device=device)"
SAMPLES: Dict[str, Tuple[str, str, str]] = {
    "torch.autograd.grad_mode.set_grad_enabled.clone": (
        _GRAD_STATE[0],
        _CLONE_CALL,
        _GRAD_STATE[1],
    ),
    "torch.autograd.grad_mode.set_multithreading_enabled.clone": (
        _MT_STATE[0],
        _CLONE_CALL,
        _MT_STATE[1],
    ),
    "torch.autograd.grad_mode.set_grad_enabled": (
        "prev = torch.is_grad_enabled()",
        "for mode in (False, True):\n    with api(mode):\n        pass\n",
        "api(prev)",
    ),
    "torch.autograd.grad_mode.no_grad": ("", "with api():\n    pass\n", ""),
    "torch.autograd.grad_mode.enable_grad": ("", "with api():\n    pass\n", ""),
    "torch.autograd.grad_mode.inference_mode": (
        "",
        "for mode in (True, False):\n    with api(mode):\n        pass\n",
        "",
    ),
    "torch.is_grad_enabled": ("", "api()", ""),
    "torch.add": (_BINARY_SETUP, "api(a, b)", ""),
    "torch.mul": (_BINARY_SETUP, "api(a, b)", ""),
    "torch.Tensor.add_": (_BINARY_SETUP, "api(a, b)", ""),
    "torch.Tensor.mul_": (_BINARY_SETUP, "api(a, b)", ""),
    "torch.nn.functional.relu": ("x = torch.linspace(-1, 1, 5, device=device)", "api(x)", ""),
    "torch.optim.optimizer.Optimizer.zero_grad": (
        "p = torch.nn.Parameter(torch.ones(2, device=device))\n"
        "p.grad = torch.ones(2, device=device)\n"
        "opt = torch.optim.SGD([p], lr=0.1)",
        "api(opt, set_to_none=False)\napi(opt)",
        "",
    ),
    "torch.BoolStorage": ("", "api(4)", ""),
    "torch._utils._get_device_index": (
        "",
        "api(torch.device(device, 0), allow_cpu=True)\napi(0)\napi('%s:1' % device, allow_cpu=True)",
        "",
    ),
    "torch.cuda.streams.Event": ("", "event = api()\nevent.record()\nevent.synchronize()", ""),
    "torch.cuda.streams.Stream": ("", "stream = api()\nstream.synchronize()", ""),
}
# Tensor members read from a tensor on the device: properties and plain attributes.
_TENSOR_READ = ("x = torch.ones(2, 3, device=device)", "getattr(x, name)", "")


def mode_base() -> Any:
    """TorchDispatchMode of this torch, or None."""
    for module_name, attr in MODE_HOMES:
        try:
            mod = importlib.import_module(module_name)
        except Exception:
            continue
        base = getattr(mod, attr, None)
        if base is not None:
            return base
    return None


def _tensors(obj: Any, tensor_type: type, out: list[Any]) -> list[Any]:
    if isinstance(obj, tensor_type):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _tensors(item, tensor_type, out)
    elif isinstance(obj, dict):
        for item in obj.values():
            _tensors(item, tensor_type, out)
    return out


def _skip_dynamo_import(fn: Any) -> None:
    """Spare the first dispatch a ~2 s ``import torch._dynamo`` (every forked job would pay it).

    torch wraps a mode's handler in ``torch._disable_dynamo``, which imports
    dynamo on the first call and caches the result on the function as
    ``__dynamo_disable``. Without dynamo loaded nothing can be compiling, so the
    handler itself is the right cache entry; once dynamo is loaded, leave it be.
    """
    if "torch._dynamo" not in sys.modules:
        setattr(fn, "__dynamo_disable", fn)


def _op_name(func: Any) -> str:
    name = getattr(func, "name", None)
    if callable(name):
        try:
            return str(name())
        except Exception:
            pass
    text = str(func)  # aten.add.Tensor
    parts = text.split(".", 1)
    return "%s::%s" % (parts[0], parts[1]) if len(parts) == 2 else text


class Recorder(object):
    """Counts (operator, devices) pairs and the tensors operators return."""

    def __init__(self, torch: TorchModule, device_type: str) -> None:
        self.torch = torch
        self.device_type = device_type
        self.counts: dict[tuple[str, tuple[str, ...]], int] = {}
        self.ignored: dict[str, int] = {}
        self.created: dict[str, int] = {}
        self.devices: set[str] = set()
        self.label: str | None = None
        self.per_label: dict[str, int] = {}

    def record(self, func: Any, args: Any, kwargs: Any, out: Any) -> None:
        name = _op_name(func)
        if name.split("::", 1)[0] in IGNORED_NAMESPACES:
            self.ignored[name] = self.ignored.get(name, 0) + 1
            return
        tensor_type = self.torch.Tensor
        ins = _tensors((args, kwargs or {}), tensor_type, [])
        outs = _tensors(out, tensor_type, [])
        devs = sorted(set(t.device.type for t in ins + outs))
        key = (name, tuple(devs))
        self.counts[key] = self.counts.get(key, 0) + 1
        self.devices.update(devs)
        in_ids = set(id(t) for t in ins)
        for t in outs:
            if id(t) not in in_ids:
                self.created[t.device.type] = self.created.get(t.device.type, 0) + 1
        label = self.label or OUTSIDE_TESTS
        self.per_label[label] = self.per_label.get(label, 0) + 1

    def mode(self) -> Any:
        """A fresh dispatch mode feeding this recorder (None when torch has none)."""
        base = mode_base()
        if base is None:
            return None
        recorder = self

        def dispatch(mode: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            recorder.record(func, args, kwargs, out)
            return out

        _skip_dynamo_import(dispatch)
        return type(base)("_TraceMode", (base,), {"__torch_dispatch__": dispatch})()

    def result(self, target: str, status: str = "ok", error: str = "") -> Json:
        ops: list[Json] = [
            {"op": op, "devices": list(devs), "count": n} for (op, devs), n in self.counts.items()
        ]
        ops.sort(key=lambda o: (-o["count"], o["op"], o["devices"]))
        return {
            "target": target,
            "status": status,
            "error": error,
            "device_type": self.device_type,
            "ops": ops,
            "total_ops": sum(o["count"] for o in ops),
            "device_tensors_created": self.created.get(self.device_type, 0),
            "tensors_created": dict(sorted(self.created.items())),
            "devices": sorted(self.devices),
            "ignored_ops": [{"op": k, "count": v} for k, v in sorted(self.ignored.items())],
        }


def _error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, text[0] if text else "")


def _unavailable(torch: TorchModule, device_type: str, target: str) -> Json:
    rec = Recorder(torch, device_type)
    return rec.result(
        target,
        "unavailable",
        "this torch has no TorchDispatchMode (looked in %s)"
        % ", ".join("%s.%s" % m for m in MODE_HOMES),
    )


def trace_code(
    torch: TorchModule,
    device_type: str,
    target: str,
    call: str,
    setup: str = "",
    teardown: str = "",
    namespace: Json | None = None,
) -> Json:
    """Run ``setup``, then ``call`` under the recorder, then ``teardown``; returns the trace."""
    rec = Recorder(torch, device_type)
    mode = rec.mode()
    if mode is None:
        return _unavailable(torch, device_type, target)
    ns = {"torch": torch, "device": device_type}
    ns.update(namespace or {})
    try:
        if setup:
            exec(compile(setup, "<setup>", "exec"), ns)
    except Exception as exc:
        traceback.print_exc()
        return rec.result(target, "error", "setup failed: %s" % _error(exc))
    status, error = "ok", ""
    try:
        with mode:
            exec(compile(call, "<call>", "exec"), ns)
    except Exception as exc:
        traceback.print_exc()
        status, error = "error", _error(exc)
    finally:
        if teardown:
            try:
                exec(compile(teardown, "<teardown>", "exec"), ns)
            except Exception:
                traceback.print_exc()
    out = rec.result(target, status, error)
    out["code"] = {"setup": setup, "call": call, "teardown": teardown}
    return out


def _objects(resolution: Json) -> tuple[Any, type | None, str]:
    """(api object, owner class or None) for a resolution record, looked up again here."""
    hit = walk(resolution["path"])
    owner = hit.parent if isinstance(hit.parent, type) else None
    return hit.obj, owner, hit.attr


def sample_for(resolution: Json) -> tuple[str, str, str] | None:
    """(setup, call, teardown) for an API, or None when there is no sample."""
    names = [resolution["canonical"]] + list(resolution.get("aliases", []))
    names += [
        resolution.get("path", ""),
        resolution.get("docs_name", ""),
        resolution.get("query", ""),
    ]
    for name in names:
        if name in SAMPLES:
            return SAMPLES[name]
    owner = resolution.get("owner_class") or ""
    if owner in ("torch.Tensor",) and resolution["kind"] in ("property", "attribute"):
        return _TENSOR_READ
    return None


def trace_sample(ctx: Context, resolution: Json) -> Json:
    """Trace the API's call sample (``source: "sample"``); without one, a call the facts probe built."""
    sample = sample_for(resolution)
    if sample is None:
        return probe_call.trace_probed(ctx, resolution)
    setup, call, teardown = sample
    api, owner, name = _objects(resolution)
    ns = {"api": api, "owner": owner, "name": name}
    target = "call sample of %s" % resolution["canonical"]
    out = trace_code(ctx.torch, ctx.device_type, target, call, setup, teardown, ns)
    out["source"] = "sample"
    return out


class _LabelledResult(unittest.TextTestResult):
    recorder: Recorder

    def startTest(self, test: unittest.TestCase) -> None:
        self.recorder.label = test.id()
        unittest.TextTestResult.startTest(self, test)

    def stopTest(self, test: unittest.TestCase) -> None:
        unittest.TextTestResult.stopTest(self, test)
        self.recorder.label = None


def trace_file(
    torch: TorchModule,
    device_type: str,
    path: str,
    patterns: Sequence[str] = (),
    tests: Sequence[str] | None = None,
) -> Json:
    """Load ``path``, select tests by ``patterns`` and run them under the recorder."""
    rec = Recorder(torch, device_type)
    target = os.path.basename(path)
    mode = rec.mode()
    if mode is None:
        return _unavailable(torch, device_type, target)
    try:
        module = testrun._load_module(path)
        pattern, ids = testrun.select_tests(module, list(patterns), tests)
        suite = testrun._suite(module, ids)
    except BaseException as exc:  # a broken file, or one that exits at import
        traceback.print_exc()
        out = rec.result(target, "error", "loading %s failed: %s" % (path, _error(exc)))
        out.update(
            tests=[], selection={"pattern": None, "tests": []}, tests_run=0, successful=False
        )
        return out
    if pattern:
        target = "%s -k %s" % (target, pattern)
    result_class = type("_Result", (_LabelledResult,), {"recorder": rec})
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=2, resultclass=result_class)
    status, error = "ok", ""
    result = None
    try:
        with mode:
            result = runner.run(suite)
    except Exception as exc:
        traceback.print_exc()
        status, error = "error", _error(exc)
    sys.stderr.flush()
    out = rec.result(target, status, error)
    out["selection"] = {"pattern": pattern, "tests": ids}
    out["tests"] = [{"id": i, "ops": rec.per_label.get(i, 0)} for i in ids]
    if rec.per_label.get(OUTSIDE_TESTS):
        out["tests"].append({"id": OUTSIDE_TESTS, "ops": rec.per_label[OUTSIDE_TESTS]})
    out["tests_run"] = result.testsRun if result is not None else 0
    out["successful"] = bool(result is not None and result.wasSuccessful() and result.testsRun > 0)
    return out


def _refused(why: str) -> Json:
    """The answer to a request that cannot be traced (the controller reports ``error``)."""
    return {"trace": None, "error": why, "exit_code": 2}


def _answer(torch: TorchModule, out: Json | None) -> Json:
    """The job's answer: its exit code is 0 only when the trace itself ran (status ``ok``).

    The tests' own failures are not the trace's: a trace whose tests failed is still ``ok``; a file
    that does not load, code that raises, or a torch without a dispatch mode is not."""
    status = (out or {}).get("status", "ok")
    return {
        "trace": out,
        "torch_version": str(torch.__version__),
        "exit_code": 0 if status == "ok" else 1,
    }


def op_trace(ctx: Context, args: Json) -> Json:
    """Agent job: trace a test file (``file``), code (``call``) or an API's sample (``api``)."""
    if args.get("cwd"):
        os.chdir(args["cwd"])
    torch, device_type = ctx.torch, ctx.device_type
    if args.get("file"):
        out: Json | None = trace_file(
            torch, device_type, args["file"], args.get("patterns", []), args.get("tests")
        )
        return _answer(torch, out)
    call = args.get("call")
    if call is not None and not call.strip():
        return _refused("the code to trace is empty; pass the code to run")
    call = call or ""
    if not call and not args.get("api"):
        return _refused("nothing to trace: the request names no test file, no API and no code")
    res = None
    if args.get("api"):
        try:
            res = resolve_mod.resolve(args["api"], ctx.backend_module or "")
        except NotFound as exc:  # answered with the same backend it was looked up with
            return {
                "trace": None,
                "unresolved": resolve_mod.unresolved(args["api"], exc),
                "exit_code": 0,
            }
    if call:
        ns, target = {}, "code: %s" % call.strip().splitlines()[0]
        if res is not None:
            api, owner, name = _objects(res)
            ns = {"api": api, "owner": owner, "name": name}
            target = "%s, %s" % (res["canonical"], target)
        out = trace_code(
            torch, device_type, target, call, args.get("setup", ""), args.get("teardown", ""), ns
        )
    else:
        assert res is not None  # no code: an API was named (the request was refused otherwise)
        out = trace_sample(ctx, res)
    sys.stdout.flush()
    return _answer(torch, out)
