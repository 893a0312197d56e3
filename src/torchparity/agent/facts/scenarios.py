"""The scenarios of one API, by what it is: a class (its construction, then its methods), an enum, a
member of a class (on the receivers the recipes and constructors give, a static method given an
instance, an inherited member on a concrete subclass), a function (plain, a setter with its getter, an
``_exit_X`` after its ``_enter_X``, a loader after its saver, a method of a module-level container, a
function changing a registry), a module-level value.
"""

from __future__ import annotations

import collections
import enum
import inspect
import re
from typing import Any, List, Optional, Set, Tuple

from ..api.objects import _named_path, try_walk
from . import probe_values as pv
from .arguments import Arguments
from .getters import member_getters, paired_getter, state_getters
from .names import guess
from .receivers import bound_var, concrete_subclasses
from .recipe_lookup import named_params, named_setup
from .recipes import SAVED_FIRST
from .registries import (
    CONTAINERS,
    container_guard,
    obj_at,
    registry_restore,
    registry_setup,
    touched_containers,
)
from .runner import Scenario

MAX_METHODS = 3
#: the categories of ``names.NAME_TABLE`` a static method's parameters are read for
_OWNER_INSTANCE = ("owner_instance",)
_STEPPED_OPTIMIZER = ("stepped_optimizer",)

Found = Tuple[List[Scenario], List[Scenario]]


