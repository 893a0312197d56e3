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

Stdlib only apart from torch; Python 3.8.
"""

from __future__ import annotations

import re
import signal
import time
import warnings
from types import FrameType
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..protocol import Json, TorchModule
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

BUDGET = 15.0
DENSE_BUDGET = 3.0
CALL_TIMEOUT = 3.0
MAX_SCENARIOS = 3
MAX_FOUND = 8
MAX_ITEMS = 4

_DENSE = "[[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]"
_BLOCK = "torch.tensor([[[1.0, 2.0], [3.0, 4.0]]])"
#: a check a test repeats: [kind, expression, payload source]
Check = List[str]
#: a value tried: (source, the dense value by hand, its kind; "" for a value not a tensor of a kind)
Entry = Tuple[str, str, str]

#: kind -> [(source, the dense value by hand)]; sources see ``torch`` and ``DEVICE``
KIND_POOLS: Dict[str, List[Tuple[str, str]]] = {
    "sparse_coo": [
        (
            "torch.sparse_coo_tensor(torch.tensor([[0, 0, 1], [0, 2, 2]]), torch.tensor([1.0, 2.0, 3.0]), (2, 3), "
            "device=DEVICE, is_coalesced=True)",
            _DENSE,
        ),
        # the same matrix, indices out of order and not coalesced
        (
            "torch.sparse_coo_tensor(torch.tensor([[1, 0, 0], [2, 2, 0]]), torch.tensor([3.0, 2.0, 1.0]), (2, 3), "
            "device=DEVICE)",
            _DENSE,
        ),
        # every entry specified
        (
            "torch.sparse_coo_tensor(torch.tensor([[0, 0, 1, 1], [0, 1, 0, 1]]), torch.tensor([1.0, 2.0, 3.0, 4.0]), "
            "(2, 2), device=DEVICE, is_coalesced=True)",
            "[[1.0, 2.0], [3.0, 4.0]]",
        ),
        # another shape: one entry of a 3 x 4 matrix
        (
            "torch.sparse_coo_tensor(torch.tensor([[2], [3]]), torch.tensor([7.0]), (3, 4), device=DEVICE)",
            "[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 7.0]]",
        ),
    ],
    "sparse_csr": [
        (
            "torch.sparse_csr_tensor(torch.tensor([0, 2, 3]), torch.tensor([0, 2, 2]), torch.tensor([1.0, 2.0, 3.0]), "
            "(2, 3), device=DEVICE)",
            _DENSE,
        ),
    ],
    "sparse_csc": [
        (
            "torch.sparse_csc_tensor(torch.tensor([0, 1, 1, 3]), torch.tensor([0, 0, 1]), torch.tensor([1.0, 2.0, 3.0]), "
            "(2, 3), device=DEVICE)",
            _DENSE,
        ),
    ],
    "sparse_bsr": [
        (
            "torch.sparse_bsr_tensor(torch.tensor([0, 1]), torch.tensor([1]), %s, (2, 4), device=DEVICE)"
            % _BLOCK,
            "[[0.0, 0.0, 1.0, 2.0], [0.0, 0.0, 3.0, 4.0]]",
        ),
    ],
    "sparse_bsc": [
        (
            "torch.sparse_bsc_tensor(torch.tensor([0, 1]), torch.tensor([1]), %s, (4, 2), device=DEVICE)"
            % _BLOCK,
            "[[0.0, 0.0], [0.0, 0.0], [1.0, 2.0], [3.0, 4.0]]",
        ),
    ],
    "nested": [
        (
            "torch.nested.nested_tensor([torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0])], device=DEVICE)",
            "[[1.0, 2.0, 3.0], [4.0, 5.0]]",
        ),
        (
            "torch.nested.nested_tensor([torch.arange(6.0).reshape(3, 2), torch.arange(2.0).reshape(1, 2)], "
            "device=DEVICE)",
            "[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], [[0.0, 1.0]]]",
        ),
    ],
    "complex": [
        (
            "torch.tensor([1.0 + 2.0j, -3.0 + 0.5j, 0.0 - 1.0j], device=DEVICE)",
            "[1+2j, -3+0.5j, -1j]",
        ),
    ],
    "int": [
        ("torch.tensor([5, -3, 0, 12], device=DEVICE)", "[5, -3, 0, 12]"),
    ],
    "bool": [
        ("torch.tensor([True, False, True], device=DEVICE)", "[True, False, True]"),
    ],
    # quantized on the CPU: a device backend is not assumed to quantize
    "quantized": [
        (
            "torch.quantize_per_tensor(torch.tensor([0.5, 1.0, -1.5]), 0.5, 4, torch.quint8)",
            "[0.5, 1.0, -1.5]",
        ),
        (
            "torch.quantize_per_channel(torch.tensor([[0.5, 1.0], [-1.5, 2.0]]), torch.tensor([0.5, 0.25]), "
            "torch.tensor([0, 1]), 0, torch.qint8)",
            "[[0.5, 1.0], [-1.5, 2.0]]",
        ),
    ],
    # a fake-quantize module with its observer and fake quantization switched off, and one as built
    "quant_module": [
        (
            "(lambda m: (m.disable_observer(), m.disable_fake_quant(), m)[-1])(torch.ao.quantization.FakeQuantize())",
            "",
        ),
        ("torch.ao.quantization.FakeQuantize()", ""),
    ],
    "dense": [
        ("torch.tensor(%s, device=DEVICE)" % _DENSE, _DENSE),
        (
            "torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=DEVICE)",
            "[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]",
        ),
        (
            "torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 0.0]], device=DEVICE)",
            "[[1.0, 2.0, 3.0], [4.0, 5.0, 0.0]]",
        ),
        (
            "torch.arange(12.0, device=DEVICE).reshape(2, 3, 2)",
            "[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], [[6.0, 7.0], [8.0, 9.0], [10.0, 11.0]]]",
        ),
    ],
}
SPARSE = ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")

#: a word of the API's name (split at dots, underscores and case) -> the kinds it asks for. Whole words
#: only: "int" is not "internal", "coo" is not "coordinate", "col" alone (a column) asks for nothing
WORD_KINDS = {
    "sparse": SPARSE,
    "coo": ("sparse_coo",),
    "coalesce": ("sparse_coo",),
    "coalesced": ("sparse_coo",),
    "csr": ("sparse_csr",),
    "crow": ("sparse_csr", "sparse_bsr"),
    "csc": ("sparse_csc",),
    "ccol": ("sparse_csc", "sparse_bsc"),
    "bsr": ("sparse_bsr",),
    "bsc": ("sparse_bsc",),
    "indices": ("sparse_coo",),
    "values": ("sparse_coo", "sparse_csr"),
    "dense": SPARSE + ("nested",),
    "nested": ("nested",),
    "jagged": ("nested",),
    "padded": ("nested",),
    "complex": ("complex",),
    "cfloat": ("complex",),
    "imag": ("complex",),
    "conj": ("complex",),
    "quantize": ("quantized",),
    "q": ("quantized",),
    "dequantize": ("quantized",),
    "quantized": ("quantized",),
    "qscheme": ("quantized",),
    "quantization": ("quantized", "quant_module"),
    "observer": ("quant_module",),
    "bitwise": ("int", "bool"),
    "bool": ("bool",),
    "logical": ("bool",),
    "int": ("int",),
}
#: two words together (``col_indices``, ``row_indices``)
PAIR_KINDS: Dict[Tuple[str, ...], Tuple[str, ...]] = {
    ("col", "indices"): ("sparse_csr", "sparse_bsr"),
    ("row", "indices"): ("sparse_csc", "sparse_bsc"),
    ("int", "repr"): ("quantized",),
    ("per", "channel"): ("quantized",),
    ("fake", "quant"): ("quant_module",),
    ("q", "scale"): ("quantized",),
    ("q", "zero"): ("quantized",),
}
#: what a failed call's message asks for
ERROR_KINDS = (
    (r"[Ss]parse ?[Cc]sr|sparse_csr|\bCSR\b|(?<!block )row compressed", ("sparse_csr",)),
    (r"sparse_csc|\bCSC\b|(?<!block )column compressed", ("sparse_csc",)),
    (r"sparse_bsr|\bBSR\b|block row", ("sparse_bsr",)),
    (r"sparse_bsc|\bBSC\b|block column", ("sparse_bsc",)),
    (r"[Ss]parse|\bCOO\b", SPARSE),
    (r"[Nn]ested", ("nested",)),
    (r"[Cc]omplex", ("complex",)),
    (r"[Qq]uantized|QuantizedCPU", ("quantized",)),
    (r"[Ii]nteger|\bLong\b|\bInt\b", ("int",)),
    (r"Boolean|\bBool\b", ("bool",)),
)
#: what a parameter's name suggests (``names.guess``) -> values for it (sources); tensors come from the kinds
NAME_VALUES = {
    "dense_tensor_list": (
        "[torch.tensor([1.0, 2.0, 3.0], device=DEVICE), torch.tensor([4.0, 5.0], device=DEVICE)]",
    ),
    "dim": ("0", "1", "-1"),
    "module_of_kind": ("_KINDS_",),
    "block_size": ("(1, 1)", "(2, 2)"),
    "dense_size": ("(2, 2, 3)", "(2, 3)", "(3, 4)"),
    "nested_sizes": ("torch.tensor([[3], [2]])", "torch.tensor([[3, 2], [1, 2]])"),
    "fill_value": ("0.0", "-1.0"),
    "mask": (
        "torch.tensor([[True, True, True], [True, False, False]], device=DEVICE)",
        "torch.tensor([[True, False, True], [False, False, True]], device=DEVICE)",
        "_KINDS_",
    ),
    "indices": ("torch.tensor([[0, 0, 1], [0, 2, 2]], device=DEVICE)",),
    "sparse_values": ("torch.tensor([1.0, 2.0, 3.0], device=DEVICE)",),
    "wider_dtype": ("torch.float64",),
    "quant_scale": ("0.5",),
    "zero_point": ("4",),
}
#: the category of ``names.NAME_TABLE`` of the names a tensor goes by
_TENSOR_NAMED = ("tensor_named",)
#: an argument -> one that breaks an invariant (an index out of the matrix)
INVALID = {
    "torch.tensor([[0, 0, 1], [0, 2, 2]], device=DEVICE)": "torch.tensor([[0, 0, 5], [0, 2, 2]], device=DEVICE)",
}
TYPE_VALUES = (
    (
        r"List\[Tensor|Tensor\[\]|tuple of Tensors",
        (
            "[torch.tensor([1.0, 2.0, 3.0], device=DEVICE), "
            "torch.tensor([4.0, 5.0], device=DEVICE)]",
        ),
    ),
    (r"Tensor", ()),
    (r"^int|SymInt$", ("0", "1")),
    (r"Size|int\[", ("(2, 2, 3)", "(2, 3)")),
    (r"float|Scalar|Number", ("0.0", "1.0")),
    (r"bool", ("False", "True")),
    (r"dtype|ScalarType", ("torch.float64",)),
)


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Optional[FrameType]) -> None:
    raise _Timeout("the call did not return within %.0f s" % CALL_TIMEOUT)


def words(name: str) -> List[str]:
    """``torch.Tensor.crow_indices`` -> ["torch", "tensor", "crow", "indices"]."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", text.lower()) if w]


