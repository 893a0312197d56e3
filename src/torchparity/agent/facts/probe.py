"""Measured scenarios for any API: a receiver, a call that works here, and what it gives.

A scenario is source a test repeats: setup statements (a receiver built from
``probe_values.RECIPES`` or its own constructor, named arguments), the call of
the API, and checks (``observe``) of the result, of the receiver and of the
arguments the call changed. Every scenario is run twice from scratch here with
the device bound to the CPU; only checks that agree both times are kept, so
ids, random draws, times and temporary paths never reach a test. A call whose
only effect is returning None is not a scenario: it would check nothing.
"""

import collections
import datetime
import enum
import importlib
import inspect
import itertools
import logging
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import types
import warnings

from ..api.objects import _named_path, subclasses, try_walk
from . import probe_values as pv
from .isolate import ChildFailed, fork_safe, in_child
from .literal import error_text, exc_name
from .observe import MAX_CHECKS, is_iterator, observe
from .scratch_home import scratch_torch_home

BUDGET = 20.0
CALL_TIMEOUT = 5.0
MAX_BASE_TRIES = 40
MAX_VALID = 4
MAX_INVALID = 2
MAX_METHODS = 3
CONTAINERS = (dict, list, set, collections.deque)


#: instances no constructor of their class makes here: built by the API that makes them (class -> statements
#: whose last binds one). A test reaches such a receiver or argument the way a user does.
MADE_ELSEWHERE = {  # type: dict
    "torch._ops.OpOverload": ("op = torch.ops.aten.add.Tensor",),
    "torch._ops.OpOverloadPacket": ("packet = torch.ops.aten.add",),
    "torch._dynamo.eval_frame.OptimizedModule": (
        'compiled = torch.compile(torch.nn.Linear(3, 2).to(DEVICE), backend="eager")',
    ),
    "torch.export.exported_program.ExportedProgram": (
        "exported = torch.export.export(torch.nn.ReLU(), (torch.tensor([1.0, -2.0, 3.0], device=DEVICE),))",
    ),
}
_SGD = (
    "param = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0], device=DEVICE))",
    "optimizer = torch.optim.SGD([param], lr=0.1)",
)
_TWO_SCHEDULERS = (
    "[torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5), "
    "torch.optim.lr_scheduler.ConstantLR(optimizer, factor=0.5, total_iters=2)]"
)
#: schedulers made of other schedulers of one optimizer
MADE_ELSEWHERE["torch.optim.lr_scheduler.SequentialLR"] = _SGD + (
    "scheduler = _OWNER_(optimizer, %s, milestones=[2])" % _TWO_SCHEDULERS,
)
MADE_ELSEWHERE["torch.optim.lr_scheduler.ChainedScheduler"] = _SGD + (
    "scheduler = _OWNER_(%s, optimizer=optimizer)" % _TWO_SCHEDULERS,
)
#: a loader's file, written by its saver first: API -> (setup, the value its first parameter is given first)
SAVED_FIRST = {
    "torch.export.load": (
        MADE_ELSEWHERE["torch.export.exported_program.ExportedProgram"]
        + ('path = os.path.join(_TMP_, "exported.pt2")', "torch.export.save(exported, path)"),
        "path",
    ),
}
#: further receivers of a class, tried after its recipes: a double tensor for the in-place members whose
#: result is double (``float_power_``), a sparse tensor for the sparse members of Tensor
MORE_MADE = {
    "torch.Tensor": (
        ("x = torch.arange(1.0, 7.0, dtype=torch.float64, device=DEVICE).reshape(2, 3)",),
        ("x = torch.tensor([[1.0, 0.0], [0.0, 2.0]], device=DEVICE).to_sparse_csr()",),
        ("x = torch.tensor([[1.0, 0.0], [0.0, 2.0]], device=DEVICE).to_sparse()",),
    ),
}

#: a distribution's own values for its ``value`` parameter (``log_prob``, ``cdf``), in its batch and event shape: its
#: mean lies in the support of most continuous ones, an enumerated support in that of the discrete ones
DISTRIBUTION_VALUES = (
    "{0}.mean",
    "{0}.enumerate_support()",
    "torch.ones({0}.batch_shape + {0}.event_shape, device=DEVICE)",
)  # 1 lies in most supports


def _is_distribution(torch, owner):
    base = getattr(getattr(torch, "distributions", None), "Distribution", None)
    return isinstance(owner, type) and base is not None and issubclass(owner, base)


def recipes_for(name):
    """Setups (statement tuples) binding an instance of the class ``name``: the shared recipes, then
    those made elsewhere."""
    out = [pv.RECIPES.get(name)] + list(pv.MORE_RECIPES.get(name, ()))
    out += [MADE_ELSEWHERE.get(name)] + list(MORE_MADE.get(name, ()))
    return [r for r in out if r is not None]


class _Timeout(Exception):
    pass


#: what a probe never takes for an API's error: an interrupt, an exit
_STOPS = (KeyboardInterrupt, SystemExit, GeneratorExit)


class WritesHere(Exception):
    """The call wrote into the current folder: a test repeating it would litter the checkout."""


def _alarm(signum, frame):
    raise _Timeout("the call did not return within %.0f s" % CALL_TIMEOUT)


def _schema_params(obj):
    """An ATen operator overload's parameters, from its schema (``torch.ops.aten.sub.Tensor``)."""
    schema = getattr(obj, "_schema", None)
    arguments = getattr(schema, "arguments", None)
    if arguments is None:
        return None
    out = []
    for a in arguments:
        text = str(a.type)
        ann = (
            "List[Tensor]"
            if text.startswith("Tensor[]") or text.startswith("List[Tensor")
            else "Tensor"
            if text.startswith("Tensor")
            else "Size"
            if text.startswith("int[")
            else "float"
            if text.startswith(("Scalar", "float", "number"))
            else _torch_type(text.rstrip("?"))
        )
        out.append(
            {
                "name": a.name,
                "kind": "keyword" if a.kwarg_only else "positional",
                "has_default": a.default_value is not None or text.endswith("?"),
                "default_bool": isinstance(a.default_value, bool),
                "annotation": ann,
            }
        )
    return out


_CHOICES = re.compile(
    r"[`'\"]?\b([A-Za-z_]\w*)[`'\"]?\s+(?:to be|must be|should be|needs to be|can only be)\s+"
    r"(?:either\s+)?(?:one of|in)\b[\s:]*(.*)",
    re.S,
)
_CHOICE_ITEM = re.compile(r"'([^'\n]{0,40})'|\"([^\"\n]{0,40})\"|\b(None|True|False)\b")


#: what a message says the argument should have been -> the category tried for the first parameter
_WANTED_KINDS = (
    (r"expected an? code object|must be a code object", "code"),
    (r"a bytes-like object is required|expected a bytes-like object", "bytes"),
    (r"issubclass\(\) arg 1 must be a class|must be a (?:subclass|class)\b", "class"),
    (r"does not require grad|doesn't require grad|does not have a grad_fn", "grad_tensor"),
    (r"isFunctionalTensor\(", "functional_tensor"),
    (r"(?:batch(?:es)? of )?square matri|must have at least 2 dimensions", "square_matrix"),
    (r"could not find destination (?:name|id)", "worker"),  # an RPC's ``to``
    # the function given to ``hvp``, ``vhp``, ``hessian``: one of a tensor to a scalar
    (
        r"(?:returned by|given to) .*should (?:contain|return) (?:a Tensor with )?a single element",
        "scalar_fn",
    ),
)


def choices_named(message):
    """(parameter, [value source]) an error lists the allowed values of ("expected rounding_mode to be one
    of None, 'trunc', or 'floor' but found 'x'"), or ("", [])."""
    m = _CHOICES.search(message or "")
    if not m:
        return "", []
    rest = re.split(r"\b(?:but|got|found|instead|received)\b", m.group(2), maxsplit=1, flags=re.I)[
        0
    ][:300]
    out = []
    for q1, q2, word in _CHOICE_ITEM.findall(rest):
        src = word or repr(q1 if q1 or not q2 else q2)
        if src not in out:
            out.append(src)
    return (m.group(1), out[:6]) if len(out) >= 1 else ("", [])


def _packet_params(obj, limit=4):
    """Parameter lists of an operator packet's overloads (``torch.ops.aten._add_relu``), ``default``
    first; [] for anything else."""
    if (
        getattr(obj, "_schema", None) is not None
        or not callable(getattr(obj, "overloads", None))
        or not type(obj).__name__.endswith("OpOverloadPacket")
    ):
        return []
    try:
        names = list(obj.overloads())
    except Exception:
        return []
    names.sort(key=lambda n: (n != "default", n.startswith("out") or n.endswith("_out"), n))
    out = []
    for name in names[:limit]:
        try:
            params = _schema_params(getattr(obj, name))
        except Exception:
            continue
        if params is not None and params not in out:
            out.append(params)
    return out


def _resolved_names(text, obj):
    """`` module.Class`` for capitalised names a string annotation uses, looked up where ``obj`` lives."""
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    if module is None or not isinstance(text, str):
        return ""
    out = []
    for name in re.findall(r"\b([A-Z][A-Za-z0-9_]*)\b", text):
        cls = getattr(module, name, None)
        if isinstance(cls, type) and cls.__module__ not in ("builtins", "typing"):
            out.append(" %s.%s" % (cls.__module__, cls.__qualname__))
    return "".join(out)


