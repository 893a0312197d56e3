"""Upstream official tests: list a test file's tests as its runner loads them, and run chosen ones.

* ``upstream_list``: the file is imported under a name other than ``__main__`` (its module body
  runs, ``instantiate_device_type_tests`` and ``instantiate_parametrized_tests`` included; its
  ``if __name__ == "__main__"`` block does not), and every test unittest's loader finds is
  described: its class, method, the test it was instantiated from (``functools.wraps`` keeps the
  template's name), the device type of a device-generic class, the OpInfo of an OpInfo-driven
  instance, and the name less its device and dtype suffixes as torch itself strips them. A file
  that cannot be imported answers what it lacked: the module (``ModuleNotFoundError.name``) or the
  file.
* ``upstream_run``: the file runs exactly as ``python FILE SELECTORS -v`` (unittest ids through the
  file's own ``run_tests``/``unittest.main``) or as ``python -m pytest NODE_IDS -v``, with the
  variables the backend reads (its disabled list) set; per-test outcomes come from the runner's
  result API (``results.py``).
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback
import types
import unittest
from typing import Any, Callable, Sequence

from . import results as results_mod
from . import state as state_mod
from . import testrun
from .backend import Context
from .facts.opinfo import api_opinfos
from .protocol import Json, TorchModule

LIST_MODULE = "__torchparity_list__"


def _missing(exc: BaseException) -> dict[str, str]:
    """What an import lacked: {"kind", "name", "detail"}."""
    detail = "%s: %s" % (type(exc).__name__, exc)
    if isinstance(exc, ImportError):
        name = getattr(exc, "name", None) or ""
        # the module is there and a name in it is not (a test file of another torch release)
        if str(exc).startswith("cannot import name"):
            return {"kind": "name", "name": str(name), "detail": detail}
        return {"kind": "module", "name": str(name), "detail": detail}
    if isinstance(exc, OSError) and getattr(exc, "filename", None):
        return {"kind": "file", "name": str(exc.filename), "detail": detail}
    if isinstance(exc, SystemExit):
        detail = "the file exits while imported (code %r)" % (exc.code,)
        return {"kind": "exit", "name": "SystemExit", "detail": detail}
    return {"kind": "error", "name": type(exc).__name__, "detail": detail}


def _device_base(torch: TorchModule) -> type | None:
    mod = sys.modules.get("torch.testing._internal.common_device_type")
    return getattr(mod, "DeviceTypeTestBase", None) if mod is not None else None


def _privateuse1(torch: TorchModule) -> str:
    try:
        return str(torch._C._get_privateuse1_backend_name())
    except Exception:
        return "privateuse1"


def _sanitizer() -> Callable[[str], str] | None:
    mod = sys.modules.get("torch.testing._internal.common_utils")
    return getattr(mod, "remove_device_and_dtype_suffixes", None) if mod is not None else None


def _class_info(cls: type, ns: Json, base: type | None, pu1: str) -> Json:
    attr = next((k for k, v in ns.items() if v is cls), cls.__name__)
    module = "__main__" if cls.__module__ == LIST_MODULE else cls.__module__
    device_type = ""
    generic = cls.__name__
    if base is not None and isinstance(cls, type) and issubclass(cls, base):
        device_type = str(getattr(cls, "device_type", "") or "")
        if device_type == "privateuse1":
            device_type = pu1
        for b in cls.__bases__:  # type(TestFooCPU, (CPUTestBase, TestFoo), {})
            if b is not base and not issubclass(b, base) and cls.__name__.startswith(b.__name__):
                generic = b.__name__
                break
    return {
        "attr": attr,
        "name": cls.__name__,
        "qualname": cls.__qualname__,
        "module": module,
        "generic": generic,
        "device_type": device_type,
    }


def _opinfo(fn: Any) -> str:
    """The OpInfo an instantiated test was made for (its bound ``param_kwargs``), "" for others."""
    defaults = getattr(fn, "__defaults__", None) or ()
    for d in defaults:
        if isinstance(d, dict) and "op" in d:
            op = d["op"]
            name = getattr(op, "name", "")
            variant = getattr(op, "variant_test_name", "")
            return "%s.%s" % (name, variant) if variant else str(name)
    return ""


def list_tests(ctx: Context, path: str, api: str = "") -> Json:
    sys.argv = [path]
    sys.path[0] = os.path.dirname(os.path.abspath(path))
    try:
        ns = runpy.run_path(path, run_name=LIST_MODULE)
    except BaseException as exc:  # SystemExit too: the file cannot start
        traceback.print_exc()
        sys.stderr.flush()
        return {"missing": _missing(exc), "exit_code": 1}
    module = types.ModuleType(LIST_MODULE)
    module.__dict__.update(ns)
    # the load_tests protocol (torch's common_utils.load_tests, imported by many test files) checks that
    # each test is defined in the running script: there is none while listing, and the tests are the same
    module.__dict__.pop("load_tests", None)
    sys.modules[LIST_MODULE] = module  # inspect.getfile() of its classes works, as under __main__
    base = _device_base(ctx.torch)
    pu1 = _privateuse1(ctx.torch)
    sanitize = _sanitizer()
    classes: list[Json] = []
    index: dict[type, int] = {}
    tests: list[list[Any]] = []
    loader_errors: list[str] = []
    for test in testrun._iter_tests(unittest.defaultTestLoader.loadTestsFromModule(module)):
        cls = type(test)
        method = getattr(test, "_testMethodName", "")
        if cls.__module__ == "unittest.loader" or not method:
            loader_errors.append(str(test.id()))
            continue
        if cls not in index:
            index[cls] = len(classes)
            classes.append(_class_info(cls, ns, base, pu1))
        fn = getattr(cls, method, None)
        template = str(getattr(fn, "__name__", method) or method)
        try:
            sanitized = str(sanitize(method)) if sanitize is not None else method
        except Exception:
            sanitized = method
        tests.append([index[cls], method, template, sanitized, _opinfo(fn)])
    has_ops = any(t[4] for t in tests)
    sys.stdout.flush()
    sys.stderr.flush()
    return {
        "classes": classes,
        "tests": tests,
        "loader_errors": loader_errors,
        "privateuse1": pu1,
        "api_opinfos": api_opinfos(api, ctx.backend_module) if has_ops else [],
        "exit_code": 0,
    }


def op_upstream_list(ctx: Context, args: Json) -> Json:
    if args.get("cwd"):
        os.chdir(args["cwd"])
    os.environ.update(args.get("environ") or {})
    return list_tests(ctx, args["path"], args.get("api", ""))


def _run_pytest(nodeids: Sequence[str], specs: state_mod.Specs) -> Json:
    """``python -m pytest NODE_IDS -v`` in this process, watched like a file's own pytest.main."""
    import pytest

    recorder = testrun.LeakRecorder(specs)
    results = results_mod.RunnerResults()
    sys.argv = ["pytest"] + list(nodeids)
    try:
        code = int(
            pytest.main(
                list(nodeids) + ["-v", "-p", "no:cacheprovider"],
                plugins=[
                    testrun._pytest_plugin(pytest, recorder),
                    results_mod.PytestResults(results),
                ],
            )
        )
    except SystemExit as exc:
        code = testrun._exit_code(exc.code)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return recorder.answer(code, results)


