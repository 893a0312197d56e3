"""Facts a scaffolded test needs from the environment under test, measured there: the op and dispatch.

The controller never imports torch, so everything a test template must know
about the installed torch is asked here. Each kind of fact has its module:

* ``facts_literal``: values a test holds literally, as Python source;
* ``facts_context``: how a context manager moves the global states it touches;
* ``facts_opinfo``: the OpInfo entry of an operator and the dtypes it can test;
* ``facts_calls``: what Tensor members and plain function calls give on the CPU (the calls
  measured again here on the device a test runs on: ``calls_on_device``);
* ``facts_runtime``: what storage classes and device-runtime APIs offer.

This module looks the API up, asks for the facts a request ``wants`` and
turns a measurement that fails into a reason, never a crash.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import traceback
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Set,
    Tuple,
    TypeVar,
    Union,
    cast,
)

from ..api.objects import NotFound, class_path, walk
from ..protocol import Json, TorchModule
from ..state import StateSpec
from .calls import _doc_types, _pools_for, _strip_sig, call_facts, tensor_facts
from .checker import checker_facts
from .context import api_specs, context_facts, state_facts
from .dispatch_keys import dispatch_tls, mode_stacks, restore_dispatch_tls, restore_mode_stacks
from .doctest import doctest_facts
from .domain import optim_facts
from .isolate import isolated_facts
from .jitgraph import jitgraph_facts
from .literal import NotLiteral, error_text, literal
from .modules import module_db_facts
from .opinfo import opinfo_facts
from .overloads import overload_facts
from .pairs import pair_facts
from .probe import needed_imports, probe_isolated
from .recipes.layout import CALL_MEMBERS
from .recorded import recorded_facts
from .runtime import pinned_memory_facts, runtime_facts, storage_facts
from .schema import CallDiffers, CallsFacts, Facts
from .schema_common import Measured
from .scratch_home import scratch_torch_home
from .switch import switch_facts
from .tensor_kinds import kind_facts

if TYPE_CHECKING:
    from ..backend import Context

#: names other code (and the tests) reach through this module
__all__ = [
    "call_facts",
    "context_facts",
    "facts_for",
    "literal",
    "op_scaffold_facts",
    "opinfo_facts",
    "runtime_facts",
    "state_facts",
    "storage_facts",
    "tensor_facts",
    "_NotLiteral",
    "_doc_types",
    "_pools_for",
    "_strip_sig",
]

_NotLiteral = NotLiteral

T = TypeVar("T")


def _mro(cls: Any) -> List[str]:
    """``module.qualname`` of each class in ``cls``'s MRO ([] for a non-class)."""
    if not isinstance(cls, type):
        return []
    try:
        return [class_path(k) for k in cls.__mro__]
    except Exception:
        return []


def _members(cls: Any) -> List[str]:
    """Public and dunder member names of a class (what a family's template may call)."""
    if not isinstance(cls, type):
        return []
    try:
        return sorted(
            n
            for n in dir(cls)
            if not n.startswith("_")
            or n
            in (
                "__getitem__",
                "__setitem__",
                "__delitem__",
                "__len__",
                "__iter__",
                "__contains__",
                "__call__",
                "__enter__",
                "__exit__",
                "__add__",
                "__iadd__",
            )
        )
    except Exception:
        return []


def _defined_on(owner: Any, path: str) -> str:
    """``module.qualname`` of the class in ``owner``'s MRO whose own dict holds the member ("" if none).

    A member reached through a class that inherits it (``ScriptModule.state_dict`` is
    ``Module.state_dict``) names the base class, whose family may cover it.
    """
    if not isinstance(owner, type):
        return ""
    leaf = path.rsplit(".", 1)[-1]
    try:
        for k in owner.__mro__:
            if leaf in vars(k):
                return class_path(k)
    except Exception:
        pass
    return ""


def _constructed(probe: Any) -> bool:
    """Whether the probe measured a plain construction of the class (``_API_(...)`` without setup)."""
    valid = (probe or {}).get("valid") if isinstance(probe, dict) else None
    return any(
        str(sc.get("call", "")).startswith("_API_(") and not sc.get("setup") for sc in valid or []
    )


def _guard(what: str, fn: Callable[..., T], *args: Any) -> Union[T, Measured]:
    """``fn(*args)``, or a record of why it failed (the traceback goes to the job's log)."""
    try:
        return fn(*args)
    except Exception as exc:
        traceback.print_exc()
        return {
            "problem": "measuring the %s facts failed: %s" % (what, error_text(exc)),
            "found": False,
        }