def _param_list(obj, signature_text):
    """[{name, kind, has_default, default_bool, annotation}] from the object or its signature text."""
    params = _schema_params(obj)
    if params is not None:
        return params
    try:
        sig = inspect.signature(obj)
        params = []
        for p in sig.parameters.values():
            ann = p.annotation
            ann_text = "" if ann is p.empty else (ann if isinstance(ann, str) else str(ann))
            kind = {
                p.VAR_POSITIONAL: "var",
                p.VAR_KEYWORD: "var",
                p.KEYWORD_ONLY: "keyword",
                p.POSITIONAL_ONLY: "posonly",
            }.get(p.kind, "positional")
            params.append(
                {
                    "name": p.name,
                    "kind": kind,
                    "has_default": p.default is not p.empty,
                    "default_bool": isinstance(p.default, bool),
                    "annotation": ann_text + _annotation_classes(ann) + _resolved_names(ann, obj),
                }
            )
            if p.kind == p.VAR_POSITIONAL:
                params[-1]["star"] = 1
    except (TypeError, ValueError):
        pass
    if params is None and signature_text:
        params = _params_from_text(signature_text)
    return params


def _inspectable(obj):
    """Whether ``obj``'s parameters come from itself (a Python signature or an operator schema), not text."""
    if _schema_params(obj) is not None:
        return True
    try:
        inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return True


def _open_signature(obj):
    """Whether ``obj``'s own signature may not list every parameter: none inspectable, or one taking
    ``*args``/``**kwargs`` (``TypedStorage.from_buffer(cls, *args, **kwargs)``)."""
    if _schema_params(obj) is not None:
        return False
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def _annotation_classes(ann):
    """`` module.Class`` for each class an annotation names (``Optional[X]`` included), for the pools."""
    out = []
    for arg in [ann] + list(getattr(ann, "__args__", ()) or ()):
        if isinstance(arg, type) and arg.__module__ not in ("builtins", "typing"):
            out.append(" %s.%s" % (arg.__module__, arg.__qualname__))
    return "".join(out)


def _split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def _params_from_text(text):
    inner = text.strip()
    if "->" in inner:
        inner = inner[: inner.rindex("->")].strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    out, keyword = [], False
    for part in _split_top(inner):
        part = part.strip()
        if part == "/":
            for prev in out:
                prev["kind"] = "posonly"
            continue
        if part == "*":
            keyword = True
            continue
        if part.startswith("*"):
            out.append(
                {
                    "name": part.lstrip("*").split(":")[0],
                    "kind": "var",
                    "has_default": True,
                    "default_bool": False,
                    "annotation": "",
                }
            )
            continue
        head, _, default = part.partition("=")
        name, _, ann = head.partition(":")
        default = default.strip()
        out.append(
            {
                "name": name.strip(),
                "kind": "keyword" if keyword else "positional",
                "has_default": bool(default),
                "default_bool": default in ("True", "False"),
                "annotation": ann.strip(),
            }
        )
    return out


_TORCH_TYPES = (
    (r"^(Tensor\?|Tensor)$", "Tensor"),
    (r"tuple of Tensors|TensorList|Tensor\[\]", "List[Tensor]"),
    (r"^(int|SymInt)\??$", "int"),
    (r"tuple of (ints|SymInts)|IntArrayRef|SymIntArrayRef", "Size"),
    (r"^(float|Number|Scalar|double)\??$", "float"),
    (r"^bool\??$", "bool"),
    (r"^(ScalarType|dtype)\??$", "dtype"),
    (r"^(Device|device)\??$", "device"),
    (r"^(str|c10::string_view)\??$", "str"),
)


def _torch_type(text):
    for pattern, name in _TORCH_TYPES:
        if re.search(pattern, text.strip()):
            return name
    return text


def _params_from_error(message):
    """Parameter lists (one per overload) an error message lists; [] when it lists none."""
    out = []
    for m in re.finditer(r"^\s*\* \((.*)\)\s*$", message, re.M):  # torch's argument parser
        params, keyword = [], False
        for part in _split_top(m.group(1)):
            part = part.strip()
            if part == "*":
                keyword = True
                continue
            head, _, default = part.partition("=")
            words = head.split()
            if len(words) < 2:
                continue
            params.append(
                {
                    "name": words[-1],
                    "kind": "keyword" if keyword else "positional",
                    "has_default": bool(default.strip()),
                    "default_bool": default.strip() in ("True", "False"),
                    "annotation": _torch_type(" ".join(words[:-1])),
                }
            )
        out.append(params)
    for m in re.finditer(r"^\s*\d+\. [^(]*(\(.*\))(?: -> .*)?$", message, re.M):  # pybind11
        params = [p for p in _params_from_text(m.group(1)) if p["name"] != "self"]
        out.append(params)
    m = re.search(r"missing \d+ required positional arguments?: (.*)$", message, re.M)
    if m and not out:
        names = re.findall(r"[\"']([A-Za-z_][A-Za-z0-9_]*)[\"']", m.group(1))
        out.append(
            [
                {
                    "name": n,
                    "kind": "positional",
                    "has_default": False,
                    "default_bool": False,
                    "annotation": "",
                    "missing": True,
                }
                for n in names
            ]
        )  # the receiver is bound already
    m = re.search(r"missing required argument '([A-Za-z_][A-Za-z0-9_]*)'", message)
    if m and not out:
        out.append(
            [
                {
                    "name": m.group(1),
                    "kind": "positional",
                    "has_default": False,
                    "default_bool": False,
                    "annotation": "",
                }
            ]
        )
    m = re.search(r"takes exactly one argument \(0 given\)", message)
    if m and not out:
        out.append(
            [
                {
                    "name": "arg",
                    "kind": "positional",
                    "has_default": False,
                    "default_bool": False,
                    "annotation": "",
                }
            ]
        )
    m = re.search(
        r"(?:[Rr]equires|[Ee]xpect(?:s|ed)|takes) (?:exactly )?(one|two|three|four|[1-4]) (?:positional )?"
        r"arguments?,? (?:but )?(?:got 0|\(?0 given|0 were given)",
        message,
    )
    if m and not out:
        n = {"one": 1, "two": 2, "three": 3, "four": 4}.get(m.group(1)) or int(m.group(1))
        out.append(
            [
                {
                    "name": "arg%d" % i,
                    "kind": "positional",
                    "has_default": False,
                    "default_bool": False,
                    "annotation": "",
                }
                for i in range(n)
            ]
        )
    return out[:3]


def _doc_types(doc):
    out = {}
    if not isinstance(doc, str):
        return out
    for m in re.finditer(r"^\s*\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)\)\s*:", doc, re.M):
        out.setdefault(m.group(1), m.group(2))
    return out


def _vararg(param):
    """``*primals`` as an optional parameter given one value where a call asks for it (``func.vjp(f, x)``)."""
    return {
        "name": param["name"],
        "kind": "vararg",
        "has_default": True,
        "default_bool": False,
        "annotation": param.get("annotation", ""),
    }


def _args_src(params, values):
    pos, kw, omitted = [], [], False
    for i, p in enumerate(params):
        v = values[i]
        if v is None:
            omitted = True
            continue
        if (
            p["kind"] == "vararg"
        ):  # one value, in place; where an earlier one was left out it cannot be
            if not omitted and not kw:
                pos.append(v)
            continue
        if p["kind"] == "keyword" or (
            p["kind"] == "positional" and (omitted or kw or p["has_default"])
        ):
            kw.append("%s=%s" % (p["name"], v))
        else:
            pos.append(v)
    return ", ".join(pos + kw)


def _ordered_product(lists, limit):
    """Combinations of the lists' items, those made of earlier items first."""
    if not lists:
        return [()]
    combos = list(itertools.islice(itertools.product(*[range(len(x)) for x in lists]), 5000))
    combos.sort(key=lambda c: (sum(c), c))
    return [tuple(lists[i][j] for i, j in enumerate(c)) for c in combos[:limit]]


def _arg_var(name, taken):
    base = re.sub(r"[^a-z0-9_]", "_", name.lower()).strip("_") or "arg"
    if base in ("self", "torch", "os", "result", "tmp", "cls") or base[0].isdigit():
        base = "arg_" + base
    var, n = base, 2
    while var in taken:
        var, n = "%s_%d" % (base, n), n + 1
    taken.add(var)
    return var


#: argument source that is worth naming (so the call's effect on it can be checked)
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

    def __init__(self):
        self.records = []
        self._handle = None

    def __enter__(self):
        self._handle = handle = logging.Logger.handle
        records = self.records

        def recording(logger, record):
            if record.levelno >= logging.WARNING:
                records.append(record)
            return handle(logger, record)

        logging.Logger.handle = recording
        return self

    def __exit__(self, *exc):
        logging.Logger.handle = self._handle
        return False


def _effects_of(records, caught):
    """``["logs", logger, "LEVEL:message"]`` and ``["warns", category, message]`` of one call."""
    out = []
    for r in records:
        try:
            out.append(["logs", r.name, "%s:%s" % (r.levelname, r.getMessage())])
        except Exception:
            pass
    for w in caught:
        cat = w.category.__name__ if w.category.__name__ in WARNING_NAMES else "Warning"
        out.append(["warns", cat, str(w.message)])
    return out


_NAMED_ARG = re.compile(r"^(torch\.|\[|\(|\{|lambda)")


class Scenario(object):
    def __init__(self, setup, call, receiver="", statement=False):
        self.setup = list(setup)
        self.call = call
        self.receiver = receiver
        self.statement = statement
        self.listify = False
        self.checks = []
        self.raises = None
        self.varies = ""
        self.watch = []  # variables whose change the call makes is checked
        self.teardown = []
        self.error = ""
        self.getters = []  # global getters the call may move (``torch.is_warn_always_enabled()``)
        self.context = (
            False  # the call returns a context manager: checks marked "inside" hold in it
        )
        self.remove_handle = False

    def source(self):
        return "\n".join(self.setup + [self.call])

    def to_json(self):
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
        }


