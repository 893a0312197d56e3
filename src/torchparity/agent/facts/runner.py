"""Running a scenario and measuring what it gives: the source of setup, call and checks, run here.

A scenario is source a test repeats: setup statements (a receiver built from a recipe or its own
constructor, named arguments), the call of the API, and checks (``observe``) of the result, of the
receiver and of the arguments the call changed. Every scenario is run twice from scratch here with
the device bound to the CPU; only checks that agree both times are kept, so ids, random draws, times
and temporary paths never reach a test. A call that draws from torch's random generator (while it
runs, or while its result is listed or entered) is run ``DRAWN_RUNS`` times: a draw from a few
outcomes can agree twice by chance. A call whose only effect is returning None is not a scenario: it
would check nothing.
"""

from __future__ import annotations

import datetime
import importlib
import logging
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from . import probe_values as pv
from .asked import asked_calls, read_type_errors
from .isolate import ChildFailed, fork_safe, in_child
from .literal import error_text, exc_name
from .observe import MAX_CHECKS, is_iterator, observe
from .schema_probe import Scenario as ScenarioFacts

Check = List[str]
#: what a run hands its ``look``: the namespace, the value of the call, what the watched variables were before
Look = Callable[[Dict[str, Any], Any, Dict[str, Any]], List[Check]]

BUDGET = 20.0
CALL_TIMEOUT = 5.0
#: runs of a call that draws from torch's random generator: a value asserted must agree in all of
#: them (a draw from a few outcomes, a random mask of three columns, agrees in two runs one time in
#: three; the device's generator gives other draws than the CPU's)
DRAWN_RUNS = 5


class Timeout(Exception):
    pass


#: what a probe never takes for an API's error: an interrupt, an exit
STOPS = (KeyboardInterrupt, SystemExit, GeneratorExit)


class WritesHere(Exception):
    """The call wrote into the current folder: a test repeating it would litter the checkout."""


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout("the call did not return within %.0f s" % CALL_TIMEOUT)


#: warning categories a test can name without an import
WARNING_NAMES = (
    "UserWarning",
    "FutureWarning",
    "DeprecationWarning",
    "RuntimeWarning",
    "ResourceWarning",
)
MAX_EFFECTS = 2


class _Records(object):
    """Collects the log records of WARNING and above any logger handles during a call (torch's loggers
    do not propagate to the root, so the records are taken where a logger handles them)."""

    def __init__(self) -> None:
        self.records: List[logging.LogRecord] = []
        self._handle: Any = None

    def __enter__(self) -> _Records:
        self._handle = handle = logging.Logger.handle
        records = self.records

        def recording(logger: logging.Logger, record: logging.LogRecord) -> Any:
            if record.levelno >= logging.WARNING:
                records.append(record)
            return handle(logger, record)

        logging.Logger.handle = recording  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *exc: Any) -> None:
        logging.Logger.handle = self._handle  # type: ignore[method-assign]


def _effects_of(records: List[logging.LogRecord], caught: List[Any]) -> List[Check]:
    """``["logs", logger, "LEVEL:message"]`` and ``["warns", category, message]`` of one call."""
    out: List[Check] = []
    for r in records:
        try:
            out.append(["logs", r.name, "%s:%s" % (r.levelname, r.getMessage())])
        except Exception:
            pass
    for w in caught:
        cat = w.category.__name__ if w.category.__name__ in WARNING_NAMES else "Warning"
        out.append(["warns", cat, str(w.message)])
    return out


