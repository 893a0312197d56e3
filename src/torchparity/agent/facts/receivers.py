"""Receivers and values of classes: instances of a class built by a recipe or by its own constructor
with probed arguments (or a concrete subclass's, for an abstract class or a protocol), the values of
the classes an annotation names, and the parameter lists a call is tried with.
"""

from __future__ import annotations

import inspect
import re
from typing import Any, List, Optional, Sequence, Set, Tuple

from ..api.objects import _named_path, subclasses, try_walk
from . import probe_values as pv
from .asked import wanted_names
from .params import (
    Param,
    args_src,
    doc_signature,
    doc_types,
    inspectable,
    ordered_product,
    packet_params,
    param_list,
    params_from_error,
    params_from_text,
    vararg,
)
from .recipe_lookup import recipes_for
from .recipes import MADE_ELSEWHERE, RECIPES
from .recipes.layout import API, TORCH
from .runner import Runner, Scenario


class Receivers(Runner):
    """What the probe builds before a call: receivers, constructions, values of annotated classes."""

    # -- receivers -----------------------------------------------------------------------------
    def _class_names(self, cls: type) -> List[str]:
        names = []
        for n in (_named_path(cls), "%s.%s" % (cls.__module__, cls.__qualname__)):
            if n and n not in names:
                names.append(n)
        return names

    def receivers(self, cls: type, spelled_owner: str) -> List[List[str]]:
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

    def _binds_instance(self, lines: List[str], cls: type) -> bool:
        var = bound_var(lines)
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

    def constructions(self, cls: type, spelled: str, limit: int = 4) -> List[str]:
        """Constructor calls of ``cls`` (or a concrete subclass) that work here, as source."""
        found: List[str] = []
        targets: List[Tuple[type, str | None]] = [] if inspect.isabstract(cls) else [(cls, spelled)]
        # a concrete subclass stands for an abstract class or a protocol (FileSystemWriter for StorageWriter)
        targets += [(sub, _named_path(sub)) for sub in concrete_subclasses(cls)]
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

    def _construct(self, klass: type, spelling: str, params: List[Param]) -> Optional[str]:
        """``spelling(args)`` for the first arguments that construct ``klass`` here, or None; an optional
        parameter a failed construction asks for (``Either `probs` or `logits` must be specified``) is
        given in a second round."""
        doc = doc_types(klass.__doc__)
        wanted: Set[str] = set()
        for _ in range(2):
            required = [p for p in params if not p["has_default"] or p["name"] in wanted]
            lists = []
            for p in required:
                values = self.typed_values(p["annotation"])
                cats = pv.categories(
                    p["name"], p["annotation"], doc.get(p["name"]), p["default_bool"]
                )
                values += [v for v in pv.values_for(cats) if v not in values]
                values = pv.narrowed_first(pv.outer_first(pv.unique(values), p["annotation"]), cats)
                lists.append(values[: 4 if len(required) < 3 else 2])
            asked = set()
            for combo in ordered_product(lists, 12):
                if self.out_of_time():
                    break
                src = "%s(%s)" % (spelling, args_src(required, combo))
                try:
                    self.run(Scenario([], src))
                except Exception as exc:
                    asked.update(wanted_names(str(exc)))
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

    def signatures(self, setup: List[str], target: str, fn: Any) -> List[List[Param]]:
        """Parameter lists to try: the signature, else the ones a call without arguments reports.

        ``self``/``cls`` are dropped for calls through a receiver or a class only: a
        function may name its first parameter ``self`` (``torch._foreach_copy_``).
        """
        bound = target != API
        packet = packet_params(fn)
        if packet:
            return packet
        params = param_list(fn, self.res.get("signature") or "" if fn is self.obj else "")
        # a signature from text (a docstring's ``as_subclass(cls)``) names no receiver: its ``cls`` is an argument
        bound_names = ("self", "cls") if inspectable(fn) else ("self",)
        if params is None:
            params = params_from_text(doc_signature(fn))
        opaque = not params or any(p["kind"] == "var" for p in params)
        if params:
            params = [
                vararg(p) if p.get("star") == 1 else p
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
            found = params_from_error(str(exc)) or [params or []]
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

    def typed_values(self, annotation: Optional[str]) -> List[str]:
        """Values of a class an annotation names (``torch._C.DispatchKey``, ``<class '...WriteItem'>``); for
        ``type[X]`` classes: X's concrete subclasses in torch, then X (``optimizer_class``: SGD ...)."""
        m = re.search(
            r"\b[Tt]ype\[\s*((?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Z][A-Za-z0-9_]*)\s*\]",
            annotation or "",
        )
        hit = try_walk(m.group(1)) if m and m.group(1).startswith("torch") else None
        if m and hit is not None and isinstance(hit.obj, type):
            subs = [_named_path(sub) for sub in concrete_subclasses(hit.obj, limit=3)]
            return [p for p in subs + [m.group(1)] if p][:3]
        out = []
        for path in re.findall(
            r"\b((?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Z][A-Za-z0-9_]*)", annotation or ""
        ):
            if not path.startswith(TORCH):
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
                        recipe = RECIPES.get(name) or MADE_ELSEWHERE.get(name)
                        if recipe and len(recipe) == 1 and " = " in recipe[0]:
                            found.append(recipe[0].split(" = ", 1)[1].replace("_OWNER_", path))
                if not self.out_of_time():
                    found += self.constructions(cls, path, limit=1)
            self._typed_seen[path] = found
            out += found
        return out[:3]

    def _receiver_keys(self, setup: List[str]) -> List[str]:
        """Keys (as source) of a mapping receiver, so its methods get a key it holds."""
        if not setup:
            return []
        var = bound_var(setup)
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


def bound_var(lines: Sequence[str]) -> str:
    """The variable the last assignment of ``lines`` binds (a receiver setup's instance)."""
    for line in reversed(lines):
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*) = ", line)
        if m:
            return m.group(1)
    return ""


def _key_literal(key: Any) -> Optional[str]:
    from .literal import NotLiteral, literal

    try:
        return literal(key)
    except NotLiteral:
        return None


def concrete_subclasses(
    cls: type, limit: int = 6, inheriting: Optional[Tuple[str, Any]] = None
) -> List[type]:
    """Concrete torch subclasses of ``cls`` with a name; ``inheriting=(name, attr)``: only those whose member
    ``name`` is ``attr`` itself."""
    out: List[type] = []
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