class Engine(object):
    def __init__(self, torch, res, obj, owner, device_type):
        self.torch = torch
        self.res = res
        self.obj = obj
        self.owner = owner
        self.device_type = device_type
        self.each_call = False
        #: values the first parameter is given first (a handle the setup made)
        self.lead_values = []
        self.deadline = time.monotonic() + BUDGET
        self.tried = 0
        #: statements run before every scenario, and after it (a process group for torch.distributed)
        self.prelude = []
        self.postlude = []
        self.getters = []
        self.notes = []
        self._typed_seen = {}
        #: parameter -> category a call's TypeError asked for ("must be tuple of Tensors")
        self.type_errors = {}
        #: the first messages of failed calls (what a retry with a different prelude looks for)
        self.errors_seen = []
        #: a receiver's call raised NotImplementedError: a subclass may define what the member needs
        self.not_implemented = False
        #: submodules a call reached without importing them (``backend_config.utils``), imported since
        self.submodules = []
        #: (method, arguments) that a failed call's message asks to be called first
        self.asked_calls = []

    # -- running source ----------------------------------------------------------------------
    def _namespace(self, tmp):
        return {
            "torch": self.torch,
            "os": os,
            "datetime": datetime,
            "DEVICE": self.torch.device("cpu"),
            "_TMP_": tmp,
            "_API_": self.obj,
            "_OWNER_": self.owner,
        }

    def run(self, scenario, look=None):
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
                    _load_modules(line)
                    exec(compile(line, "<setup>", "exec"), ns)
                before = dict(
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
                with _Records() as logged, warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    if scenario.statement:
                        exec(compile(scenario.call, "<call>", "exec"), ns)
                        value = None
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

    def measure(self, scenario):
        """Fill ``scenario.checks`` from two runs; False when the call raised or checks nothing."""
        if not self.each_call:
            return self._measure(scenario)

        def job():
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
                job, timeout=2 * CALL_TIMEOUT + 10.0
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

    def _note_asked_call(self, message):
        """A call the error asks for first (``Please call `consolidate_state_dict(to=0)` ... beforehand``)."""
        for m in re.finditer(
            r"\b[Cc]all [`'\"]?(?:\w+\.)?(\w+)\(([\w=., \"']*)\)[^.;]*?"
            r"\b(?:first|before|beforehand|prior)\b",
            message,
        ):
            if (m.group(1), m.group(2)) not in self.asked_calls:
                self.asked_calls.append((m.group(1), m.group(2)))

    def _measure(self, scenario):
        got = []
        effects = []
        for _ in range(2):
            try:
                ns, value, before = self.run(scenario, self._look(scenario))
            except _STOPS:
                raise
            except (
                BaseException
            ) as exc:  # a library's own BaseException too (``CheckpointException``)
                missing = _missing_submodule(str(exc))
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
        stable = [c for c in got[0] if c in got[1]] + _drawn_tensors(self.torch, got[0], got[1])
        if "DEVICE" in scenario.source():
            stable = _device_checks(stable)
        stable = stable[:MAX_CHECKS]
        real = [c for c in stable if not (c[0] == "is" and c[1] == "result" and c[2] == "None")]
        if (
            not real and not scenario.context
        ):  # a call whose only effect is a log record or a warning
            real = [e for e in effects[0] if e in effects[1]][:MAX_EFFECTS]
            stable += real
        scenario.checks = stable
        return bool(real)

    def _look(self, scenario):
        """What one run of ``scenario`` shows, as checks: the result, the watched variables and getters
        that changed, the files written; read inside the run (``run``'s ``look``)."""

        def look(ns, value, before):
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

    def _read_back(self, ns, value, scenario):
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
        for home in _unique(homes):
            for name in ("initial_%s" % leaf, "get_%s" % leaf):
                src = "%s.%s()" % (home, name)
                try:
                    if home.split(".")[0] in ns and eval(src, ns) == value:
                        return [["eq", src, "result"]]
                except Exception:
                    continue
        return []

    def _called(self, fn, ns):
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

    def _type_hint(self, message):
        for name in _wanted_names(
            message
        ):  # an optional parameter the call needs after all: given next round
            self.type_errors["+" + name] = "given"
        # a parameter no signature named, asked for by the call (``from_buffer(b"..")``: "byte_order (pos 2)")
        m = re.search(r"missing required argument '([A-Za-z_]\w*)' \(pos \d+\)", message)
        if m:
            self.type_errors["+" + m.group(1)] = "missing"
        for pattern, key in _INDEX_ERRORS:  # a tensor of indices, by the argument's place or name
            m = re.search(pattern, message)
            if m:
                self.type_errors[key % m.group(1)] = "index"
        for pattern, cat in _WANTED_KINDS:  # "expected a code object": the first argument's kind
            if re.search(pattern, message):
                self.type_errors.setdefault("#1", cat)
        name, choices = choices_named(message)
        if name and choices:  # "expected rounding_mode to be one of None, 'trunc', or 'floor'"
            self.type_errors[name] = "choice:" + "|".join(choices)
        m = re.search(r"argument '(\w+)' \(position \d+\) must be ([\w .]+?)(?:,|$| not)", message)
        if not m:
            return
        wanted = m.group(2)
        cat = (
            "class"
            if wanted.startswith("a class") or wanted == "type"
            else "tensors"
            if "tuple of Tensors" in wanted
            else "tensor"
            if "Tensor" in wanted
            else "size"
            if "tuple of ints" in wanted
            else "int"
            if wanted.startswith("int")
            else "bool"
            if wanted.startswith("bool")
            else "float"
            if wanted.startswith(("float", "Number", "Scalar", "number"))
            else "str"
            if wanted.startswith("str")
            else "device"
            if wanted.lower().startswith(("device", "torch.device"))
            else "dtype"
            if "dtype" in wanted
            else ""
        )
        if cat:
            self.type_errors[m.group(1)] = cat

    def raises_same(self, scenario):
        """The exception type two runs of an invalid call raise alike, or None; in a child of its own
        where forking is safe: an argument of no expected type may abort the interpreter."""
        if not fork_safe(self.device_type):
            return self._raises_same(scenario)
        try:
            return in_child(self._raises_same, (scenario,), timeout=2 * CALL_TIMEOUT + 10.0)
        except ChildFailed:
            self.tried += 2
            return None

    def _raises_same(self, scenario):
        names = set()
        for _ in range(2):
            try:
                self.run(scenario)
            except _STOPS:
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

    def out_of_time(self):
        return time.monotonic() > self.deadline

    # -- receivers -----------------------------------------------------------------------------
    def _class_names(self, cls):
        names = []
        for n in (_named_path(cls), "%s.%s" % (cls.__module__, cls.__qualname__)):
            if n and n not in names:
                names.append(n)
        return names

    def receivers(self, cls, spelled_owner):
        """Setups (statement lists) whose last statement binds an instance of ``cls``."""
        out = []
        for klass in inspect.getmro(cls):
            for name in self._class_names(klass):
                for recipe in recipes_for(name):
                    lines = [line.replace("_OWNER_", spelled_owner) for line in recipe]
                    if lines not in out and self._binds_instance(lines, cls):
                        out.append(lines)
        var = pv.var_name(cls.__name__)
        for ctor_src in self.constructions(cls, spelled_owner, limit=2):
            out.append(["%s = %s" % (var, ctor_src)])
        return out

    def _binds_instance(self, lines, cls):
        var = _bound_var(lines)
        sc = Scenario(lines, var)
        try:
            _, value, _ = self.run(sc)
        except Exception as exc:
            if (
                len(self.errors_seen) < 64
            ):  # what a recipe asks for (an RPC agent) is what a retry looks for
                self.errors_seen.append(str(exc)[:300])
            return False
        return isinstance(value, cls)

    def constructions(self, cls, spelled, limit=4):
        """Constructor calls of ``cls`` (or a concrete subclass) that work here, as source."""
        found = []
        targets = [] if inspect.isabstract(cls) else [(cls, spelled)]
        # a concrete subclass stands for an abstract class or a protocol (FileSystemWriter for StorageWriter)
        targets += [(sub, _named_path(sub)) for sub in _concrete_subclasses(cls)]
        for klass, spelling in targets:
            if not spelling or self.out_of_time() or (found and klass is not cls):
                continue
            for params in self.signatures([], spelling, klass):
                src = self._construct(klass, spelling, params)
                if src:
                    found.append(src)
                    break
            if len(found) >= limit:
                break
        return found

    def _construct(self, klass, spelling, params):
        """``spelling(args)`` for the first arguments that construct ``klass`` here, or None; an optional
        parameter a failed construction asks for (``Either `probs` or `logits` must be specified``) is
        given in a second round."""
        doc = _doc_types(klass.__doc__)
        wanted = set()
        for _ in range(2):
            required = [p for p in params if not p["has_default"] or p["name"] in wanted]
            lists = []
            for p in required:
                values = self.typed_values(p["annotation"])
                cats = pv.categories(
                    p["name"], p["annotation"], doc.get(p["name"]), p["default_bool"]
                )
                values += [v for v in pv.values_for(cats) if v not in values]
                values = _narrowed_first(_outer_first(_unique(values), p["annotation"]), cats)
                lists.append(values[: 4 if len(required) < 3 else 2])
            asked = set()
            for combo in _ordered_product(lists, 12):
                if self.out_of_time():
                    break
                src = "%s(%s)" % (spelling, _args_src(required, combo))
                try:
                    self.run(Scenario([], src))
                except Exception as exc:
                    asked.update(_wanted_names(str(exc)))
                    if len(self.errors_seen) < 64:  # a process group or an RPC agent it asks for
                        self.errors_seen.append(str(exc)[:300])
                    continue
                return src
            fresh = (
                set(p["name"] for p in params if p["has_default"] and p["name"] in asked) - wanted
            )
            if not fresh or self.out_of_time():
                break
            wanted |= fresh
        return None

    # -- calls -----------------------------------------------------------------------------------
    def signatures(self, setup, target, fn):
        """Parameter lists to try: the signature, else the ones a call without arguments reports.

        ``self``/``cls`` are dropped for calls through a receiver or a class only: a
        function may name its first parameter ``self`` (``torch._foreach_copy_``).
        """
        bound = target != "_API_"
        packet = _packet_params(fn)
        if packet:
            return packet
        params = _param_list(fn, self.res.get("signature") or "" if fn is self.obj else "")
        # a signature from text (a docstring's ``as_subclass(cls)``) names no receiver: its ``cls`` is an argument
        bound_names = ("self", "cls") if _inspectable(fn) else ("self",)
        if params is None:
            params = _params_from_text(_doc_signature(fn))
        opaque = not params or any(p["kind"] == "var" for p in params)
        if params:
            params = [
                _vararg(p) if p.get("star") == 1 else p
                for i, p in enumerate(params)
                if (p["kind"] != "var" or p.get("star") == 1)
                and not (bound and i == 0 and p["name"] in bound_names)
            ]
            if all(p["kind"] == "vararg" for p in params):  # ``*args, **kwargs`` only: a wrapper
                params = []
        if params or not opaque:
            return [params]
        try:  # nothing named (``*args, **kwargs``): the parameters a call without arguments asks for
            self.run(Scenario(setup, "%s()" % target))
        except Exception as exc:
            found = _params_from_error(str(exc)) or [params or []]
        else:
            found = [params or []]
        return [
            [
                p
                for i, p in enumerate(ps)
                if p["kind"] != "var"
                and not (bound and i == 0 and p["name"] in ("self", "cls") and not p.get("missing"))
            ]
            for ps in found
        ]

    def call_scenarios(self, setup, target, fn, receiver="", holder=None):
        """Valid and invalid scenarios calling ``target(...)`` (``fn``: the object called)."""
        for params in self.signatures(setup, target, fn):
            valid, invalid = self._call_scenarios(setup, target, fn, params, receiver, holder)
            if valid or self.out_of_time():
                return valid, invalid
        return [], []

    def typed_values(self, annotation):
        """Values of a class an annotation names (``torch._C.DispatchKey``, ``<class '...WriteItem'>``); for
        ``type[X]`` classes: X's concrete subclasses in torch, then X (``optimizer_class``: SGD ...)."""
        m = re.search(
            r"\b[Tt]ype\[\s*((?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Z][A-Za-z0-9_]*)\s*\]",
            annotation or "",
        )
        hit = try_walk(m.group(1)) if m and m.group(1).startswith("torch") else None
        if hit is not None and isinstance(hit.obj, type):
            subs = [_named_path(sub) for sub in _concrete_subclasses(hit.obj, limit=3)]
            return [p for p in subs + [m.group(1)] if p][:3]
        out = []
        for path in re.findall(
            r"\b((?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Z][A-Za-z0-9_]*)", annotation or ""
        ):
            if not path.startswith("torch"):
                continue
            if path in self._typed_seen:
                out += self._typed_seen[path]
                continue
            self._typed_seen[path] = []
            found = []
            hit = try_walk(path)
            if hit is None or not isinstance(hit.obj, type):
                continue
            cls = hit.obj
            members = getattr(cls, "__members__", None)
            if isinstance(members, dict) and members:
                found = ["%s.%s" % (path, name) for name in list(members)[:2]]
            else:
                for klass in inspect.getmro(cls):
                    for name in self._class_names(klass):
                        recipe = pv.RECIPES.get(name) or MADE_ELSEWHERE.get(name)
                        if recipe and len(recipe) == 1 and " = " in recipe[0]:
                            found.append(recipe[0].split(" = ", 1)[1].replace("_OWNER_", path))
                if not self.out_of_time():
                    found += self.constructions(cls, path, limit=1)
            self._typed_seen[path] = found
            out += found
        return out[:3]

    def _call_scenarios(self, setup, target, fn, params, receiver, holder):
        hints = {}
        self.type_errors = {}
        for _ in range(3):  # each round takes the types the failed calls asked for
            valid, invalid = self._call_scenarios_once(
                setup, target, fn, params, receiver, holder, hints
            )
            names = set(p["name"] for p in params)
            fresh = dict(
                (k, v)
                for k, v in self.type_errors.items()
                if hints.get(k) != v and (not k.startswith("+") or k[1:] in names)
            )
            if not valid:  # ``*primals`` given one value in the next round
                fresh.update(
                    ("+" + p["name"], "given")
                    for p in params
                    if p["kind"] == "vararg" and "+" + p["name"] not in hints
                )
                # asked for by name and in no signature (``from_buffer``'s "byte_order (pos 2)", "argument
                # 'dtype' cannot be None"): the next round passes it too, after those named
                asked = [
                    (k[1:], v)
                    for k, v in self.type_errors.items()
                    if k.startswith("+") and k[1:] not in names
                ]
                if asked and _open_signature(
                    fn
                ):  # a closed signature of the callable's own lists them all
                    params = params + [
                        {
                            "name": n,
                            "kind": "positional" if v == "missing" else "keyword",
                            "has_default": False,
                            "default_bool": False,
                            "annotation": "",
                        }
                        for n, v in asked
                    ]
                    fresh.update(("+" + n, "given") for n, _ in asked)
            if valid or not fresh or self.out_of_time():
                return valid, invalid
            hints.update(fresh)
            self.type_errors = {}
        return valid, invalid

    def _call_scenarios_once(self, setup, target, fn, params, receiver, holder, hints):
        doc = _doc_types(getattr(fn, "__doc__", None))
        pools = []
        keys = self._receiver_keys(setup) if receiver else []
        # named for its dims, or a method of a class that is (``ConvBnReLU2d.forward``)
        dims = pv.spatial_dims(str(getattr(fn, "__name__", "") or "")) or pv.spatial_dims(
            str(self.res.get("path", "")).rsplit(".", 1)[-1]
        )
        # what the receiver's setup made under a parameter's name is that parameter's first value (the module
        # a pruning method was applied to, for its ``remove(module)``)
        made = set(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*) =", "\n".join(setup), re.M)) - set(
            [receiver]
        )
        for p in params:
            cats = pv.categories(p["name"], p["annotation"], doc.get(p["name"]), p["default_bool"])
            if p["kind"] == "vararg":  # ``*primals``: each one a tensor, not a tuple of them
                cats = [c for c in cats if c != "tensor_tuple"] or list(pv.ANY)
            hint = hints.get(p["name"]) or hints.get("#%d" % (params.index(p) + 1))
            chosen = [p["name"]] if p["name"] in made else []
            if receiver and p["name"] == "value" and _is_distribution(self.torch, self.owner):
                chosen += [v.format(receiver) for v in DISTRIBUTION_VALUES]
            if hint and hint.startswith("choice:"):
                chosen, hint = chosen + hint[len("choice:") :].split("|"), None
            if hint:
                cats = [hint] + [c for c in cats if c != hint]
            if cats[:1] == ["tensor"] and dims and not pools:  # the input of a pool2d, a conv3d
                chosen = chosen + [pv.spatial_input(dims)]
            elif (
                cats[:1] == ["tensor"] and dims and p["name"] == "weight"
            ):  # a conv's: 2 in, 2 out, 2-wide
                chosen = chosen + [
                    "torch.arange(1.0, %d.0, device=DEVICE).reshape(2, 2%s) / 10"
                    % (4 * 2**dims + 1, ", 2" * dims)
                ]
            elif (
                cats[:1] == ["size"] and dims
            ):  # its kernel size, stride, padding: one per spatial dim
                chosen = chosen + ["(%s)" % ", ".join(["2"] * dims)]
            values = (
                chosen
                + self.typed_values(p["annotation"])
                + self.typed_values(doc.get(p["name"], ""))
            )
            values += [v for v in pv.values_for(cats) if v not in values]
            values = _narrowed_first(
                _with_extra(_outer_first(_unique(values), p["annotation"]), cats), cats
            )
            if holder is not None and params and p is params[0]:
                values = ['"torchparity_probe"'] + values
            elif self.lead_values and p is params[0]:
                values = self.lead_values + [v for v in values if v not in self.lead_values]
            elif keys and p is params[0]:
                values = keys + [v for v in values if v not in keys]
            pools.append(values)
        required = [
            i for i, p in enumerate(params) if not p["has_default"] or "+" + p["name"] in hints
        ]
        width = {0: 1, 1: 8, 2: 4}.get(len(required), 2)
        lists = [pools[i][:width] for i in required]
        base, base_sc = None, None
        for combo in _ordered_product(lists, MAX_BASE_TRIES):
            if self.out_of_time():
                break
            values = [None] * len(params)
            for k, i in enumerate(required):
                values[i] = combo[k]
            sc = self._call(setup, target, params, values, receiver)
            if self.measure(sc):
                if base is None:
                    base, base_sc = values, sc
                if _rich(sc.checks):  # values, not only identities and types
                    base, base_sc = values, sc
                    break
        if base is None:
            return [], []
        valid, invalid = [base_sc], []
        seen = set([str(base_sc.checks)])
        for i, p in enumerate(params):
            if len(valid) >= MAX_VALID or self.out_of_time():
                break
            for v in pools[i][:3]:
                if v == base[i]:
                    continue
                values = list(base)
                values[i] = v
                sc = self._call(setup, target, params, values, receiver)
                if self.measure(sc) and str(sc.checks) not in seen:
                    sc.varies = p["name"]
                    seen.add(str(sc.checks))
                    valid.append(sc)
                    break
        for i, p in enumerate(params):
            if (
                len(invalid) >= MAX_INVALID
                or self.out_of_time()
                or base[i] is None
                and i not in required
            ):
                continue
            values = list(base)
            values[i] = pv.INVALID
            sc = self._call(setup, target, params, values, receiver)
            raised = self.raises_same(sc)
            if raised and raised not in ("_Timeout",):
                sc.raises = raised
                sc.varies = p["name"]
                invalid.append(sc)
        return valid, invalid

    def _receiver_keys(self, setup):
        """Keys (as source) of a mapping receiver, so its methods get a key it holds."""
        if not setup:
            return []
        var = _bound_var(setup)
        try:
            _, value, _ = self.run(Scenario(setup, var))
        except Exception:
            return []
        if isinstance(value, dict):
            items = list(value)[:2]
        elif isinstance(value, (tuple, list)):
            items = list(value)[:4]
        else:
            return []
        out = []
        for i, key in enumerate(items):
            src = _key_literal(key)
            if src == 'torch.device("cpu")':
                src = "DEVICE"
            if src is None and isinstance(value, (tuple, list)):
                src = "%s[%d]" % (var, i)  # an item with no literal (a tensor): named by its place
            if src and src not in out:
                out.append(src)
        return out

    def _call(self, setup, target, params, values, receiver):
        """A scenario: setup, named arguments, ``result = target(args)``."""
        bound = re.findall(r"^([A-Za-z_][A-Za-z0-9_]*) =", "\n".join(setup), re.M)
        taken = set(bound)
        lines, args = list(setup), []
        watch = [v for v in dict.fromkeys(bound) if v != "saved"]
        for i, p in enumerate(params):
            v = values[i]
            if (
                v is not None
                and v != pv.INVALID
                and _NAMED_ARG.match(v)
                and not v.startswith("lambda")
            ):
                var = _arg_var(p["name"], taken)
                lines.append("%s = %s" % (var, v))
                args.append(var)
                watch.append(var)
            else:
                args.append(v)
        sc = Scenario(lines, "%s(%s)" % (target, _args_src(params, args)), receiver)
        sc.watch = [w for w in watch if w != "saved_state"]
        sc.getters = list(self.getters)
        sc.teardown = list(getattr(self, "_teardown", []))
        return sc

    # -- the API ---------------------------------------------------------------------------------
    def scenarios(self):
        res, obj, owner = self.res, self.obj, self.owner
        kind = res.get("kind", "")
        leaf = res["path"].rsplit(".", 1)[-1]
        hit = try_walk(res["path"])
        parent = hit.parent if hit is not None else None
        if isinstance(obj, type) and kind in ("class", "context-manager", "storage-class"):
            return self.class_scenarios(obj)
        if owner is not None:
            return self.member_scenarios(owner, leaf, kind)
        if (
            type(obj).__module__ == "typing" and getattr(obj, "__origin__", None) is not None
        ):  # an alias
            sc = Scenario([], "_API_")
            return ([sc], []) if self.measure(sc) else ([], [])
        if callable(obj) and not isinstance(obj, type):
            holder = parent if isinstance(parent, CONTAINERS) else None
            setup, teardown, getters = [], [], []
            if holder is not None:
                setup, teardown = _container_guard(res["path"].rsplit(".", 1)[0], holder)
                if isinstance(
                    holder, dict
                ):  # whether the probe's entry is still there after the call
                    getters = ['"torchparity_probe" in %s' % res["path"].rsplit(".", 1)[0]]
            getter = paired_getter(leaf, parent)
            if getter:
                setup, teardown, getters = (
                    ["saved_state = %s" % getter],
                    ["_API_(saved_state)"],
                    [getter],
                )
            saved_first = SAVED_FIRST.get(res.get("canonical", ""))
            if saved_first and holder is None and not getter:
                setup = list(saved_first[0])
                self.lead_values = [saved_first[1]]
            entered = self.entered(leaf, res["path"].rsplit(".", 1)[0], parent)
            if (
                entered and holder is None
            ):  # ``_exit_X(handle)`` is given what ``_enter_X`` returned
                setup, teardown, getters = entered
            self.getters = getters
            valid, invalid = self.call_scenarios(setup, "_API_", obj, holder=holder)
            for sc in valid + invalid:
                sc.teardown = teardown
            if entered and holder is None:  # an invalid call left X entered: the test leaves it
                for sc in invalid:
                    sc.teardown = ["_API_(entered)"]
            named = _named_setup(obj) if not (valid or setup or holder is not None) else None
            if (
                named and not self.out_of_time()
            ):  # ``clip_grad_value_(parameters, ...)``: parameters with gradients
                valid, invalid = self.call_scenarios(list(named), "_API_", obj)
                # each value the setup made is passed (a download left to its default folder writes in $HOME)
                names = _named_params(obj)
                valid = [
                    sc
                    for sc in valid
                    if all(re.search(r"(?<![\w.])%s(?![\w=(])" % n, sc.call) for n in names)
                ]
            if not valid and holder is None and not getters:
                valid = self.registry_scenarios(obj)
            return valid, invalid
        sc = Scenario([], "_API_")
        if self.measure(sc):
            return [sc], []
        return [], []

    def entered(self, leaf, parent_path, parent):
        """For ``_exit_X``: (setup entering X through its sibling ``_enter_X``, teardown, getters of the
        state X sets); None for any other API or where no call of ``_enter_X`` works here."""
        m = re.match(r"^(_?)exit_(\w+)$", leaf)
        enter = getattr(parent, "%senter_%s" % m.groups(), None) if m else None
        if not callable(enter) or isinstance(parent, type):
            return None
        spelled = "%s.%senter_%s" % ((parent_path,) + m.groups())
        getters_found = [
            src for src, value in _state_getters(m.group(2), parent) if isinstance(value, bool)
        ]
        for args in ("True", "", "None"):
            line = "entered = %s(%s)" % (spelled, args)
            try:
                _, value, _ = self.run(Scenario([line], "entered"))
            except Exception:
                continue
            if value is None:
                continue
            try:  # leave X as it was: a level left entered would refuse the scenarios' own entries
                getattr(parent, leaf)(value)
            except Exception:
                pass
            self.lead_values = ["entered"]
            return [line], [], getters_found[:1]
        return None

    def registry_scenarios(self, fn):
        """A function called for its effect on a module-level registry it reaches by name
        (``init_reductions`` fills ``ForkingPickler._extra_reducers``; a reset empties a cache): the
        registry emptied, or given a probe entry, first; then the call; then the registry."""
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            return []
        if any(
            p.default is inspect.Parameter.empty
            and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            for p in params
        ):
            return []
        try:
            paths = touched_containers(fn)
            originals = dict((path, try_walk(path).obj) for path in paths)
            copies = dict((path, type(obj).__mro__[-2](obj)) for path, obj in originals.items())
        except (
            Exception
        ):  # a registry this probe cannot read or copy: no scenario, the others stand
            return []
        try:
            for path in paths:
                for dirty in (False, True):
                    if self.out_of_time():
                        return []
                    # measured with the registry as the call left it (restored below, and in the test's finally)
                    sc = Scenario(_registry_setup(path, dirty), "_API_()")
                    sc.watch = ["registry"]
                    if not self.measure(sc):
                        continue
                    after = originals[path]
                    if not dirty and after and all(k in copies[path] for k in after):
                        # refilled: what it holds again, whatever else registered there before the test
                        sc.checks = [c for c in sc.checks if "registry" not in c[1]] + [
                            ["eq", "len(registry) > 0", "True"],
                            ["eq", "all(key in saved for key in registry)", "True"],
                        ]
                    sc.teardown = _registry_restore(path)
                    return [sc]
            return []
        finally:
            for path, obj in originals.items():
                obj.clear()
                if isinstance(obj, (list, collections.deque)):
                    obj.extend(copies[path])
                else:
                    obj.update(copies[path])

    def enum_scenarios(self, cls):
        """An enum: its members in order, its first member by name and by value."""
        members = list(cls.__members__.items())
        name, member = members[0]
        calls = ["list(_API_)", "_API_[%r]" % name]
        value = getattr(member, "value", None)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            calls.append("_API_(%r)" % (value,))
        valid = []
        for call in calls:
            sc = Scenario([], call)
            if not self.out_of_time() and self.measure(sc):
                valid.append(sc)
        return valid, []

    def class_scenarios(self, cls):
        var = pv.var_name(cls.__name__)
        if isinstance(cls, enum.EnumMeta) and getattr(cls, "__members__", None):
            valid, invalid = self.enum_scenarios(cls)
            if valid:
                return valid, invalid
        if (
            getattr(cls, "_is_protocol", False) and cls.__module__ != "typing"
        ):  # a Protocol: its shape
            sc = Scenario([], "_API_")
            return ([sc], []) if self.measure(sc) else ([], [])
        valid = []
        # the recipes that construct this class itself (not those reaching an instance another way, the
        # tensors of ``torch.Tensor``), then its plain constructions
        own = [
            setup
            for setup in self.receivers(cls, "_API_")
            if any("_API_" in line for line in setup)
        ]
        for setup in own[:3]:
            if self.out_of_time():
                break
            at = next(i for i, line in enumerate(setup) if "_API_" in line)
            sc = Scenario(setup[:at], setup[at].split(" = ", 1)[1])
            if self.measure(sc):
                valid.append(sc)
                break
        if not valid:  # an abstract class or a protocol: a concrete subclass, checked to be one
            for ctor_src in self.constructions(cls, "_API_", limit=1):
                if "_API_" in ctor_src:
                    continue
                sc = Scenario([], ctor_src)
                if self.measure(sc):
                    sc.checks.insert(0, ["type", "result", "_API_"])
                    valid.append(sc)
                    break
        if not valid:
            return [], []
        ctor = valid[0].call
        methods = 0
        # a module's forward first: what the module computes says more than what its container does
        for name in sorted(
            (n for n in dir(cls) if not n.startswith("_")), key=lambda n: (n != "forward", n)
        ):
            if methods >= MAX_METHODS or self.out_of_time():
                break
            member = inspect.getattr_static(cls, name, None)
            if not (inspect.isfunction(member) or inspect.ismethoddescriptor(member)):
                continue
            fn = getattr(cls, name, None)
            found, _ = self.call_scenarios(
                list(valid[0].setup) + ["%s = %s" % (var, ctor)],
                "%s.%s" % (var, name),
                fn,
                receiver=var,
            )
            if found:
                sc = found[0]
                sc.varies = name
                valid.append(sc)
                methods += 1
        invalid = []
        return valid, invalid

    def member_scenarios(self, owner, leaf, kind):
        raw = inspect.getattr_static(owner, leaf, None)
        is_static = (
            isinstance(raw, (staticmethod, classmethod))
            or type(raw).__name__ == "classmethod_descriptor"
        )
        value = getattr(owner, leaf, None)
        valid, invalid = [], []
        if is_static and callable(value):
            valid, invalid = self.call_scenarios([], "_OWNER_.%s" % leaf, value)
            if not valid and not self.out_of_time():
                return self.static_on_instance(owner, leaf, value) or (valid, invalid)
            return valid, invalid
        if kind not in ("property", "attribute") and not callable(value) and value is not None:
            sc = Scenario([], "_OWNER_.%s" % leaf)
            if self.measure(sc):
                valid.append(sc)
        for setup in self.receivers(owner, "_OWNER_"):
            if self.out_of_time() or (valid and kind in ("property", "attribute")):
                break
            recv = _bound_var(setup)
            if kind in ("property", "attribute") or (not callable(value) and value is not None):
                sc = Scenario(setup, "%s.%s" % (recv, leaf), recv)
                sc.watch = []
                if self.measure(sc):
                    valid.append(sc)
                    break
                continue
            method = getattr(owner, leaf, None)
            self.getters = _member_getters(owner, leaf, recv)
            self.asked_calls = []
            found, bad = self.call_scenarios(setup, "%s.%s" % (recv, leaf), method, receiver=recv)
            for name, args in list(self.asked_calls)[
                :2
            ]:  # the receiver's method the error asks for, first
                if (
                    found
                    or self.out_of_time()
                    or name == leaf
                    or not callable(getattr(owner, name, None))
                ):
                    continue
                first = setup + ["%s.%s(%s)" % (recv, name, args)]
                found, bad = self.call_scenarios(
                    first, "%s.%s" % (recv, leaf), method, receiver=recv
                )
            self.getters = []
            if found:
                return valid + found, bad
        if (
            not valid
            and kind in ("property", "attribute", "method")
            and not self.out_of_time()
            and (inspect.isabstract(owner) or self.not_implemented)
        ):
            return self.inherited_scenarios(owner, leaf, kind)
        return valid, invalid

    def static_on_instance(self, owner, leaf, fn):
        """A static method of a module class given an instance of the class (a recipe's) for its model or
        module parameter, and an Adam that took a step over its parameters for its optimizer one
        (``FullyShardedDataParallel.optim_state_dict(model, optim)``); None where it takes neither."""
        try:
            names = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            return None
        modules = [n for n in names if n in ("model", "module", "root_module")]
        if not modules or not issubclass(owner, self.torch.nn.Module):
            return None
        for setup in self.receivers(owner, "_OWNER_")[:1]:
            recv = _bound_var(setup)
            lines = list(setup) + ["%s = %s" % (n, recv) for n in modules if n != recv]
            bound = set(modules)
            for n in names:
                if n in ("optim", "optimizer"):  # a step taken: its state holds the moments
                    lines += [
                        "%s = torch.optim.Adam(%s.parameters(), lr=0.1)" % (n, recv),
                        "%s.step()" % n,
                    ]
                    bound.add(n)
            lines += self._sibling_results(owner, leaf, names, bound)
            valid, invalid = self.call_scenarios(lines, "_OWNER_.%s" % leaf, fn)
            if valid:
                return valid, invalid
        return None

    def _sibling_results(self, owner, leaf, names, bound):
        """``X = _OWNER_.X(model, optim)`` for a parameter named after a static sibling method that takes
        only what is bound already (``flatten_sharded_optim_state_dict(sharded_optim_state_dict, ...)``)."""
        lines = []
        for n in names:
            raw = inspect.getattr_static(owner, n, None)
            if n == leaf or n in bound or not isinstance(raw, (staticmethod, classmethod)):
                continue
            try:
                params = inspect.signature(getattr(owner, n)).parameters.values()
            except (TypeError, ValueError):
                continue
            params = list(params)
            args = ["%s=%s" % (p.name, p.name) for p in params if p.name in bound]
            if (
                all(p.name in bound or p.default is not p.empty for p in params)
                and args
                and not any(p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL) for p in params)
            ):
                lines.append("%s = _OWNER_.%s(%s)" % (n, n, ", ".join(args)))
                bound.add(n)
        return lines

    def inherited_scenarios(self, owner, leaf, kind):
        """The member on instances of concrete subclasses that inherit it as it is (``Gamma(...).stddev`` for
        ``Distribution.stddev``, which needs the variance a subclass defines): a base class's own instance
        raises NotImplementedError, and a subclass that overrides the member would not reach it."""
        raw = inspect.getattr_static(owner, leaf, None)
        for sub in _concrete_subclasses(owner, inheriting=(leaf, raw)):
            if self.out_of_time():
                break
            spelled = _named_path(sub)
            for setup in self.receivers(sub, spelled)[:2]:
                recv = _bound_var(setup)
                if kind != "method":
                    sc = Scenario(setup, "%s.%s" % (recv, leaf), recv)
                    sc.watch = []
                    if self.measure(sc):
                        return [sc], []
                    continue
                found, bad = self.call_scenarios(
                    setup, "%s.%s" % (recv, leaf), getattr(sub, leaf), receiver=recv
                )
                if found:
                    return found, bad
        return [], []


