"""The arguments of a call: each parameter's candidate values, in the order of the value chain
(``names.py``), and the scenarios calling the API with them: a base call that works, calls varying
one argument at a time, and calls given an argument of no expected type (an invalid call).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from . import probe_values as pv
from .names import guess, spatial_dims
from .params import Param, args_src, doc_types, open_signature, ordered_product
from .receivers import Receivers
from .recipes import DISTRIBUTION_VALUES
from .recipes.layout import ARGUMENT_RESERVED
from .runner import Check, Scenario, Timeout

MAX_BASE_TRIES = 40
MAX_VALID = 4
MAX_INVALID = 2
#: argument source that is worth naming (so the call's effect on it can be checked)
_NAMED_ARG = re.compile(r"^(torch\.|\[|\(|\{|lambda)")
#: the categories of ``names.NAME_TABLE`` the chain reads besides the pools
_DISTRIBUTION_VALUE = ("distribution_value",)
_CONV_WEIGHT = ("conv_weight",)


class Arguments(Receivers):
    """Calls of the API (or a member) with candidate arguments, measured."""

    def call_scenarios(
        self, setup: List[str], target: str, fn: Any, receiver: str = "", holder: Any = None
    ) -> Tuple[List[Scenario], List[Scenario]]:
        """Valid and invalid scenarios calling ``target(...)`` (``fn``: the object called)."""
        for params in self.signatures(setup, target, fn):
            valid, invalid = self._call_scenarios(setup, target, fn, params, receiver, holder)
            if valid or self.out_of_time():
                return valid, invalid
        return [], []

    def _call_scenarios(
        self,
        setup: List[str],
        target: str,
        fn: Any,
        params: List[Param],
        receiver: str,
        holder: Any,
    ) -> Tuple[List[Scenario], List[Scenario]]:
        hints: Dict[str, str] = {}
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
                if asked and open_signature(
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

    def candidates(
        self,
        params: List[Param],
        i: int,
        doc: Dict[str, str],
        hints: Dict[str, str],
        made: Set[str],
        receiver: str,
        dims: int,
    ) -> Tuple[List[str], Set[str]]:
        """The values tried for ``params[i]``, most likely first, and those of them that are a guess by a
        name (the parameter's, or the API's spatial dims). In the order of the value chain: what a failed
        call asked for (the values it lists, the category it wants), what the receiver's setup made under
        the parameter's name, the values of the classes its annotation and docstring type name, the pools
        of their categories and of its default's, the pool its name suggests, then any."""
        p = params[i]
        name, annotation, doc_type = p["name"], p["annotation"], doc.get(p["name"])
        by_name = pv.name_category(
            name, pv.type_categories(annotation, doc_type, p["default_bool"])
        )
        cats = pv.categories(name, annotation, doc_type, p["default_bool"])
        if p["kind"] == "vararg":  # ``*primals``: each one a tensor, not a tuple of them
            cats = [c for c in cats if c != "tensor_tuple"] or list(pv.ANY)
        hint = hints.get(name) or hints.get("#%d" % (i + 1))
        chosen = [name] if name in made else []
        guessed: Set[str] = set()
        if (
            receiver
            and guess(name, _DISTRIBUTION_VALUE)
            and _is_distribution(self.torch, self.owner)
        ):
            own = [v.format(receiver) for v in DISTRIBUTION_VALUES]
            chosen += own
            guessed.update(own)
        if hint and hint.startswith("choice:"):
            chosen, hint = chosen + hint[len("choice:") :].split("|"), None
        if hint:
            cats = [hint] + [c for c in cats if c != hint]
        spatial = ""
        if cats[:1] == ["tensor"] and dims and i == 0:  # the input of a pool2d, a conv3d
            spatial = pv.spatial_input(dims)
        elif (
            cats[:1] == ["tensor"] and dims and guess(name, _CONV_WEIGHT)
        ):  # a conv's: 2 in, 2 out, 2-wide
            spatial = pv.conv_weight(dims)
        elif cats[:1] == ["size"] and dims:  # its kernel size, stride, padding: one per spatial dim
            spatial = "(%s)" % ", ".join(["2"] * dims)
        if spatial:
            chosen = chosen + [spatial]
            guessed.add(spatial)
        typed = self.typed_values(annotation) + self.typed_values(doc.get(name, ""))
        values = chosen + typed
        values += [v for v in pv.values_for(cats) if v not in values]
        values = pv.narrowed_first(
            pv.with_extra(pv.outer_first(pv.unique(values), annotation), cats), cats
        )
        if (
            by_name and by_name in cats and by_name != hint
        ):  # the pool its name suggests, and no other
            others = set(chosen + typed + pv.outer_first([], annotation))
            for cat in cats:
                if cat != by_name:
                    others.update(pv.POOLS.get(cat, ()) + pv.EXTRA_POOLS.get(cat, ()))
            pool = pv.POOLS.get(by_name, ()) + pv.EXTRA_POOLS.get(by_name, ())
            guessed.update(v for v in pool if v not in others)
        return values, guessed & set(values)

    def _call_scenarios_once(
        self,
        setup: List[str],
        target: str,
        fn: Any,
        params: List[Param],
        receiver: str,
        holder: Any,
        hints: Dict[str, str],
    ) -> Tuple[List[Scenario], List[Scenario]]:
        doc = doc_types(getattr(fn, "__doc__", None))
        pools: List[List[str]] = []
        guesses: List[Set[str]] = []
        keys = self._receiver_keys(setup) if receiver else []
        # named for its dims, or a method of a class that is (``ConvBnReLU2d.forward``)
        dims = spatial_dims(str(getattr(fn, "__name__", "") or "")) or spatial_dims(
            str(self.res.get("path", "")).rsplit(".", 1)[-1]
        )
        # what the receiver's setup made under a parameter's name is that parameter's first value (the module
        # a pruning method was applied to, for its ``remove(module)``)
        made = set(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*) =", "\n".join(setup), re.M)) - set(
            [receiver]
        )
        for i in range(len(params)):
            pool, guessed = self.candidates(params, i, doc, hints, made, receiver, dims)
            if holder is not None and i == 0:
                pool = ['"torchparity_probe"'] + pool
            elif self.lead_values and i == 0:
                pool = self.lead_values + [v for v in pool if v not in self.lead_values]
            elif keys and i == 0:
                pool = keys + [v for v in pool if v not in keys]
            pools.append(pool)
            guesses.append(guessed)
        required = [
            i for i, p in enumerate(params) if not p["has_default"] or "+" + p["name"] in hints
        ]
        width = {0: 1, 1: 8, 2: 4}.get(len(required), 2)
        lists = [pools[i][:width] for i in required]
        base: Optional[List[Optional[str]]] = None
        base_sc: Optional[Scenario] = None
        values: List[Optional[str]]
        for combo in ordered_product(lists, MAX_BASE_TRIES):
            if self.out_of_time():
                break
            values = [None] * len(params)
            for k, i in enumerate(required):
                values[i] = combo[k]
            sc = self._call(setup, target, params, values, receiver, guesses)
            if self.measure(sc):
                if base is None:
                    base, base_sc = values, sc
                if rich(sc.checks):  # values, not only identities and types
                    base, base_sc = values, sc
                    break
        if base is None or base_sc is None:
            return [], []
        valid: List[Scenario] = [base_sc]
        invalid: List[Scenario] = []
        seen = set([str(base_sc.checks)])
        for i, p in enumerate(params):
            if len(valid) >= MAX_VALID or self.out_of_time():
                break
            for v in pools[i][:3]:
                if v == base[i]:
                    continue
                values = list(base)
                values[i] = v
                sc = self._call(setup, target, params, values, receiver, guesses)
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
            sc = self._call(setup, target, params, values, receiver, guesses)
            raised = self.raises_same(sc)
            if raised and raised not in (Timeout.__name__,):
                sc.raises = raised
                sc.varies = p["name"]
                invalid.append(sc)
        return valid, invalid

    def _call(
        self,
        setup: List[str],
        target: str,
        params: List[Param],
        values: Sequence[Optional[str]],
        receiver: str,
        guesses: Sequence[Set[str]] = (),
    ) -> Scenario:
        """A scenario: setup, named arguments, ``result = target(args)``; the parameters whose value is
        one of its ``guesses`` (a guess by name) are marked so."""
        bound = re.findall(r"^([A-Za-z_][A-Za-z0-9_]*) =", "\n".join(setup), re.M)
        taken = set(bound)
        lines = list(setup)
        args: List[Optional[str]] = []
        watch = [v for v in dict.fromkeys(bound) if v != "saved"]
        for i, p in enumerate(params):
            v = values[i]
            if (
                v is not None
                and v != pv.INVALID
                and _NAMED_ARG.match(v)
                and not v.startswith("lambda")
            ):
                var = arg_var(p["name"], taken)
                lines.append("%s = %s" % (var, v))
                args.append(var)
                watch.append(var)
            else:
                args.append(v)
        sc = Scenario(lines, "%s(%s)" % (target, args_src(params, args)), receiver)
        sc.watch = [w for w in watch if w != "saved_state"]
        sc.getters = list(self.getters)
        sc.guessed = [
            p["name"] for i, p in enumerate(params) if i < len(guesses) and values[i] in guesses[i]
        ]
        return sc


def _is_distribution(torch: Any, owner: Any) -> bool:
    base = getattr(getattr(torch, "distributions", None), "Distribution", None)
    return isinstance(owner, type) and base is not None and issubclass(owner, base)


def arg_var(name: str, taken: Set[str]) -> str:
    """The variable an argument of parameter ``name`` is bound to, one ``taken`` holds none of."""
    base = re.sub(r"[^a-z0-9_]", "_", name.lower()).strip("_") or "arg"
    if base in ARGUMENT_RESERVED or base[0].isdigit():
        base = "arg_" + base
    var, n = base, 2
    while var in taken:
        var, n = "%s_%d" % (base, n), n + 1
    taken.add(var)
    return var


def rich(checks: List[Check]) -> bool:
    return any(
        c[0] in ("eq", "tensor", "float") or (c[0] == "is" and c[-1] != "None") for c in checks
    )
