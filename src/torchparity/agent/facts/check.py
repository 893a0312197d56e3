"""Agent job: run candidate test files, as written and with their API replaced.

The controller renders each family's candidate test (device variable bound to
the device the test will run on) and asks here whether its tests pass, and
whether they fail once the API only returns a sentinel (``standin.install``).
Each run is a forked child with its own scratch folder and a deadline, so a
hanging or crashing candidate costs only itself. For a device other than the
CPU the forks are made from a new interpreter that has not started the device
(``fresh``): forked from this job, whose device is started, they could not use it.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import unittest
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ..protocol import Json
from ..testrun import _iter_tests, _load_module
from . import standin
from .schema import RunOutcome, TestOutcome

if TYPE_CHECKING:
    from ..backend import Context

RUN_TIMEOUT = 60.0


class _Outcomes(unittest.TestResult):
    def __init__(self) -> None:
        unittest.TestResult.__init__(self)
        self.outcomes: Dict[str, TestOutcome] = {}

    def _name(self, test: unittest.TestCase) -> str:
        return test.id().rsplit(".", 1)[-1]

    def addSuccess(self, test: unittest.TestCase) -> None:
        self.outcomes[self._name(test)] = {"status": "pass"}

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:
        self.outcomes[self._name(test)] = {"status": "fail", "message": _message(err)}

    def addError(self, test: unittest.TestCase, err: Any) -> None:
        self.outcomes[self._name(test)] = {"status": "error", "message": _message(err)}

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        self.outcomes[self._name(test)] = {"status": "skip", "message": str(reason)[:300]}

    def addExpectedFailure(self, test: unittest.TestCase, err: Any) -> None:
        self.outcomes[self._name(test)] = {"status": "fail", "message": "expected failure"}

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        self.outcomes[self._name(test)] = {"status": "pass"}


def _message(err: Any) -> str:
    exc = err[1]
    text = ("%s: %s" % (type(exc).__name__, exc)).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def _child(path: str, resolution: Optional[Json], result_path: str) -> None:
    """Body of the forked run: never returns."""
    code = 0
    try:
        os.chdir(os.path.dirname(path))
        out: RunOutcome = {"outcomes": {}, "standin": None, "error": ""}
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


def run_file(
    path: str, resolution: Optional[Json] = None, timeout: float = RUN_TIMEOUT
) -> RunOutcome:
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


def _preload(items: List[Json]) -> None:
    """torch's TestCase imports dynamo on its first test: once here, not in every run; and each
    file's TestCase module once, before the forks."""
    try:
        importlib.import_module("torch._dynamo")
    except Exception:
        pass
    for item in items:
        for module in re.findall(
            r"^from ([A-Za-z_][A-Za-z0-9_.]*) import .*\bTestCase\b", item["source"], re.M
        ):
            try:
                importlib.import_module(module)
            except Exception:
                pass


def _run_items(items: List[Json], folder: str) -> List[Json]:
    answers: List[Json] = []
    for n, item in enumerate(items):
        sub = os.path.join(folder, "%03d" % n)
        os.mkdir(sub)
        path = os.path.join(sub, item.get("file") or "test_candidate.py")
        with open(path, "w") as fh:
            fh.write(item["source"])
        answer = {"key": item.get("key", ""), "clean": run_file(path)}
        if item.get("standin") and item.get("resolution"):
            answer["broken"] = run_file(path, item["resolution"])
        answers.append(answer)
    return answers


def fresh_main(spec_path: str, result_path: str) -> None:
    """The body of ``_in_new_interpreter``: import torch and the backend (the device stays unused),
    then run every item in a child forked from here, which starts the device itself as a test does."""
    with open(spec_path) as fh:
        spec = json.load(fh)
    importlib.import_module("torch")  # first, as backend.py does: torch may autoload the backend
    if spec.get("backend"):
        importlib.import_module(spec["backend"])
    _preload(spec["items"])
    answers = _run_items(spec["items"], os.path.dirname(spec_path))
    with open(result_path, "w") as fh:
        json.dump(answers, fh, default=str)


def _in_new_interpreter(items: List[Json], folder: str, backend: str) -> List[Json]:
    """``_run_items`` in a new interpreter of this environment (``fresh_main``): this job's device is
    started, and a test forked from here could not use it (hardware raises, and so does the emulated
    NPU), so the outcomes would not be the device's."""
    spec, result = os.path.join(folder, "spec.json"), os.path.join(folder, "answers.json")
    with open(spec, "w") as fh:
        json.dump({"items": items, "backend": backend}, fh)
    package = __name__.rpartition(".")[0]
    root = os.path.dirname(os.path.abspath(__file__))
    for _ in package.split("."):
        root = os.path.dirname(root)
    boot = "import sys; sys.path.insert(0, %r); import %s.check as c; c.fresh_main(*sys.argv[1:])"
    timeout = 120.0 + 2 * RUN_TIMEOUT * len(items)
    sys.stdout.flush()
    sys.stderr.flush()
    with open(os.path.join(folder, "stderr.txt"), "w+") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", boot % (root, package), spec, result],
            cwd=folder,
            stderr=err,
            start_new_session=True,
        )
        try:
            proc.wait(timeout)
            why = "the new interpreter ended without a result (exit status %s)" % proc.returncode
        except subprocess.TimeoutExpired:
            why = "the new interpreter did not finish within %.0f s" % timeout
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
        err.seek(0)
        last = [line.strip() for line in err.read()[-4000:].splitlines() if line.strip()]
    if os.path.exists(result):
        with open(result) as fh:
            return json.load(fh)
    if last:
        why += ": " + last[-1][:300]
    failed: RunOutcome = {"outcomes": {}, "standin": None, "error": why}
    return [{"key": i.get("key", ""), "clean": failed} for i in items]


def op_scaffold_check(ctx: Context, args: Json) -> Json:
    """``args["items"]``: [{"key", "file", "source", "resolution", "standin"}] -> outcomes per item.

    With ``args["fresh"]`` they run in a new interpreter, importing ``args["backend"]`` first: the
    files then run on the device as a test run does (``_in_new_interpreter``)."""
    folder = tempfile.mkdtemp(prefix="torchparity-check-")
    items = list(args.get("items", []))
    try:
        if args.get("fresh"):
            answers = _in_new_interpreter(items, folder, args.get("backend") or "")
        else:
            _preload(items)
            answers = _run_items(items, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"items": answers, "exit_code": 0}