#: what a failed call says when an argument must hold indices: (pattern, hint key: "#N" a place, else a name)
_INDEX_ERRORS = (
    (r"argument #(\d+) '\w+' to have one of the following scalar types: (?:Long|Int)", "#%s"),
    (r"'(\w+)' argument should be a \w* ?(?:CPU )?int64 tensor", "%s"),
    (r"[Ee]xpected (\w+) to be (?:a )?(?:Long|int64|integer)", "%s"),
)
#: what a failed call says when it needs an optional parameter after all (its name, group 1)
_WANTED_ERRORS = (
    r"[`'\"](\w+)[`'\"] (?:or [`'\"]\w+[`'\"] )?(?:must|should|needs to|has to) be (?:specified|given|provided|passed|set)",
    r"(?:[Ss]pecify|[Pp]rovide|[Pp]ass|[Ss]et) (?:either )?(?:the )?(?:argument |parameter )?[`'\"](\w+)[`'\"]",
    r"[Rr]equires? (?:the |an? )?(?:argument |parameter |keyword )?[`'\"](\w+)[`'\"]",
    r"[`'\"](\w+)[`'\"] (?:is required|must not be None|cannot be None|should not be None)",
    r"^(\w+) must be (?:provided|specified|given) for",  # a QAT module's "qconfig must be provided for QAT module"
    r"\b(?:[Tt]he (?:vector |argument |parameter )?)?(\w+) can only be None if",  # autograd.functional.jvp's v
)