def kinds_in_name(name: str) -> List[str]:
    ws = words(name)
    out: List[str] = []
    for i, w in enumerate(ws):
        pair = tuple(ws[i : i + 2])
        for kind in PAIR_KINDS.get(pair, ()) + WORD_KINDS.get(w, ()):
            if kind not in out:
                out.append(kind)
    return out


def kinds_in_error(message: str) -> List[str]:
    out: List[str] = []
    for pattern, kinds in ERROR_KINDS:
        if re.search(pattern, message or ""):
            out += [k for k in kinds if k not in out]
    return out


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
        if schema.overload_name.endswith("out"):
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
            if self.owner is not None and ps and ps[0]["name"] in ("self", "cls", "input"):
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

    def scenarios(self, kinds: List[str]) -> List[Json]:
        """Up to MAX_SCENARIOS measured calls with tensors of the kinds (or giving one): one against the
        dense operator where any is, then as many kinds as work, then other values."""
        found: List[Json] = []
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
    ) -> Optional[Json]:
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
        sc: Json = {"setup": setup, "call": call, "checks": got[0], "hand": hands}
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
            or op in ("to_dense", "to_sparse", "coalesce", "values", "indices")
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


def _torch_name(torch: TorchModule, value: Any) -> str:
    """``torch.per_tensor_affine`` for a value torch names at its top level (not a number, str or tensor)."""
    if isinstance(value, (bool, int, float, str, tuple, list, dict, torch.Tensor)) or value is None:
        return ""
    name = str(value).rsplit(".", 1)[-1]
    if re.match(r"^[a-z_][a-z0-9_]*$", name) and getattr(torch, name, None) is value:
        return "torch." + name
    return ""