def _in_scratch_folder(fn: Callable[..., T], *args: Any) -> T:
    """Run ``fn`` in an empty temporary folder: a call given a string path writes nothing elsewhere."""
    here = os.getcwd()
    folder = tempfile.mkdtemp(prefix="torchparity-facts-")
    os.chdir(folder)
    try:
        return fn(*args)
    finally:
        os.chdir(here)
        shutil.rmtree(folder, ignore_errors=True)


def _not_found(out: Facts, path: str, exc: BaseException, wants: Sequence[str]) -> Facts:
    """The facts of an API that cannot be looked up here: each one asked for says why."""
    if isinstance(exc, NotFound):
        why = (
            "%s has no %r" % (exc.furthest, exc.missing)
            if exc.furthest
            else "no module %r" % exc.missing
        )
    else:
        why = error_text(exc)
    out["problem"] = "looking up %s failed: %s" % (path, why)
    for key in wants:
        failed: Measured = {"problem": out["problem"], "found": False}
        cast(Json, out)[key] = failed  # the key each fact asked for is answered under
    out["states"] = []
    return out


#: the modules loaded before any job ran (what ``import torch`` and the backend load)
BASELINE: Set[str] = set()


def _states_now(device_type: str) -> List[Tuple[StateSpec, Any]]:
    """The registry's settable global states and their values here (a context-only state is left out)."""
    from ..state import registry

    out: List[Tuple[StateSpec, Any]] = []
    for spec in registry(device_type).values():
        if spec._setter is None or spec.available():
            continue
        out.append((spec, spec.get()))
    return out


def _restore_states(saved: List[Tuple[StateSpec, Any]]) -> List[str]:
    """Put back each state an API's facts left changed (a docstring example's ``set_default_dtype``
    would otherwise hold for every API measured after it in the batch); the names of those restored."""
    changed: List[str] = []
    for spec, value in saved:
        try:
            if spec.get() != value:
                spec.push(value)
                changed.append(spec.name)
        except Exception:
            traceback.print_exc()
    return changed


#: seconds the checker, pair and switch facts may take in their forked child
ISOLATED_SECONDS = 30.0


class _Given(NamedTuple):
    """What a fact's gatherer is given: the API looked up here and the request's measures."""

    torch: TorchModule
    res: Json
    obj: Any
    owner: Any
    device_type: str
    dtypes: Optional[List[str]]
    formula: str


class _Fact(NamedTuple):
    """How one asked-for fact is gathered: the answer's key, its name in a failure's reason, the
    gatherer (run guarded) and, where some APIs have none, whether this one has it (run unguarded,
    given the answer so far)."""

    key: str
    what: str
    gather: Callable[[_Given], Any]
    when: Optional[Callable[[_Given, Facts], bool]] = None


def _calls(g: _Given) -> Union[CallsFacts, Measured]:
    """The call facts, measured on the CPU, then again on the device where that is another one."""
    calls: Union[CallsFacts, Measured] = _in_scratch_folder(
        call_facts, g.torch, g.obj, g.res, g.device_type
    )
    if g.device_type not in ("", "cpu") and not calls.get("problem"):
        calls = _guard(
            "call",
            _in_scratch_folder,
            calls_on_device,
            g.torch,
            g.obj,
            g.res,
            calls,
            g.device_type,
        )
    return calls


def _on_device(g: _Given, out: Facts) -> bool:
    """Whether the device under test is another one than the CPU."""
    return g.device_type not in ("", "cpu")


def _has_module_db(g: _Given, out: Facts) -> bool:
    """A module class (its sample's forward, where upstream has one) or a module class's own forward."""
    return isinstance(g.obj, type) or _forward_of(g.torch, g.res, g.owner)