def _wanted_names(message):
    """Names of the parameters a failed call's message asks for."""
    out = []
    for pattern in _WANTED_ERRORS:
        out += [n for n in re.findall(pattern, message) if n not in out]
    return out


#: values worth trying besides the shared pools: indices (small int64 tensors: on the device, and one on the
#: CPU for a lengths argument), and a function of a number a tracer can capture
EXTRA_POOLS = {
    "index": ("torch.tensor([1, 0], device=DEVICE)", "torch.tensor([2, 1, 1])"),
    "callable": ("lambda x: x * 2 + 1",),
}


def _unique(values):
    return list(dict.fromkeys(values))


#: an annotation's outermost type -> the pool its values come from (``Iterable[Tensor] | ...``: a list of
#: tensors, not a tensor; ``dict[str, Any]``: a dict, not a string)
_OUTER = (
    (
        r"^(?:typing\.|collections\.abc\.)?(?:Iterable|Sequence|List|list|Tuple|tuple)\[\s*(?:torch\.)?Tensor\b",
        "tensors",
    ),
    (r"^(?:typing\.|collections\.abc\.)?(?:Dict|dict|Mapping|MutableMapping)\b", "dict"),
)


def _outer_first(values, annotation):
    """``values`` with the pool of the annotation's outermost type first."""
    for pattern, cat in _OUTER:
        if re.search(pattern, (annotation or "").strip()):
            first = [v for v in pv.POOLS[cat] if v not in ("{}",)][
                :2
            ]  # then the typed values, as before
            return first + [v for v in values if v not in first]
    return values


