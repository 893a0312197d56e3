"""Tensors of other kinds as arguments: sparse (COO, CSR, CSC, BSR, BSC), nested, complex, integer, bool, quantized.

An API whose name, parameters, schema or failed call asks for a kind of tensor
(``crow_indices``, ``torch.sparse.sum``, ``torch._nested_from_padded``, "expected
sparse", "nested") is called here with tensors of that kind from ``KIND_POOLS``
(source with the ``DEVICE`` placeholder, each with its matrix worked out by
hand) and the result is observed kind-aware: layout, shape, dtype, the dense
matrix of a sparse result, the components of a nested one, ``int_repr`` and
scale of a quantized one. Where the API has a dense counterpart
(``torch.sparse.sum`` and ``torch.sum``) that gives the same values on the
densified arguments, that is kept as an independent fact.

The tables of kinds and what asks for them are in ``kind_pools.py``, the checks of a result of any
kind in ``kind_checks.py``; the names other modules read are importable from here too.

Stdlib only apart from torch; Python 3.8.
"""

from __future__ import annotations

import re
import signal
import time
import warnings
from types import FrameType
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, cast

from ..protocol import Json, TorchModule
from .kind_checks import (
    MAX_ITEMS,
    Check,
    _dense_of,
    _result_kind,
    _tensor_checks,
    _torch_name,
)
from .kind_pools import (
    _TENSOR_NAMED,
    INVALID,
    KIND_POOLS,
    TYPE_VALUES,
    kinds_in_error,
    kinds_in_name,
    words,
)
from .literal import NotLiteral, error_text, exc_name, literal
from .names import guess
from .params import (
    args_src,
    doc_signature,
    ordered_product,
    param_list,
    params_from_error,
    params_from_text,
)
from .recipes.arguments import NAME_VALUES
from .recipes.layout import KIND_RESERVED, OUT, RECEIVER_PARAMS
from .recipes.tensor_kinds import NO_DENSE_COUNTERPART
from .schema_probe import KindScenario, KindsFacts

__all__ = [
    "BUDGET",
    "CALL_TIMEOUT",
    "DENSE_BUDGET",
    "INVALID",
    "KIND_POOLS",
    "KindProbe",
    "MAX_FOUND",
    "MAX_ITEMS",
    "MAX_SCENARIOS",
    "NAME_VALUES",
    "TYPE_VALUES",
    "kind_facts",
    "kinds_in_error",
    "kinds_in_name",
    "words",
]

BUDGET = 15.0
DENSE_BUDGET = 3.0
CALL_TIMEOUT = 3.0
MAX_SCENARIOS = 3
MAX_FOUND = 8

#: a value tried: (source, the dense value by hand, its kind; "" for a value not a tensor of a kind)
Entry = Tuple[str, str, str]


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Optional[FrameType]) -> None:
    raise _Timeout("the call did not return within %.0f s" % CALL_TIMEOUT)


def _schemas(torch: TorchModule, obj: Any, leaf: str) -> List[List[Json]]:
    """Parameter lists of the ATen operator the API is (a packet's overloads, or ``aten::leaf``)."""
    out: List[List[Json]] = []
    packet = obj if hasattr(obj, "overloads") and callable(obj.overloads) else None
    if packet is not None:
        for name in packet.overloads()[:4]:
            listed = param_list(getattr(packet, name), "")
            if listed:
                out.append(listed)
    try:
        schemas = torch._C._jit_get_schemas_for_operator("aten::" + leaf) if packet is None else []
    except Exception:
        schemas = []
    for schema in schemas[:4]:
        if schema.overload_name.endswith(OUT):
            continue
        params: List[Json] = []
        for a in schema.arguments:
            text = str(a.type)
            params.append(
                {
                    "name": a.name,
                    "kind": "keyword" if a.kwarg_only else "positional",
                    "has_default": a.default_value is not None or text.endswith("?"),
                    "default_bool": isinstance(a.default_value, bool),
                    "annotation": text,
                }
            )
        out.append(params)
    return out