class Scenario(object):
    """One call of the API and what it needs: setup statements, the call, the checks measured."""

    def __init__(
        self, setup: Sequence[str], call: str, receiver: str = "", statement: bool = False
    ) -> None:
        self.setup = list(setup)
        self.call = call
        self.receiver = receiver
        self.statement = statement
        self.listify = False
        self.checks: List[Check] = []
        self.raises: Optional[str] = None
        self.varies = ""
        self.watch: List[str] = []  # variables whose change the call makes is checked
        self.teardown: List[str] = []
        self.error = ""
        # global getters the call may move (``torch.is_warn_always_enabled()``)
        self.getters: List[str] = []
        self.context = (
            False  # the call returns a context manager: checks marked "inside" hold in it
        )
        self.remove_handle = False
        #: the parameters whose value here is a guess by their name (``names.guess``), not a fact
        self.guessed: List[str] = []

    def source(self) -> str:
        return "\n".join(self.setup + [self.call])

    def to_json(self) -> ScenarioFacts:
        return {
            "setup": self.setup,
            "call": self.call,
            "receiver": self.receiver,
            "listify": self.listify,
            "checks": self.checks,
            "raises": self.raises,
            "varies": self.varies,
            "statement": self.statement,
            "teardown": self.teardown,
            "getters": self.getters,
            "remove_handle": self.remove_handle,
            "context": self.context,
            "guessed": self.guessed,
        }