def _drawn_tensors(torch, first, second):
    """Shape and dtype checks of the tensors whose values differ between two runs (a distribution's
    ``sample``): what is drawn is not asserted, its shape and dtype are, where both runs agree on them."""
    other = dict((c[1], c[2]) for c in second if c[0] == "tensor")
    out = []
    for check in first:
        if len(check) != 3 or check[0] != "tensor" or other.get(check[1], check[2]) == check[2]:
            continue  # ``inside`` checks (a context's) are four long
        kind, expr, src = check
        try:
            a, b = eval(src, {"torch": torch}), eval(other[expr], {"torch": torch})
        except Exception:
            continue
        if a.shape == b.shape and a.dtype == b.dtype:
            out += [
                ["eq", "%s.shape" % expr, "torch.Size(%r)" % (list(a.shape),)],
                ["eq", "%s.dtype" % expr, str(a.dtype)],
            ]
    return out


def _narrowed_first(values, cats):
    """The values of a category that narrows the annotation's (``probs``) before the annotation's own."""
    if not cats or cats[0] not in pv.NARROWING:
        return values
    first = list(pv.POOLS.get(cats[0], ()))
    return first + [v for v in values if v not in first]


def _with_extra(values, cats):
    """``values`` with the extra pools' values of ``cats``: a hinted index pool first, a callable's after
    the first shared one."""
    out = list(values)
    if cats and cats[0] == "index":
        out = list(EXTRA_POOLS["index"]) + [v for v in out if v not in EXTRA_POOLS["index"]]
    if "callable" in cats:
        for v in EXTRA_POOLS["callable"]:
            if v not in out:
                out.insert(1 if out else 0, v)
    return out