class KindProbe(object):
    def __init__(self, torch: TorchModule, res: Json, obj: Any, owner: Any) -> None:
        self.torch = torch
        self.res = res
        self.obj = obj
        self.owner = owner
        self.deadline = time.monotonic() + BUDGET
        self.errors: List[str] = []
        #: a property of a tensor: read from the receiver (``x.is_sparse``)
        leaf = res.get("path", "").rsplit(".", 1)[-1]
        self.prop = (
            leaf
            if res.get("kind") == "property"
            and isinstance(owner, type)
            and issubclass(owner, torch.Tensor)
            and re.match(r"^[A-Za-z_]\w*$", leaf)
            else ""
        )
        #: whole messages of failed calls (the kinds a backend list names are past the first line)
        self.messages: List[str] = []

    def run(self, setup: Sequence[str], call: str) -> Tuple[Json, Any]:
        """(namespace, value) of a fresh run on the CPU; raises what the call raises."""
        ns = {"torch": self.torch, "DEVICE": self.torch.device("cpu"), "_API_": self.obj}
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, CALL_TIMEOUT)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for line in setup:
                    exec(compile(line, "<setup>", "exec"), ns)
                value = eval(compile(call, "<call>", "eval"), ns)
            return ns, value
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)

    def params(self) -> List[List[Json]]:
        obj, leaf = self.obj, self.res["path"].rsplit(".", 1)[-1]
        if self.prop:
            return [[]]
        found = _schemas(self.torch, obj, leaf)
        plain = param_list(obj, self.res.get("signature") or "")
        if plain is None:
            plain = params_from_text(doc_signature(obj))
        if plain:
            found.append(plain)
        if not found:
            try:
                self.run([], "_API_()")
            except Exception as exc:
                found = params_from_error(str(exc))
            else:
                found = [[]]
        out: List[List[Json]] = []
        for ps in found:
            ps = [p for p in ps if p["kind"] != "var"]
            for p in ps:  # an optional argument may be left out
                ann = str(p.get("annotation") or "")
                if ann.startswith("Optional[") or ann.endswith("?"):
                    p["has_default"] = True
            if self.owner is not None and ps and ps[0]["name"] in RECEIVER_PARAMS:
                ps = ps[1:]
            if ps not in out:
                out.append(ps)
        return out

    def tensors(self, kinds: Sequence[str]) -> List[Entry]:
        """The kinds' tensors, the first of each kind first, then the dense ones."""
        out: List[Entry] = []
        dense = (
            [entry + ("dense",) for entry in KIND_POOLS["dense"]] if "dense" not in kinds else []
        )
        for rank in range(max(len(KIND_POOLS[k]) for k in KIND_POOLS)):
            for kind in kinds:
                pool = KIND_POOLS.get(kind, ())
                if rank < len(pool) and (pool[rank] + (kind,)) not in out:
                    out.append(pool[rank] + (kind,))
            if rank == 0:
                out += dense[:1]
        return out + dense[1:]

    def values_for(self, p: Json, kinds: Sequence[str]) -> List[Entry]:
        name, ann = p["name"], p.get("annotation") or ""
        by_name = guess(name, NAME_VALUES)
        if by_name:
            values = NAME_VALUES[by_name]
            out = [(v, "", "") for v in values if v != "_KINDS_"]
            return out + (self.tensors(kinds)[:6] if "_KINDS_" in values else [])
        if (
            not ann
            or re.search(r"Tensor\b(?!\[)", ann)
            and not re.search(r"List\[Tensor|Tensor\[\]", ann)
        ):
            if not ann and not guess(name, _TENSOR_NAMED):
                return [(v, "", "") for v in ("0", "(2, 3)")] + self.tensors(kinds)[:4]
            return self.tensors(kinds)
        for pattern, values in TYPE_VALUES:
            if re.search(pattern, ann):
                return [(v, "", "") for v in values]
        return [("None", "", "")]

    def scenarios(self, kinds: List[str]) -> List[KindScenario]:
        """Up to MAX_SCENARIOS measured calls with tensors of the kinds (or giving one): one against the
        dense operator where any is, then as many kinds as work, then other values."""
        found: List[KindScenario] = []
        seen: Set[Any] = set()
        receiver = self.owner is not None and self.res.get("kind") in ("method", "property")
        for params in self.params():
            required = [p for p in params if not p["has_default"]]
            lists = [self.values_for(p, kinds) for p in required]
            if receiver:
                lists.insert(0, self.tensors(kinds))
            width = {0: 1, 1: 12, 2: 8}.get(len(lists), 4)
            lists = [lst[:width] for lst in lists]
            for combo in ordered_product(lists, 40):
                if time.monotonic() > self.deadline or len(found) >= MAX_FOUND:
                    break
                kind = next((c[2] for c in combo if c[2] and c[2] != "dense"), "")
                if (
                    kinds == ["dense"] or not kind
                ):  # dense arguments: kept if the result is of a kind
                    kind = "dense"
                if kind == "dense" and kind in seen:
                    continue
                sc = self.measure(combo, required, receiver)
                if sc and kind == "dense" and kinds != ["dense"]:
                    kind = _result_kind(sc["checks"]) or ("dense" if sc.get("raises") else "")
                if sc and kind and (kind, str(sc["checks"])) not in seen:
                    seen.add((kind, str(sc["checks"])))
                    seen.add(kind)
                    sc["kind"] = kind
                    found.append(sc)
        return _chosen(found)

    def measure(
        self, combo: Sequence[Entry], required: List[Json], receiver: bool
    ) -> Optional[KindScenario]:
        setup: List[str] = []
        args: List[str] = []
        taken: Set[str] = set()
        hands: Dict[str, Tuple[str, str]] = {}
        names = (["x"] if receiver else []) + [p["name"] for p in required]
        for name, (src, hand, kind) in zip(names, combo):
            if kind:
                var = _var(name, taken)
                setup.append("%s = %s" % (var, src))
                args.append(var)
                hands[var] = (hand, kind)
            else:
                args.append(src)
        params = (
            [{"name": "x", "kind": "positional", "has_default": False}] if receiver else []
        ) + required
        call = "x.%s" % self.prop if self.prop else "_API_(%s)" % args_src(params, args)
        got: List[List[Check]] = []
        for _ in range(2):
            try:
                ns, value = self.run(setup, call)
                checks = self.observe(value, "result", ns, setup)
            except Exception as exc:
                self.errors.append(error_text(exc))
                self.messages.append(str(exc)[:4000])
                return None
            if checks is None:
                return None
            got.append(checks)
        if got[0] != got[1] or not got[0]:
            return None
        # each hand is a pair (values, kind): a JSON array as the protocol sends it
        sc: KindScenario = {
            "setup": setup,
            "call": call,
            "checks": got[0],
            "hand": cast(Dict[str, List[str]], hands),
        }
        # the arguments whose value is a guess by the parameter's name (``names.guess``)
        sc["guessed"] = [
            p["name"]
            for p, (src, _, _) in zip(required, combo[len(names) - len(required) :])
            if src in NAME_VALUES.get(guess(p["name"], NAME_VALUES), ())
        ]
        if got[0] == [
            ["is", "result", "None"]
        ]:  # a check of its arguments: only with a call it refuses
            refused = self.refused(setup, args, params)
            if not refused:
                return None
            sc["raises"] = refused
        dense = self.counterpart(setup, args, params, ns, value)
        if dense:
            sc["counterpart"] = dense
        return sc

    def observe(
        self, value: Any, expr: str, ns: Json, setup: Sequence[str]
    ) -> Optional[List[Check]]:
        """Kind-aware checks of a result (None: nothing a test can hold)."""
        torch = self.torch
        named = dict((id(ns[v]), v) for v in (line.split(" = ", 1)[0] for line in setup) if v in ns)
        if (
            value is None
        ):  # an in-place call: what it did to its tensors; else a check of its arguments
            out = [["is", expr, "None"]]
            for var in named.values():
                out += _tensor_checks(torch, ns[var], var) or []
            return out if len(out) > 1 and self._changed(setup, ns) else [["is", expr, "None"]]
        if id(value) in named:
            if self.res.get("path", "").endswith("_") and not self._changed(setup, ns):
                return None  # an in-place call that changed nothing here shows nothing
            return [["same", expr, named[id(value)]]] + (
                _tensor_checks(torch, value, named[id(value)]) or []
            )
        if isinstance(value, (bool, int)):
            return [["eq" if not isinstance(value, bool) else "is", expr, repr(value)]]
        if isinstance(value, float):
            return [["float", expr, literal(value, torch)]]
        if isinstance(value, torch.Tensor):
            return _tensor_checks(torch, value, expr)
        named_value = _torch_name(torch, value)
        if named_value:  # a layout, a qscheme, a memory format: torch's own name for it
            return [["is", expr, named_value]]
        if (
            not isinstance(value, (torch.Tensor, tuple, list))
            or isinstance(value, (tuple, list))
            and not any(isinstance(v, torch.Tensor) for v in value)
        ):
            try:
                return [["eq", expr, literal(value, torch)]]
            except NotLiteral:
                return None
        if (
            isinstance(value, (tuple, list))
            and value
            and all(isinstance(v, torch.Tensor) for v in value)
        ):
            out = [["eq", "len(%s)" % expr, str(len(value))]]
            for i, item in enumerate(value[:MAX_ITEMS]):
                more = _tensor_checks(torch, item, "%s[%d]" % (expr, i))
                if more is None:
                    return None
                out += more
            return out
        return None

    def refused(
        self, setup: Sequence[str], args: List[str], params: List[Json]
    ) -> Optional[List[str]]:
        """``[call, exception]`` of the same call with one argument that breaks an invariant, raising alike
        twice; None when no such argument is known or the call takes it."""
        for i, a in enumerate(args):
            bad = INVALID.get(a)
            if bad is None:
                continue
            call = "_API_(%s)" % args_src(params, args[:i] + [bad] + args[i + 1 :])
            names: Set[str] = set()
            for _ in range(2):
                try:
                    self.run(setup, call)
                except Exception as exc:
                    names.add(exc_name(exc))
                else:
                    return None
            if len(names) == 1 and "_Timeout" not in names:
                return [call, names.pop()]
        return None

    def _changed(self, setup: Sequence[str], ns: Json) -> bool:
        """Whether the call changed one of its tensors (against a fresh build of it)."""
        _, fresh = self.run(setup, "[%s]" % ", ".join(line.split(" = ", 1)[0] for line in setup))
        now = [ns[line.split(" = ", 1)[0]] for line in setup]
        for a, b in zip(fresh, now):
            if _tensor_checks(self.torch, a, "t") != _tensor_checks(self.torch, b, "t"):
                return True
        return False

    def counterpart(
        self, setup: Sequence[str], args: List[str], params: List[Json], ns: Json, value: Any
    ) -> str:
        """``torch.<op>`` on the densified arguments, when it gives the result's dense values here."""
        torch = self.torch
        leaf = self.res["path"].rsplit(".", 1)[-1]
        op = re.sub(r"^_?(sparse_)?", "", leaf)
        if (
            not isinstance(value, torch.Tensor)
            or not hasattr(torch, op)
            or op.startswith("_")
            or op in NO_DENSE_COUNTERPART
        ):
            return ""
        dense_args: List[str] = []
        for a in args:
            v = ns.get(a) if isinstance(a, str) else None
            if isinstance(v, torch.Tensor) and (v.layout != torch.strided or v.is_nested):
                if v.is_nested:
                    return ""
                dense_args.append("%s.cpu().to_dense()" % a)
            else:
                dense_args.append(a)
        if dense_args == list(args):
            return ""
        src = "torch.%s(%s)" % (op, args_src(params, dense_args))
        try:
            _, want = self.run(setup, src)
            got = _dense_of(torch, value)
            if (
                not isinstance(want, torch.Tensor)
                or want.shape != got.shape
                or not torch.allclose(want.double(), got.double(), rtol=1e-5, atol=1e-6)
            ):
                return ""
        except Exception:
            return ""
        return src