def _chosen(found: List[Json]) -> List[Json]:
    """One call against the dense operator (if any), then one of each kind, then the rest, in order."""
    out = [sc for sc in found if sc.get("counterpart")][:1]
    kinds = set(sc["kind"] for sc in out)
    for sc in found:
        if sc not in out and sc["kind"] not in kinds:
            out.append(sc)
            kinds.add(sc["kind"])
    out += [sc for sc in found if sc not in out]
    return out[:MAX_SCENARIOS]


def _result_kind(checks: List[Check]) -> str:
    """The kind of a measured result, from its checks ("" for a dense one)."""
    for check in checks:
        if check[1].endswith(".is_nested"):
            return "nested"
        if check[1].endswith(".layout"):
            return check[2].replace("torch.", "")
        if check[1].endswith(".q_scale()"):
            return "quantized"
        if check[1].endswith(".dtype") and "complex" in check[2]:
            return "complex"
    return ""


def _var(name: str, taken: Set[str]) -> str:
    base = re.sub(r"[^a-z0-9_]", "_", name.lower()).strip("_") or "arg"
    if base in ("self", "input", "torch", "result", "cls"):
        base = "x" if "x" not in taken else "arg_" + base
    var, n = base, 2
    while var in taken:
        var, n = "%s_%d" % (base, n), n + 1
    taken.add(var)
    return var