#: each fact a request may want (in the order the answer holds them) and how it is gathered
FACTS: Dict[str, _Fact] = {
    "states": _Fact("states", "state", lambda g: state_facts(g.res, g.device_type)),
    "context": _Fact(
        "context",
        "context-manager",
        lambda g: context_facts(g.torch, g.res, g.obj, g.owner, g.device_type),
    ),
    "opinfo": _Fact(
        "opinfo", "OpInfo", lambda g: opinfo_facts(g.torch, g.obj, g.device_type, g.dtypes)
    ),
    "overload": _Fact(
        "overload",
        "overload",
        lambda g: overload_facts(g.torch, g.obj, g.res, g.device_type, g.dtypes),
    ),
    "recorded": _Fact("recorded", "recorded call", lambda g: recorded_facts(g.torch, g.obj, g.res)),
    "tensor": _Fact(
        "tensor",
        "Tensor",
        lambda g: tensor_facts(g.torch, g.res["path"].rsplit(".", 1)[-1], g.res["kind"], g.formula),
    ),
    # an operator OpInfo covers has its calls there
    "calls": _Fact(
        "calls", "call", _calls, lambda g, out: not (out.get("opinfo") or {}).get("found")
    ),
    "storage": _Fact("storage", "storage", lambda g: storage_facts(g.torch, g.obj)),
    "runtime": _Fact(
        "runtime", "runtime", lambda g: runtime_facts(g.torch, g.obj, g.res, g.device_type)
    ),
    "doctest": _Fact(
        "doctest",
        "docstring example",
        lambda g: _in_scratch_folder(doctest_facts, g.torch, g.obj, g.res, g.device_type),
    ),
    "data": _Fact(
        "pinned_memory",
        "pinned memory",
        lambda g: pinned_memory_facts(g.torch, g.device_type),
        _on_device,
    ),
    "optim": _Fact("optim", "optimizer", lambda g: optim_facts(g.torch, g.obj, g.owner)),
    "probe": _Fact(
        "probe",
        "probe",
        lambda g: probe_isolated(g.torch, g.res, g.obj, g.owner, g.device_type, BASELINE),
    ),
    "jitgraph": _Fact(
        "jitgraph", "TorchScript IR", lambda g: jitgraph_facts(g.torch, g.obj, g.res)
    ),
    "kinds": _Fact(
        "kinds",
        "tensor kind",
        lambda g: isolated_facts(
            "tensor kind", kind_facts, (g.torch, g.res, g.obj, g.owner), g.device_type
        ),
    ),
    "switch": _Fact(
        "switch",
        "switch",
        lambda g: isolated_facts(
            "switch",
            switch_facts,
            (g.torch, g.obj, g.res, g.device_type),
            g.device_type,
            ISOLATED_SECONDS,
        ),
    ),
    "checker": _Fact(
        "checker",
        "checker",
        lambda g: isolated_facts(
            "checker",
            checker_facts,
            (g.torch, g.obj, g.owner, g.device_type),
            g.device_type,
            ISOLATED_SECONDS,
        ),
    ),
    "pair": _Fact(
        "pair",
        "pair",
        lambda g: isolated_facts(
            "pair",
            pair_facts,
            (g.torch, g.obj, g.owner, g.res),
            g.device_type,
            ISOLATED_SECONDS,
        ),
    ),
    "module_db": _Fact(
        "module_db",
        "module_db",
        lambda g: module_db_facts(g.torch, g.obj if isinstance(g.obj, type) else g.owner),
        _has_module_db,
    ),
}


def facts_for(
    ctx: Context, res: Json, wants: List[str], dtypes: Optional[List[str]] = None, formula: str = ""
) -> Facts:
    """The facts ``wants`` names for one resolved API (a resolution record), the global states as they
    were before restored after."""
    saved = _states_now(ctx.device_type)
    tls = dispatch_tls(ctx.torch)
    modes = mode_stacks(ctx.torch)
    try:
        with scratch_torch_home():  # every family's guessed calls, not only the probe's
            return _facts_for(ctx, res, wants, dtypes, formula)
    finally:
        changed = (
            restore_mode_stacks(ctx.torch, modes)
            + _restore_states(saved)
            + restore_dispatch_tls(ctx.torch, tls)
        )
        if changed:
            sys.stderr.write(
                "torchparity: %s left %s changed; restored\n"
                % (res.get("path"), ", ".join(changed))
            )


def _facts_for(
    ctx: Context, res: Json, wants: List[str], dtypes: Optional[List[str]] = None, formula: str = ""
) -> Facts:
    torch = ctx.torch
    device_type = ctx.device_type
    out: Facts = {
        "device_type": device_type,
        "torch_version": str(torch.__version__),
        "python_version": "%d.%d" % sys.version_info[:2],
    }
    try:
        hit = walk(res["path"])
    except Exception as exc:  # this item carries the reason; the rest of a batch goes on
        traceback.print_exc()
        return _not_found(out, res["path"], exc, wants)
    obj = hit.obj
    owner = hit.parent if isinstance(hit.parent, type) else None
    names = (
        [res["path"], res["canonical"]]
        + list(res.get("aliases", []))
        + [res.get("owner_class") or ""]
    )
    names += [n.rsplit(".", 1)[0] for n in names if "." in n]
    out["imports"] = dict((n, needed_imports(n, BASELINE)) for n in dict.fromkeys(names) if n)
    out["classes"] = {"api": _mro(obj), "owner": _mro(owner)}
    out["callable"] = callable(obj)
    out["members"] = _members(obj if isinstance(obj, type) else owner)
    out["defined_on"] = _defined_on(owner, res["path"])
    given = _Given(torch, res, obj, owner, device_type, dtypes, formula)
    for want, row in FACTS.items():
        if want in wants and (row.when is None or row.when(given, out)):
            cast(Json, out)[row.key] = _guard(row.what, row.gather, given)
    if isinstance(out.get("states"), dict):  # a failed state lookup reads as no states
        out["states"] = []
    return out