def _chosen(found: List[KindScenario]) -> List[KindScenario]:
    """One call against the dense operator (if any), then one of each kind, then the rest, in order."""
    out = [sc for sc in found if sc.get("counterpart")][:1]
    kinds = set(sc["kind"] for sc in out)
    for sc in found:
        if sc not in out and sc["kind"] not in kinds:
            out.append(sc)
            kinds.add(sc["kind"])
    out += [sc for sc in found if sc not in out]
    return out[:MAX_SCENARIOS]


def _var(name: str, taken: Set[str]) -> str:
    base = re.sub(r"[^a-z0-9_]", "_", name.lower()).strip("_") or "arg"
    if base in KIND_RESERVED:
        base = "x" if "x" not in taken else "arg_" + base
    var, n = base, 2
    while var in taken:
        var, n = "%s_%d" % (base, n), n + 1
    taken.add(var)
    return var


def kind_facts(torch: TorchModule, res: Json, obj: Any, owner: Any) -> KindsFacts:
    """``{"found", "kinds", "scenarios", "problem"}``: the API called with tensors of the kinds it asks for."""
    names = [res.get("path", ""), res.get("canonical", "")] + list(res.get("aliases", []))
    kinds: List[str] = []
    for name in names:
        kinds += [k for k in kinds_in_name(name) if k not in kinds]
    probe = KindProbe(torch, res, obj, owner)
    if isinstance(obj, type) or not (callable(obj) or probe.prop):
        return {
            "found": False,
            "kinds": kinds,
            "problem": "not a function, method or tensor property",
        }
    try:
        params = probe.params()
    except Exception as exc:
        return {"found": False, "kinds": kinds, "problem": "no parameters: %s" % error_text(exc)}
    for ps in params:
        for p in ps:
            kinds += [
                k
                for k in kinds_in_name(p["name"]) + kinds_in_name(p.get("annotation") or "")
                if k not in kinds and k not in ("int", "bool")
            ]
    python = hasattr(obj, "__code__") or hasattr(getattr(obj, "__wrapped__", None), "__code__")
    risky = re.search(
        r"crash|abort|exit|kill|shutdown|destroy|(^|_)set_|free|release|reset|sleep|wait",
        res.get("path", "").rsplit(".", 1)[-1],
    )
    if (
        not kinds and not python and not risky
    ):  # a dense call's error may ask for a kind (a short look)
        probe.deadline = time.monotonic() + DENSE_BUDGET
        probe.scenarios(["dense"])
        probe.deadline = time.monotonic() + BUDGET
        for message in probe.messages:
            kinds += [k for k in kinds_in_error(message) if k not in kinds]
    if not kinds:
        return {
            "found": False,
            "kinds": [],
            "problem": "neither its name, its parameters nor a failed call "
            "asks for a sparse, nested, complex or quantized tensor",
        }
    found = probe.scenarios(kinds)
    if not found:
        more: List[str] = []
        for message in probe.messages:
            more += [k for k in kinds_in_error(message) if k not in kinds + more]
        if more:
            found = probe.scenarios(more)
            kinds += more
    if not found:
        return {
            "found": False,
            "kinds": kinds,
            "problem": "no call with %s tensors gave a result a test can hold "
            "(%s)" % ("/".join(kinds), (probe.errors or ["nothing ran"])[-1]),
        }
    return {"found": True, "kinds": kinds, "scenarios": found}