def _rich(checks):
    return any(
        c[0] in ("eq", "tensor", "float") or (c[0] == "is" and c[-1] != "None") for c in checks
    )


def _plain_callable(value, torch):
    import types as _types

    return callable(value) and not isinstance(
        value, (type, _types.ModuleType, torch.Tensor, torch.nn.Module)
    )


def _is_context_manager(value):
    return (
        hasattr(type(value), "__enter__")
        and hasattr(type(value), "__exit__")
        and not isinstance(value, (type, str, bytes))
    )


def _getter_names(leaf):
    """Names the getter of a setter ``leaf`` goes by, most likely first."""
    out = []
    m = re.match(r"^(_?)(.*?)(?:_?)set_?(.+)$", leaf)
    if m:
        under, pre, rest = m.groups()
        rest_l = rest[:1].lower() + rest[1:]
        for name in (
            "%s%sget_%s" % (under, pre, rest),
            "%s%sget%s" % (under, pre, rest),
            "%sis_%s_enabled" % (under, rest),
            "%sis_%s" % (under, rest),
            "%s%s_enabled" % (under, rest),
            "%s%s%s" % (under, pre, rest),
            "%sget_%s" % (under, rest_l),
            "%s%sget_%s" % (under, pre, rest_l),
        ):
            name = name.replace("__", "_") if not name.startswith("__") else name
            if name not in out:
                out.append(name)
    if "override_" in leaf:
        out.append(leaf.replace("override_", ""))
    m = re.match(r"^(_?)enable_(.+)$", leaf)
    if m:
        out += ["%s%s_enabled" % m.groups(), "%sis_%s_enabled" % m.groups()]
    m = re.match(
        r"^(_?)allow_(.+)$", leaf
    )  # torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp
    if m:
        out += ["%s%s_allowed" % m.groups(), "%sis_%s_allowed" % m.groups()]
    return out


def _member_getters(owner, leaf, recv):
    """``recv.buffer()`` for ``recv.set_buffer(...)``: the zero-argument method or property of ``owner`` that
    reads what the setter member ``leaf`` sets, as a getter a scenario reads before and after its call."""
    for name in _getter_names(leaf):
        raw = inspect.getattr_static(owner, name, None)
        if raw is None or name == leaf:
            continue
        if isinstance(raw, property):
            return ["%s.%s" % (recv, name)]
        if callable(raw) and not isinstance(raw, (staticmethod, classmethod, type)):
            return ["%s.%s()" % (recv, name)]
    return []


def getters(leaf, holder):
    """(source, value) of each zero-argument getter that may read the state setter ``leaf`` sets, most
    likely first: the names ``_getter_names`` gives, in ``holder`` (a module), ``torch`` and ``torch._C``."""
    import types as _types

    torch = sys.modules.get("torch")
    homes = []
    if isinstance(holder, _types.ModuleType):
        homes.append((holder.__name__, holder))
    homes += [("torch", torch), ("torch._C", getattr(torch, "_C", None))]
    for name in _getter_names(leaf):
        for home_name, home in homes:
            fn = getattr(home, name, None) if home is not None else None
            if not callable(fn) or isinstance(fn, type):
                continue
            try:
                value = fn()
            except Exception:
                continue
            yield "%s.%s()" % (home_name, name), value


def _state_getters(state, holder):
    """(source, value) of zero-argument getters of the state named ``state`` (``inference_mode``):
    ``is_<state>_enabled``, ``<state>_enabled``, ``is_<state>`` in ``holder``, ``torch`` and ``torch._C``."""
    torch = sys.modules.get("torch")
    homes = []
    if isinstance(holder, types.ModuleType):
        homes.append((holder.__name__, holder))
    homes += [("torch", torch), ("torch._C", getattr(torch, "_C", None))]
    for name in ("is_%s_enabled" % state, "%s_enabled" % state, "is_%s" % state):
        for home_name, home in homes:
            fn = getattr(home, name, None) if home is not None else None
            if not callable(fn) or isinstance(fn, type):
                continue
            try:
                yield "%s.%s()" % (home_name, name), fn()
            except Exception:
                continue


def paired_getter(leaf, holder):
    """Source of a zero-argument getter reading the state setter ``leaf`` sets (a plain value), or ""."""
    for source, value in getters(leaf, holder):
        if isinstance(value, (bool, int, float, str)):
            return source
    return ""


def _bound_var(lines):
    """The variable the last assignment of ``lines`` binds (a receiver setup's instance)."""
    for line in reversed(lines):
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*) = ", line)
        if m:
            return m.group(1)
    return ""


def _named_params(fn):
    """``fn``'s parameter names that ``pv.NAMED_SETUPS`` has a setup for, in order."""
    try:
        return [name for name in inspect.signature(fn).parameters if name in pv.NAMED_SETUPS]
    except (TypeError, ValueError):
        return []


def _named_setup(fn):
    """The setups ``pv.NAMED_SETUPS`` has for ``fn``'s parameter names (each binds its name), joined, or None."""
    lines = [line for name in _named_params(fn) for line in pv.NAMED_SETUPS[name]]
    return tuple(lines) or None


def _device_checks(checks):
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


def _key_literal(key):
    from .literal import NotLiteral, literal

    try:
        return literal(key)
    except NotLiteral:
        return None


def _doc_signature(fn):
    doc = getattr(fn, "__doc__", None)
    if not isinstance(doc, str):
        return ""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    m = re.match(r"^[A-Za-z_.]+(\(.*\))", first)
    if not m:
        return ""
    text = m.group(1)
    text = re.sub(r"\[,\s*([A-Za-z_]+)\]", r", \1=None", text)
    return text


def _concrete_subclasses(cls, limit=6, inheriting=None):
    """Concrete torch subclasses of ``cls`` with a name; ``inheriting=(name, attr)``: only those whose member
    ``name`` is ``attr`` itself."""
    out = []
    for sub in subclasses(cls):
        if len(out) >= limit:
            break
        if inspect.isabstract(sub) or not (sub.__module__ or "").startswith("torch"):
            continue
        if (
            inheriting is not None
            and inspect.getattr_static(sub, inheriting[0], None) is not inheriting[1]
        ):
            continue
        if _named_path(sub):
            out.append(sub)
    return out


def touched_containers(fn, limit=8):
    """Source paths, from ``fn``'s module, of the dicts, lists and sets its code reaches by name: a
    global, an attribute of a global module or class, and what the function or bound method named
    there reaches in turn (``reduction.register`` is ``ForkingPickler.register``: its ``_extra_reducers``)."""
    out = []
    code = getattr(fn, "__code__", None)
    # the module the function's globals are (``__module__`` may name where it is exported from)
    base = (getattr(fn, "__globals__", None) or {}).get("__name__")
    if not isinstance(base, str) or code is None or not base.startswith("torch"):
        return out

    def add(path, obj):
        # kept only where the path leads back to it (a function may hide a submodule of its name)
        if isinstance(obj, CONTAINERS) and path not in out and len(out) < limit:
            found = try_walk(path)
            if found is not None and found.obj is obj:
                out.append(path)

    def deeper(path, holder, sub):
        inner = getattr(sub, "__func__", sub)
        icode = getattr(inner, "__code__", None)
        if icode is None:
            return
        owner = getattr(sub, "__self__", None)
        if isinstance(owner, type) and getattr(holder, owner.__name__, None) is owner:
            for k in icode.co_names:
                add("%s.%s.%s" % (path, owner.__name__, k), inspect.getattr_static(owner, k, None))
        if getattr(inner, "__globals__", None) is getattr(holder, "__dict__", 0):
            for k in icode.co_names:
                add("%s.%s" % (path, k), inner.__globals__.get(k))

    names = [
        n for n in code.co_names if not n.startswith("__") and n != "torch"
    ]  # torch itself: too wide
    for n in names:
        if n not in fn.__globals__:
            continue
        obj, path = fn.__globals__[n], "%s.%s" % (base, n)
        add(path, obj)
        if isinstance(obj, (types.ModuleType, type)):
            for m in names:
                sub = (
                    inspect.getattr_static(obj, m, None)
                    if isinstance(obj, type)
                    else getattr(obj, m, None)
                )
                add("%s.%s" % (path, m), sub)
                deeper(path, obj, getattr(obj, m, None) if sub is not None else None)
        elif isinstance(obj, types.FunctionType):
            mod = sys.modules.get(obj.__module__ or "")
            if mod is not None and (obj.__module__ or "").startswith("torch"):
                deeper(obj.__module__, mod, obj)
    return out


def _kind(path):
    """``dict``, ``list`` or ``set``: the builtin container the object at ``path`` is."""
    return type(try_walk(path).obj).__mro__[-2].__name__


def _registry_setup(path, dirty):
    kind = _kind(path)
    setup = ["saved = %s(%s)" % ("list" if kind == "deque" else kind, path), "%s.clear()" % path]
    if dirty:
        setup.append(
            {
                "dict": '%s["torchparity_probe"] = "value"',
                "list": '%s.append("torchparity_probe")',
                "deque": '%s.append("torchparity_probe")',
                "set": '%s.add("torchparity_probe")',
            }[kind]
            % path
        )
    return setup + ["registry = %s" % path]