class Runner(object):
    """Runs and measures scenarios of one API (``res``: its resolution, ``obj``: the object, ``owner``:
    the class it is a member of, or None), within a budget of time."""

    def __init__(
        self, torch: Any, res: Dict[str, Any], obj: Any, owner: Any, device_type: str
    ) -> None:
        self.torch = torch
        self.res = res
        self.obj = obj
        self.owner = owner
        self.device_type = device_type
        self.each_call = False
        #: values the first parameter is given first (a handle the setup made)
        self.lead_values: List[str] = []
        self.deadline = time.monotonic() + BUDGET
        self.tried = 0
        #: statements run before every scenario, and after it (a process group for torch.distributed)
        self.prelude: List[str] = []
        self.postlude: List[str] = []
        self.getters: List[str] = []
        #: the values each annotated class gave (``typed_values``)
        self._typed_seen: Dict[str, List[str]] = {}
        #: parameter -> category a call's TypeError asked for ("must be tuple of Tensors")
        self.type_errors: Dict[str, str] = {}
        #: the first messages of failed calls (what a retry with a different prelude looks for)
        self.errors_seen: List[str] = []
        #: a receiver's call raised NotImplementedError: a subclass may define what the member needs
        self.not_implemented = False
        #: submodules a call reached without importing them (``backend_config.utils``), imported since
        self.submodules: List[str] = []
        #: (method, arguments) that a failed call's message asks to be called first
        self.asked_calls: List[Tuple[str, str]] = []
        #: the modules ``import torch`` loaded (the imports a test needs are those beyond)
        self.baseline: Any = ()

    # -- running source ----------------------------------------------------------------------
    def _namespace(self, tmp: str) -> Dict[str, Any]:
        return {
            "torch": self.torch,
            "os": os,
            "datetime": datetime,
            "DEVICE": self.torch.device("cpu"),
            "_TMP_": tmp,
            "_API_": self.obj,
            "_OWNER_": self.owner,
        }

    def run(
        self, scenario: Scenario, look: Optional[Look] = None
    ) -> Tuple[Dict[str, Any], Any, Dict[str, Any]]:
        """(namespace, value, before) of one fresh run; raises what the code raises. ``look(ns, value, before)``
        runs before the teardown and the postlude (what an RPC reference holds is read while the agent
        is up); its result is ``ns["__looked__"]``."""
        tmp = tempfile.mkdtemp(prefix="torchparity-probe-")
        cwd = tempfile.mkdtemp(prefix="torchparity-cwd-")
        here = os.getcwd()
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, CALL_TIMEOUT)
        self.tried += 1
        ns = self._namespace(tmp)
        try:
            os.chdir(cwd)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for line in self.prelude + scenario.setup:
                    load_modules(line)
                    exec(compile(line, "<setup>", "exec"), ns)
                # (the watched variables' checks, and the scratch folder's file names)
                before: Dict[str, Any] = dict(
                    (v, observe(self.torch, ns[v], v, wide=True)) for v in scenario.watch if v in ns
                )
                before["_TMP_"] = sorted(os.listdir(tmp))
                for getter in list(scenario.getters):
                    try:
                        got = eval(getter, ns)
                    except (
                        Exception
                    ):  # a getter guessed by name that needs arguments or raises: none
                        scenario.getters.remove(getter)
                        continue
                    before[getter] = observe(self.torch, got, getter)
                rng = self.torch.random.get_rng_state()
                with _Records() as logged, warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    value: Any = None
                    if scenario.statement:
                        exec(compile(scenario.call, "<call>", "exec"), ns)
                    else:
                        value = eval(compile(scenario.call, "<call>", "eval"), ns)
                ns["__effects__"] = _effects_of(logged.records, caught)
                if not scenario.statement:
                    if is_iterator(value):
                        value = list(value)
                        scenario.listify = True
                    if scenario.getters and _is_context_manager(value):
                        with value as entered:
                            for getter in scenario.getters:
                                ns["__inside__" + getter] = eval(getter, ns)
                        scenario.context = True
                        value = entered
                    if (
                        callable(getattr(value, "remove", None))
                        and type(value).__name__ == "RemovableHandle"
                    ):
                        value.remove()
                        scenario.remove_handle = True
                # a draw made while the result is listed or entered (a sampler's iterator) counts too
                ns["__drew__"] = not self.torch.equal(rng, self.torch.random.get_rng_state())
                files = sorted(os.listdir(tmp))
                ns["__files__"] = files
                if os.listdir(cwd):
                    raise WritesHere(
                        "the call wrote %s into the current folder" % ", ".join(os.listdir(cwd))
                    )
                for getter in scenario.getters:
                    ns["__getter__" + getter] = eval(getter, ns)
                if look is not None:
                    ns["__looked__"] = look(ns, value, before)
            return ns, value, before
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
            for line in scenario.teardown + self.postlude:
                try:
                    exec(compile(line, "<teardown>", "exec"), ns)
                except Exception:
                    pass
            os.chdir(here)
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.rmtree(cwd, ignore_errors=True)

    def measure(self, scenario: Scenario) -> bool:
        """Fill ``scenario.checks`` from two runs (``DRAWN_RUNS`` for a call that draws); False when
        the call raised or checks nothing."""
        if not self.each_call:
            return self._measure(scenario)

        def job() -> Tuple[Any, ...]:
            ok = self._measure(scenario)
            return (
                ok,
                scenario.to_json(),
                scenario.raises,
                scenario.error,
                self.type_errors,
                self.tried,
                self.submodules,
            )

        try:
            ok, doc, raises, error, hints, tried, submodules = in_child(
                job, timeout=DRAWN_RUNS * CALL_TIMEOUT + 10.0
            )
        except ChildFailed as exc:
            self.tried += 1
            scenario.raises, scenario.error = "ChildFailed", str(exc)
            return False
        self.tried = tried
        self.type_errors.update(hints)
        self.submodules += [name for name in submodules if name not in self.submodules]
        for key in ("checks", "listify", "context", "remove_handle"):
            setattr(scenario, key, doc[key])
        scenario.raises, scenario.error = raises, error
        if error:
            self._note_asked_call(str(error))
        if error and len(self.errors_seen) < 64:
            self.errors_seen.append(str(error)[:300])
        return ok

    def _note_asked_call(self, message: str) -> None:
        """A call the error asks for first (``Please call `consolidate_state_dict(to=0)` ... beforehand``)."""
        asked_calls(message, self.asked_calls)

    def _measure(self, scenario: Scenario) -> bool:
        got: List[List[Check]] = []
        effects = []
        drew = False
        while len(got) < (DRAWN_RUNS if drew else 2):
            try:
                ns, value, before = self.run(scenario, self._look(scenario))
            except STOPS:
                raise
            except (
                BaseException
            ) as exc:  # a library's own BaseException too (``CheckpointException``)
                missing = missing_submodule(str(exc))
                if missing:  # torch code reaching a submodule nothing imported: imported, and the test imports it
                    self.submodules.append(missing)
                    return self._measure(scenario)
                scenario.raises = exc_name(exc)
                scenario.error = error_text(exc)
                self.not_implemented = self.not_implemented or isinstance(exc, NotImplementedError)
                self._type_hint(str(exc))
                self._note_asked_call(str(exc))
                if len(self.errors_seen) < 64:
                    self.errors_seen.append(str(exc)[:300])
                return False
            got.append(ns["__looked__"])
            effects.append(ns.get("__effects__") or [])
            drew = drew or bool(ns.get("__drew__"))
        stable = [c for c in got[0] if all(c in other for other in got[1:])]
        stable += drawn_tensors(self.torch, got[0], *got[1:])
        if "DEVICE" in scenario.source():
            stable = _device_checks(stable)
        stable = stable[:MAX_CHECKS]
        real = [c for c in stable if not (c[0] == "is" and c[1] == "result" and c[2] == "None")]
        if (
            not real and not scenario.context
        ):  # a call whose only effect is a log record or a warning
            real = [e for e in effects[0] if all(e in other for other in effects[1:])][:MAX_EFFECTS]
            stable += real
        scenario.checks = stable
        return bool(real)

    def _look(self, scenario: Scenario) -> Look:
        """What one run of ``scenario`` shows, as checks: the result, the watched variables and getters
        that changed, the files written; read inside the run (``run``'s ``look``)."""

        def look(ns: Dict[str, Any], value: Any, before: Dict[str, Any]) -> List[Check]:
            named = dict(
                (id(ns[v]), v)
                for v in scenario.watch + ([scenario.receiver] if scenario.receiver else [])
                if v in ns
            )
            checks = [] if scenario.statement else observe(self.torch, value, "result", named)
            if _plain_callable(value, self.torch) and not [c for c in checks if c[0] != "type"]:
                checks += self._called(value, ns)
            for var in scenario.watch:
                if var in ns:
                    after = observe(self.torch, ns[var], var, wide=True)
                    checks += [c for c in after if c not in before.get(var, [])]
            for getter in scenario.getters:  # the state a setter set, whatever it was before
                if scenario.context:  # inside the ``with``; after it, the state is back
                    checks += [
                        ["inside"] + c
                        for c in observe(self.torch, ns["__inside__" + getter], getter)
                    ]
                    checks += [c for c in observe(self.torch, ns["__getter__" + getter], getter)]
                else:
                    checks += observe(self.torch, ns["__getter__" + getter], getter)
            if ns.get("__files__") != before["_TMP_"]:
                checks.append(["eq", "sorted(os.listdir(_TMP_))", repr(ns["__files__"])])
            return checks + self._read_back(ns, value, scenario)

        return look

    def _read_back(self, ns: Dict[str, Any], value: Any, scenario: Scenario) -> List[Check]:
        """``seed()`` returns a number drawn afresh each time, and ``initial_seed()`` reads it back after:
        a check that the getter named for the API (``initial_<leaf>``, ``get_<leaf>``) gives the result."""
        if scenario.statement or not isinstance(value, int) or isinstance(value, bool):
            return []
        parent, _, leaf = str(self.res.get("path", "")).rpartition(".")
        # the receiver's getter; else the API's own module's (``torch.cuda.initial_seed``), then torch's
        homes = (
            [scenario.receiver]
            if scenario.receiver
            else [h for h in (parent, "torch") if h.startswith("torch")]
        )
        for home in pv.unique(homes):
            for name in ("initial_%s" % leaf, "get_%s" % leaf):
                src = "%s.%s()" % (home, name)
                try:
                    if home.split(".")[0] in ns and eval(src, ns) == value:
                        return [["eq", src, "result"]]
                except Exception:
                    continue
        return []

    def _called(self, fn: Any, ns: Dict[str, Any]) -> List[Check]:
        """Checks of what a returned function gives for a tensor (a wrapper, a decorator's result)."""
        for src in list(pv.POOLS["tensor"][:3]) + [
            '"aten::add"',
            "2",
        ]:  # the third: a 0-d tensor (func.grad)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = fn(eval(src, ns))
            except Exception:
                continue
            checks = observe(self.torch, got, "result(%s)" % src)
            if checks:
                return checks
        return []

    def _type_hint(self, message: str) -> None:
        """What the failed call's message asks of the parameters, for the next round (``asked.py``)."""
        read_type_errors(message, self.type_errors)

    def raises_same(self, scenario: Scenario) -> Optional[str]:
        """The exception type two runs of an invalid call raise alike, or None; in a child of its own
        where forking is safe: an argument of no expected type may abort the interpreter."""
        if not fork_safe(self.device_type):
            return self._raises_same(scenario)
        try:
            return in_child(self._raises_same, (scenario,), timeout=2 * CALL_TIMEOUT + 10.0)
        except ChildFailed:
            self.tried += 2
            return None

    def _raises_same(self, scenario: Scenario) -> Optional[str]:
        names = set()
        for _ in range(2):
            try:
                self.run(scenario)
            except STOPS:
                raise
            except BaseException as exc:
                if not isinstance(
                    exc, Exception
                ):  # named ``BaseException`` in a test: any error would do
                    return None
                names.add(exc_name(exc))
                continue
            return None
        return names.pop() if len(names) == 1 else None

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline


def drawn_tensors(torch: Any, first: List[Check], *others: List[Check]) -> List[Check]:
    """Shape and dtype checks of the tensors whose values differ between runs (a distribution's
    ``sample``): what is drawn is not asserted, its shape and dtype are, where every run has the
    tensor with the same shape and dtype."""
    seen = [dict((c[1], c[2]) for c in other if c[0] == "tensor") for other in others]
    out = []
    for check in first:
        if len(check) != 3 or check[0] != "tensor":
            continue  # ``inside`` checks (a context's) are four long
        kind, expr, src = check
        if all(run.get(expr, src) == src for run in seen):
            continue  # the same values in every run (or one run lacks it): not a draw
        try:
            a = eval(src, {"torch": torch})
            drawn = [eval(run[expr], {"torch": torch}) for run in seen]
        except Exception:  # a run without it: not held
            continue
        if all(b.shape == a.shape and b.dtype == a.dtype for b in drawn):
            out += [
                ["eq", "%s.shape" % expr, "torch.Size(%r)" % (list(a.shape),)],
                ["eq", "%s.dtype" % expr, str(a.dtype)],
            ]
    return out


def _plain_callable(value: Any, torch: Any) -> bool:
    import types as _types

    return callable(value) and not isinstance(
        value, (type, _types.ModuleType, torch.Tensor, torch.nn.Module)
    )