def run_selected(args: Json, selectors: Sequence[str], specs: state_mod.Specs) -> Json:
    """Run chosen tests of ``args["path"]`` the way its entry runs them: ``python FILE SELECTORS -v``
    (unittest), ``python -m pytest NODE_IDS -v`` (pytest), or ``python -m unittest MODULE.SELECTOR -v``
    from the file's folder (module: its main block runs no tests); the backend's list variable unset."""
    for name in args.get("unset") or []:
        os.environ.pop(name, None)
    os.environ.update(args.get("environ") or {})
    utils: Any = sys.modules.get("torch.testing._internal.common_utils")
    if utils is not None and "DISABLED_TESTS_FILE" in (args.get("unset") or []):
        # loaded in the worker before this job: as a fresh interpreter without the variable has it
        utils.disabled_tests_dict = {}
    entry = args.get("entry")
    if entry == "pytest":
        return _run_pytest(selectors, specs)
    return testrun.run_as_main(args["path"], list(selectors) + ["-v"], specs, entry == "module")


def op_upstream_run(ctx: Context, args: Json) -> Json:
    if args.get("cwd"):
        os.chdir(args["cwd"])
    specs, _ = state_mod.usable(state_mod.registry(ctx.device_type))
    return run_selected(args, list(args.get("selectors") or []), specs)