def _registry_restore(path):
    kind = _kind(path)
    if kind == "list":
        return ["%s[:] = saved" % path]
    if kind == "deque":  # a bounded deque keeps its maxlen
        return ["%s.clear()" % path, "%s.extend(saved)" % path]
    return ["%s.clear()" % path, "%s.update(saved)" % path]


def _container_guard(holder_path, holder):
    """Statements saving a module-level container and giving it a probe entry, and restoring it after the
    test; a list or set holds only that entry (so what its method does to it is the same wherever the
    test runs) and is watched as ``registry``."""
    if not isinstance(
        holder, CONTAINERS
    ):  # a subclass too (``counters``: a defaultdict of Counters)
        return [], []
    saved = "saved = %s(%s)" % (
        "dict" if isinstance(holder, dict) else "set" if isinstance(holder, set) else "list",
        holder_path,
    )
    if isinstance(
        holder, dict
    ):  # kept as it is, with an entry of the probe's (its size is the environment's)
        setup = [saved, '%s["torchparity_probe"] = "value"' % holder_path]
        return setup, ["%s.clear()" % holder_path, "%s.update(saved)" % holder_path]
    setup = [saved, "%s.clear()" % holder_path]
    if isinstance(holder, list):
        setup.append('%s.append("torchparity_probe")' % holder_path)
        restore = ["%s[:] = saved" % holder_path]
    elif isinstance(holder, collections.deque):
        setup.append('%s.append("torchparity_probe")' % holder_path)
        restore = ["%s.clear()" % holder_path, "%s.extend(saved)" % holder_path]
    else:
        setup.append('%s.add("torchparity_probe")' % holder_path)
        restore = ["%s.clear()" % holder_path, "%s.update(saved)" % holder_path]
    return setup + ["registry = %s" % holder_path], restore


_NOT_MODULES = set()  # type: set[str]


def _load_modules(text):
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


def _missing_submodule(message):
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


def needed_imports(text, baseline):
    """``import X`` lines for the torch modules ``text`` reaches that ``import torch`` did not load."""
    out = []
    for chain in re.findall(r"\b(torch(?:_npu)?(?:\.[A-Za-z_][A-Za-z0-9_]*)+)", text):
        parts = chain.split(".")
        best = None
        for i in range(len(parts), 1, -1):
            name = ".".join(parts[:i])
            if name in sys.modules:
                best = name
                break
        if best and best not in baseline:
            line = "import %s" % best
            if line not in out:
                out.append(line)
    return out


def probe_isolated(torch, res, obj, owner, device_type, baseline=()):
    """``probe_facts`` in a forked child (``isolate.in_child``): a call that crashes, hangs or changes globals
    costs only the child. When the child ends without a result (a call aborted the interpreter), the probe
    runs again with every call in a child of its own, so the calls that worked are kept."""
    if not fork_safe(device_type):
        return probe_facts(torch, res, obj, owner, device_type, baseline)
    problem = ""
    for each_call in (False, True):
        try:
            return in_child(
                _probe_json,
                (torch, res, obj, owner, device_type, baseline, each_call),
                timeout=BUDGET + 20.0,
            )
        except ChildFailed as exc:
            problem = "probing %s %s" % (res["canonical"], exc)
            if (
                exc.status == "timeout" or exc.raised
            ):  # a retry helps only where a call took the child down
                break
    return {"valid": [], "invalid": [], "imports": [], "tried": 0, "problem": problem}


def _probe_json(torch, res, obj, owner, device_type, baseline, each_call):
    """``probe_facts`` as plain JSON data (what a value no JSON holds becomes: its text)."""
    import json

    return json.loads(
        json.dumps(
            probe_facts(torch, res, obj, owner, device_type, baseline, each_call), default=str
        )
    )


#: a one-process group, for APIs of torch.distributed that need one to exist
PROCESS_GROUP = (
    "torch.distributed.init_process_group(backend=None, store=torch.distributed.HashStore(), "
    "rank=0, world_size=1)",
)
NO_PROCESS_GROUP = ("torch.distributed.destroy_process_group()",)
#: a one-device mesh made current after the process group: DTensor factories and ops ask for one
DEVICE_MESH = (
    "_MESH_ = torch.distributed.device_mesh.init_device_mesh(DEVICE.type, (1,))",
    "_MESH_.__enter__()",
)
NO_DEVICE_MESH = ("_MESH_.__exit__(None, None, None)",)


#: a one-worker RPC agent (its rendezvous a file in the test's folder): rpc_sync, remote, RRef ask for one
RPC_AGENT = (
    'torch.distributed.rpc.init_rpc("worker0", rank=0, world_size=1, '
    "rpc_backend_options=torch.distributed.rpc.TensorPipeRpcBackendOptions("
    'init_method="file://" + os.path.join(_TMP_, "rpc_store")))',
)
NO_RPC_AGENT = ("torch.distributed.rpc.shutdown()",)


def _asks_for_rpc(res, engine):
    """Whether the API is RPC's, or a failed call asked for an RPC agent (``RPC has not been initialized``)."""
    names = [res.get("canonical", ""), res.get("path", "")] + list(res.get("aliases", []))
    return any(
        n.startswith(("torch.distributed.rpc", "torch._C._distributed_rpc")) for n in names
    ) or any(
        "init_rpc" in e or "RPC has not been initialized" in e or "only works in RPC" in e
        for e in engine.errors_seen
    )


def _asks_for_mesh(engine):
    """Whether a failed call asked for a current device mesh (``No device mesh is currently active``)."""
    return any("device mesh" in e.lower() or "DeviceMesh" in e for e in engine.errors_seen)


def _asks_for_group(engine):
    """Whether a failed call asked for a process group (``DistributedDataParallel`` outside torch.distributed)."""
    return any(
        "process group has not been initialized" in e or "init_process_group" in e
        for e in engine.errors_seen
    )


def _distributed(res):
    names = [res.get("canonical", ""), res.get("path", "")] + list(res.get("aliases", []))
    return any(n.startswith(("torch.distributed", "torch._C._distributed")) for n in names)


def probe_facts(torch, res, obj, owner, device_type, baseline=(), each_call=False):
    """{"valid": [scenario], "invalid": [scenario], "imports", "problem", "tried"} for one API;
    ``each_call``: every measured call in a forked child of its own."""
    engine = Engine(torch, res, obj, owner, device_type)
    engine.baseline = baseline
    engine.each_call = each_call and fork_safe(device_type)
    # a download a guessed call makes (``load_url("weight")``) is not in $HOME
    with scratch_torch_home():
        try:
            return _probe_with(engine, torch, res)
        finally:  # the next API reaching the same submodule must find it missing too, and name it in its imports
            _forget_submodules(engine.submodules)


def _forget_submodules(names):
    for name in names:
        module = sys.modules.pop(name, None)
        parent, _, leaf = name.rpartition(".")
        holder = sys.modules.get(parent)
        if module is not None and holder is not None and getattr(holder, leaf, None) is module:
            delattr(holder, leaf)


def _probe_with(engine, torch, res):
    baseline = engine.baseline
    try:
        valid, invalid = engine.scenarios()
        dist = getattr(torch, "distributed", None)
        if (
            not valid
            and (_distributed(res) or _asks_for_group(engine))
            and dist is not None
            and dist.is_available()
            and not dist.is_initialized()
            and not engine.out_of_time()
        ):
            engine.prelude, engine.postlude = list(PROCESS_GROUP), list(NO_PROCESS_GROUP)
            engine.errors_seen = []  # what this pass asks for (a mesh), not the plain pass's missing group
            valid, invalid = engine.scenarios()
            if not valid and not engine.out_of_time() and _asks_for_rpc(res, engine):
                engine.prelude, engine.postlude = list(RPC_AGENT), list(NO_RPC_AGENT)
                valid, invalid = engine.scenarios()
            if not valid and not engine.out_of_time() and _asks_for_mesh(engine):
                engine.prelude = list(PROCESS_GROUP + DEVICE_MESH)
                engine.postlude = list(
                    NO_PROCESS_GROUP + NO_DEVICE_MESH
                )  # the group first: a mesh that failed
                # to build leaves no _MESH_ to exit, and the group must still go
                valid, invalid = engine.scenarios()
    except _Timeout as exc:
        return {
            "valid": [],
            "invalid": [],
            "imports": [],
            "problem": str(exc),
            "tried": engine.tried,
        }
    out = {"valid": [], "invalid": [], "tried": engine.tried, "problem": ""}
    text = []
    for key, group in (("valid", valid), ("invalid", invalid)):
        for sc in group:
            doc = sc.to_json()
            doc["prelude"] = list(engine.prelude)
            doc["teardown"] = list(getattr(sc, "teardown", [])) + list(engine.postlude)
            out[key].append(doc)
            text.append("\n".join(engine.prelude) + "\n" + sc.source())
    if not valid:
        out["problem"] = (
            "no call of %s with candidate receivers and arguments gave a result or an effect "
            "a test can hold (%d tried)" % (res["canonical"], engine.tried)
        )
    out["imports"] = needed_imports("\n".join(text), set(baseline))
    out["imports"] += [
        "import %s" % name for name in engine.submodules if "import %s" % name not in out["imports"]
    ]
    for group in (out["valid"], out["invalid"]):  # a type a check names from another module
        for doc in group:
            for check in doc.get("checks", []):
                payload = check[-1]
                if (
                    check[0] == "type"
                    and "." in payload
                    and not payload.startswith(("torch", "_API_", "_OWNER_"))
                ):
                    line = "import %s" % payload.rsplit(".", 1)[0]
                    if payload.rsplit(".", 1)[0] in sys.modules and line not in out["imports"]:
                        out["imports"].append(line)
    return out