def _is_context_manager(value: Any) -> bool:
    return (
        hasattr(type(value), "__enter__")
        and hasattr(type(value), "__exit__")
        and not isinstance(value, (type, str, bytes))
    )


def _device_checks(checks: List[Check]) -> List[Check]:
    """Checks of a scenario that used ``DEVICE`` (bound to the CPU here): a measured CPU device is that
    device (``DEVICE``); a check whose text names the CPU otherwise is dropped, as it may not hold there."""
    out = []
    for check in checks:
        payload = check[-1]
        if payload == 'torch.device("cpu")':
            payload = "DEVICE"
        elif "cpu" in payload:
            continue
        out.append(list(check[:-1]) + [payload])
    return out


_NOT_MODULES: Set[str] = set()


def load_modules(text: str) -> None:
    """Imports the torch submodules ``text`` spells out (``torch.distributed.elastic.rendezvous.
    c10d_rendezvous_backend.C10dRendezvousBackend``) that nothing imported yet: the test imports them too."""
    for chain in re.findall(r"\b(torch(?:\.[A-Za-z_][A-Za-z0-9_]*)+)", text):
        parts = chain.split(".")
        for i in range(2, len(parts) + 1):
            name = ".".join(parts[:i])
            if name in sys.modules:
                continue
            if name in _NOT_MODULES or not parts[i - 1][:1].islower():
                break
            try:
                importlib.import_module(name)
            except Exception:
                _NOT_MODULES.add(name)
                break


def missing_submodule(message: str) -> str:
    """``torch.X.Y`` where ``message`` says module ``torch.X`` has no attribute ``Y`` and ``torch.X.Y`` is a
    submodule not imported until now (it is, on return); else ""."""
    m = re.search(r"module '(torch(?:\.\w+)*)' has no attribute '(\w+)'", message)
    if not m:
        return ""
    name = "%s.%s" % m.groups()
    if name in sys.modules or name in _NOT_MODULES:
        return ""
    try:
        importlib.import_module(name)
    except Exception:
        _NOT_MODULES.add(name)
        return ""
    return name
