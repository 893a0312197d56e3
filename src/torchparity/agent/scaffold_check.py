"""Agent job: run candidate test files on the CPU, as written and with their API replaced.

The controller renders each family's candidate test (device variable bound to
the CPU) and asks here whether its tests pass, and whether they fail once the
API only returns a sentinel (``standin.install``). Each run is a forked child
with its own scratch folder and a deadline, so a hanging or crashing candidate
costs only itself.
"""

import importlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
import unittest

from . import standin
from .testrun import _iter_tests, _load_module

RUN_TIMEOUT = 60.0


class _Outcomes(unittest.TestResult):
    def __init__(self):
        unittest.TestResult.__init__(self)
        self.outcomes = {}

    def _name(self, test):
        return test.id().rsplit(".", 1)[-1]

    def addSuccess(self, test):
        self.outcomes[self._name(test)] = {"status": "pass"}

    def addFailure(self, test, err):
        self.outcomes[self._name(test)] = {"status": "fail", "message": _message(err)}

    def addError(self, test, err):
        self.outcomes[self._name(test)] = {"status": "error", "message": _message(err)}

    def addSkip(self, test, reason):
        self.outcomes[self._name(test)] = {"status": "skip", "message": str(reason)[:300]}

    def addExpectedFailure(self, test, err):
        self.outcomes[self._name(test)] = {"status": "fail", "message": "expected failure"}

    def addUnexpectedSuccess(self, test):
        self.outcomes[self._name(test)] = {"status": "pass"}


def _message(err):
    exc = err[1]
    text = ("%s: %s" % (type(exc).__name__, exc)).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def _child(path, resolution, result_path):
    """Body of the forked run: never returns."""
    code = 0
    try:
        os.chdir(os.path.dirname(path))
        out = {"outcomes": {}, "standin": None, "error": ""}
        if resolution is not None:
            out["standin"] = standin.install(resolution)
        try:
            module = _load_module(path)
        except BaseException:
            traceback.print_exc()
            out["error"] = "the file does not import: %s" % _message(sys.exc_info())
        else:
            suite = unittest.TestSuite(
                list(_iter_tests(unittest.defaultTestLoader.loadTestsFromModule(module)))
            )
            result = _Outcomes()
            suite.run(result)
            out["outcomes"] = result.outcomes
        with open(result_path, "w") as fh:
            json.dump(out, fh, default=str)
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def run_file(path, resolution=None, timeout=RUN_TIMEOUT):
    """{"outcomes": {test: {"status", "message"}}, "standin", "error"} of one run of ``path``."""
    result_path = path + (".broken" if resolution is not None else ".clean") + ".json"
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(path, resolution, result_path)
    deadline = time.monotonic() + timeout
    status = None
    while time.monotonic() < deadline:
        got, status = os.waitpid(pid, os.WNOHANG)
        if got == pid:
            break
        time.sleep(0.01)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return {"outcomes": {}, "standin": None, "error": "timed out after %.0f s" % timeout}
    if not os.path.exists(result_path):
        return {
            "outcomes": {},
            "standin": None,
            "error": "the run ended without a result (status %s)" % status,
        }
    with open(result_path) as fh:
        return json.load(fh)


def op_scaffold_check(ctx, args):
    """``args["items"]``: [{"key", "file", "source", "resolution", "standin"}] -> outcomes per item."""
    folder = tempfile.mkdtemp(prefix="torchparity-check-")
    answers = []
    try:  # torch's TestCase imports dynamo on its first test: once here, not in every run
        importlib.import_module("torch._dynamo")
    except Exception:
        pass
    for item in args.get("items", []):  # the TestCase module is imported once, before the forks
        for module in re.findall(
            r"^from ([A-Za-z_][A-Za-z0-9_.]*) import .*\bTestCase\b", item["source"], re.M
        ):
            try:
                importlib.import_module(module)
            except Exception:
                pass
    try:
        for n, item in enumerate(args.get("items", [])):
            sub = os.path.join(folder, "%03d" % n)
            os.mkdir(sub)
            path = os.path.join(sub, item.get("file") or "test_candidate.py")
            with open(path, "w") as fh:
                fh.write(item["source"])
            answer = {"key": item.get("key", ""), "clean": run_file(path)}
            if item.get("standin") and item.get("resolution"):
                answer["broken"] = run_file(path, item["resolution"])
            answers.append(answer)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"items": answers, "exit_code": 0}