class Scenarios(Arguments):
    """The scenarios of the API: valid calls measured, and invalid ones with the exception they raise."""

    # -- the API ---------------------------------------------------------------------------------
    def scenarios(self) -> Found:
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
            setup: List[str] = []
            teardown: List[str] = []
            getters: List[str] = []
            if holder is not None:
                setup, teardown = container_guard(res["path"].rsplit(".", 1)[0], holder)
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
            names: List[str] = []
            named: Tuple[str, ...] = ()
            if not (valid or setup or holder is not None):
                names = named_params(_param_names(obj))
                named = named_setup(names)
            if (
                named and not self.out_of_time()
            ):  # ``clip_grad_value_(parameters, ...)``: parameters with gradients
                valid, invalid = self.call_scenarios(list(named), "_API_", obj)
                # each value the setup made is passed (a download left to its default folder writes in $HOME)
                valid = [
                    sc
                    for sc in valid
                    if all(re.search(r"(?<![\w.])%s(?![\w=(])" % n, sc.call) for n in names)
                ]
                _guessed(valid + invalid, names)
            if not valid and holder is None and not getters:
                valid = self.registry_scenarios(obj)
            return valid, invalid
        sc = Scenario([], "_API_")
        if self.measure(sc):
            return [sc], []
        return [], []

    def entered(
        self, leaf: str, parent_path: str, parent: Any
    ) -> Optional[Tuple[List[str], List[str], List[str]]]:
        """For ``_exit_X``: (setup entering X through its sibling ``_enter_X``, teardown, getters of the
        state X sets); None for any other API or where no call of ``_enter_X`` works here."""
        m = re.match(r"^(_?)exit_(\w+)$", leaf)
        enter = getattr(parent, "%senter_%s" % m.groups(), None) if m else None
        if m is None or not callable(enter) or isinstance(parent, type):
            return None
        spelled = "%s.%senter_%s" % ((parent_path,) + m.groups())
        getters_found = [
            src for src, value in state_getters(m.group(2), parent) if isinstance(value, bool)
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

    def registry_scenarios(self, fn: Any) -> List[Scenario]:
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
            originals = dict((path, obj_at(path)) for path in paths)
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
                    sc = Scenario(registry_setup(path, dirty), "_API_()")
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
                    sc.teardown = registry_restore(path)
                    return [sc]
            return []
        finally:
            for path, obj in originals.items():
                obj.clear()
                if isinstance(obj, (list, collections.deque)):
                    obj.extend(copies[path])
                else:
                    obj.update(copies[path])

    def enum_scenarios(self, cls: Any) -> Found:
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

    def class_scenarios(self, cls: type) -> Found:
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

    def member_scenarios(self, owner: Any, leaf: str, kind: str) -> Found:
        raw = inspect.getattr_static(owner, leaf, None)
        is_static = (
            isinstance(raw, (staticmethod, classmethod))
            or type(raw).__name__ == "classmethod_descriptor"
        )
        value = getattr(owner, leaf, None)
        valid: List[Scenario] = []
        invalid: List[Scenario] = []
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
            recv = bound_var(setup)
            if kind in ("property", "attribute") or (not callable(value) and value is not None):
                sc = Scenario(setup, "%s.%s" % (recv, leaf), recv)
                sc.watch = []
                if self.measure(sc):
                    valid.append(sc)
                    break
                continue
            method = getattr(owner, leaf, None)
            self.getters = member_getters(owner, leaf, recv)
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

    def static_on_instance(self, owner: Any, leaf: str, fn: Any) -> Optional[Found]:
        """A static method of a module class given an instance of the class (a recipe's) for its model or
        module parameter, and an Adam that took a step over its parameters for its optimizer one
        (``FullyShardedDataParallel.optim_state_dict(model, optim)``); None where it takes neither."""
        try:
            names = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            return None
        modules = [n for n in names if guess(n, _OWNER_INSTANCE)]
        if not modules or not issubclass(owner, self.torch.nn.Module):
            return None
        for setup in self.receivers(owner, "_OWNER_")[:1]:
            recv = bound_var(setup)
            lines = list(setup) + ["%s = %s" % (n, recv) for n in modules if n != recv]
            bound = set(modules)
            for n in names:
                if guess(n, _STEPPED_OPTIMIZER):  # a step taken: its state holds the moments
                    lines += [
                        "%s = torch.optim.Adam(%s.parameters(), lr=0.1)" % (n, recv),
                        "%s.step()" % n,
                    ]
                    bound.add(n)
            by_name = [n for n in names if n in bound]
            lines += self._sibling_results(owner, leaf, names, bound)
            valid, invalid = self.call_scenarios(lines, "_OWNER_.%s" % leaf, fn)
            if valid:
                _guessed(valid + invalid, by_name)
                return valid, invalid
        return None

    def _sibling_results(
        self, owner: Any, leaf: str, names: List[str], bound: Set[str]
    ) -> List[str]:
        """``X = _OWNER_.X(model, optim)`` for a parameter named after a static sibling method that takes
        only what is bound already (``flatten_sharded_optim_state_dict(sharded_optim_state_dict, ...)``)."""
        lines = []
        for n in names:
            raw = inspect.getattr_static(owner, n, None)
            if n == leaf or n in bound or not isinstance(raw, (staticmethod, classmethod)):
                continue
            try:
                params = list(inspect.signature(getattr(owner, n)).parameters.values())
            except (TypeError, ValueError):
                continue
            args = ["%s=%s" % (p.name, p.name) for p in params if p.name in bound]
            if (
                all(p.name in bound or p.default is not p.empty for p in params)
                and args
                and not any(p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL) for p in params)
            ):
                lines.append("%s = _OWNER_.%s(%s)" % (n, n, ", ".join(args)))
                bound.add(n)
        return lines

    def inherited_scenarios(self, owner: Any, leaf: str, kind: str) -> Found:
        """The member on instances of concrete subclasses that inherit it as it is (``Gamma(...).stddev`` for
        ``Distribution.stddev``, which needs the variance a subclass defines): a base class's own instance
        raises NotImplementedError, and a subclass that overrides the member would not reach it."""
        raw = inspect.getattr_static(owner, leaf, None)
        for sub in concrete_subclasses(owner, inheriting=(leaf, raw)):
            if self.out_of_time():
                break
            spelled = _named_path(sub)
            for setup in self.receivers(sub, spelled or "")[:2]:
                recv = bound_var(setup)
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


def _param_names(fn: Any) -> List[str]:
    """``fn``'s parameter names, in order ([] where it has no signature)."""
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _guessed(scenarios: List[Scenario], names: List[str]) -> None:
    """Marks ``names`` as guessed by their name in each of ``scenarios`` (their setup binds them)."""
    for sc in scenarios:
        sc.guessed += [n for n in names if n not in sc.guessed]