def _dense_of(torch: TorchModule, t: Any) -> Any:
    if t.is_nested:
        raise NotLiteral("nested")
    if t.layout != torch.strided:
        return t.to_dense().cpu()
    return t.detach().cpu()


def _lit(torch: TorchModule, t: Any) -> str:
    data = t.detach().cpu()
    if data.numel() > 24:
        raise NotLiteral("tensor")
    if data.dtype in (torch.bfloat16, torch.float16):
        data = data.float()
    return "torch.tensor(%s, dtype=%s)" % (literal(data.tolist(), torch), literal(t.dtype, torch))


def _module_checks(torch: TorchModule, m: Any, expr: str) -> Optional[List[Check]]:
    """A module's small buffers (a fake-quantize module's switches, scale and observed range)."""
    out: List[Check] = []
    for name, buf in list(m.named_buffers())[:8]:
        if buf.numel() <= 4 and re.match(r"^[A-Za-z_][\w.]*$", name):
            out.append(["tensor", "%s.%s" % (expr, name), _lit(torch, buf)])
    return out or None


def _tensor_checks(torch: TorchModule, t: Any, expr: str) -> Optional[List[Check]]:
    """Checks of one tensor of any kind, or None when it holds too much to write out."""
    if isinstance(t, torch.nn.Module):
        try:
            return _module_checks(torch, t, expr)
        except (NotLiteral, RuntimeError, TypeError, ValueError):
            return None
    if not isinstance(t, torch.Tensor):
        return None
    try:
        out = [["eq", "%s.dtype" % expr, literal(t.dtype, torch)]]
        if t.is_quantized:
            out += [
                ["eq", "%s.shape" % expr, literal(t.shape, torch)],
                ["float", "%s.q_scale()" % expr, literal(float(t.q_scale()), torch)],
                ["eq", "%s.q_zero_point()" % expr, literal(int(t.q_zero_point()), torch)],
                ["tensor", "%s.int_repr()" % expr, _lit(torch, t.int_repr())],
            ]
            return out
        out.append(["eq", "%s.device.type" % expr, "DEVICE.type"])
        if t.is_nested:
            parts = t.unbind()
            out += [
                ["is", "%s.is_nested" % expr, "True"],
                ["eq", "len(%s.unbind())" % expr, str(len(parts))],
            ]
            for i, part in enumerate(parts[:MAX_ITEMS]):
                out.append(["tensor", "%s.unbind()[%d]" % (expr, i), _lit(torch, part)])
            return out
        out.append(["eq", "%s.shape" % expr, literal(t.shape, torch)])
        if t.layout != torch.strided:
            layout = str(t.layout)
            out.append(["is", "%s.layout" % expr, layout])
            if t.layout == torch.sparse_coo:
                out.append(["is", "%s.is_coalesced()" % expr, repr(bool(t.is_coalesced()))])
            out.append(["tensor", "%s.to_dense()" % expr, _lit(torch, t.to_dense())])
            return out
        out.append(["tensor", expr, _lit(torch, t)])
        return out
    except (NotLiteral, RuntimeError, TypeError, ValueError):
        return None


def kind_facts(torch: TorchModule, res: Json, obj: Any, owner: Any) -> Json:
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