def calls_on_device(
    torch: TorchModule, obj: Any, res: Json, calls: CallsFacts, device_type: str
) -> CallsFacts:
    """``calls`` measured again here with ``DEVICE`` bound to the device the test runs on.

    ``call_facts`` measures in a forked child with ``DEVICE`` bound to the CPU; this job's device is
    started, and a child forked after that cannot use it (hardware raises, and so does the emulated
    NPU), so a call that reads the device (``_get_device_index(None, True)``) raised there and
    returns 0 here. Each call keeps the device's outcome: its result, or the exception it raises;
    ``differs`` lists those whose outcome the CPU measured otherwise (for the test's notes).
    """
    from .calls import INVALID, _outcome
    from .getters import paired_getter

    getter = paired_getter(
        res["path"].rsplit(".", 1)[-1], sys.modules.get(getattr(obj, "__module__", ""))
    )
    saved: Optional[Tuple[Any]] = None
    if getter:
        try:
            saved = (eval(getter, {"torch": torch}),)
        except Exception:
            getter = ""
    specs = api_specs(res, device_type)
    ns = {"torch": torch, "DEVICE": torch.device("%s:0" % device_type)}
    valid: List[Json] = []
    invalid: List[Json] = []
    differs: List[CallDiffers] = []
    try:
        for case in list(calls.get("valid") or []) + list(calls.get("invalid") or []):
            got = _outcome(obj, case["args"], ns, torch, specs, device_type)
            got["varies"] = case.get("varies", "")
            seen = [_said(c) for c in (case, got)]
            if seen[0] != seen[1]:
                differs.append({"args": case["args"], "cpu": seen[0], "device": seen[1]})
            if "raises" in got:
                if got["raises"]:
                    invalid.append(got)
            elif INVALID not in case["args"] and got.get("literal") is not None:
                if got["literal"] != "None" or got["states"]:
                    valid.append(got)
    finally:
        if getter and saved is not None:
            try:
                obj(*saved)
            except Exception:
                pass
    # the outcomes kept are ValidCall and InvalidCall (a result a test can hold, an exception raised)
    return cast(
        CallsFacts,
        dict(calls, valid=valid, invalid=invalid, measured_on=device_type, differs=differs),
    )


def _said(outcome: Mapping[str, Any]) -> str:
    """A call's outcome in words: its result's source, or the exception it raises."""
    if "raises" in outcome:
        return "raises %s" % (outcome["raises"] or "from some start values only")
    return "returns %s" % outcome.get("literal")


def _forward_of(torch: TorchModule, res: Json, owner: Any) -> bool:
    """Whether the API is the ``forward`` (or ``__call__``) of an nn module class other than Module."""
    leaf = res["path"].rsplit(".", 1)[-1]
    module = torch.nn.Module
    return (
        leaf in CALL_MEMBERS
        and isinstance(owner, type)
        and issubclass(owner, module)
        and owner is not module
    )


def op_scaffold_facts(ctx: Context, args: Json) -> Json:
    """Agent job: facts for ``args["resolution"]`` (one API) or each of ``args["items"]``.

    An item is ``{"resolution", "wants", "dtypes", "formula"}``; a batch pays
    the op_db import once.
    """
    if not BASELINE:
        BASELINE.update(sys.modules)
    if "items" in args:
        items = [
            facts_for(
                ctx,
                i["resolution"],
                list(i.get("wants", [])),
                i.get("dtypes"),
                i.get("formula", ""),
            )
            for i in args["items"]
        ]
        out: Json = {"items": items, "exit_code": 0}
    else:
        out = cast(
            Json,
            facts_for(
                ctx,
                args["resolution"],
                list(args.get("wants", [])),
                args.get("dtypes"),
                args.get("formula", ""),
            ),
        )
        out["exit_code"] = 0
    sys.stdout.flush()
    return out
