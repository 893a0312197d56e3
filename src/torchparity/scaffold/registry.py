"""The registry of template families: one module per family, found, checked and put in order.

A family module (``scaffold/families/<name>.py``; pytest's plugins are the model) declares:

* ``NAME``: the family's name (``"storage"``), unique;
* ``PRIORITY``: an int, unique; the families that apply to an API are tried lowest first;
* ``WANTS``: the facts it asks the agent for (``("storage",)``; ``()`` for none);
* ``applies(info, backend_module) -> bool``: whether it is a candidate for the API;
* ``plan(info, facts, device) -> TestPlan``: its plan, or ``CannotDecide`` with the reason;

and, where it needs them:

* ``DEVICE_ONLY = True``: its tests need the device itself (the agent does not check them on the CPU);
* ``alone(info, backend_module) -> bool``: where it holds, this family alone is tried (``jitgraph``:
  the other families' probing calls would end the interpreter).

Modules whose name starts with ``_`` are helpers, not families. ``fill-in`` is no module: it is
always the last candidate, the plan when no family decides (``scaffold/fill_in.py``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ..api.records import ApiInfo
from .facts import Facts
from .fill_in import FILL_IN
from .plan import TestPlan

Applies = Callable[[ApiInfo, str], bool]
Build = Callable[[ApiInfo, Facts, str], TestPlan]

#: how the name of a helper module (no family) starts
HELPER = "_"
#: what every family module declares
REQUIRED = ("NAME", "PRIORITY", "WANTS", "applies", "plan")
#: what a family module once could declare and no longer may (a priority that depended on the API)
REMOVED = ("place", "PLACES")


class FamilyError(Exception):
    """A family module that does not declare itself as the registry needs (said in one line)."""


@dataclass(frozen=True)
class Family:
    """One template family, as its module declares it."""

    name: str
    priority: int
    wants: tuple[str, ...]
    applies: Applies
    plan: Build
    #: the module that declared it (named in the registry's errors)
    module: str
    device_only: bool = False
    #: where it holds, this family alone is tried
    alone: Applies | None = None

    @classmethod
    def from_module(cls, module: ModuleType) -> Family:
        """The family a module declares; ``FamilyError`` naming the module when it declares it wrong."""
        where = f"family module {module.__name__} ({getattr(module, '__file__', '?')})"
        missing = [a for a in REQUIRED if not hasattr(module, a)]
        if missing:
            raise FamilyError(
                f"{where} does not declare {', '.join(missing)} "
                f"(a family module declares {', '.join(REQUIRED)})"
            )
        name, priority, wants = module.NAME, module.PRIORITY, module.WANTS
        if not isinstance(name, str) or not name or name == FILL_IN:
            raise FamilyError(f"{where}: NAME must be a non-empty string other than {FILL_IN!r}")
        if not isinstance(priority, int) or isinstance(priority, bool):
            raise FamilyError(f"{where}: PRIORITY must be an int, not {priority!r}")
        if not isinstance(wants, (tuple, list)) or not all(isinstance(w, str) for w in wants):
            raise FamilyError(f"{where}: WANTS must be a sequence of fact names, not {wants!r}")
        gone = [a for a in REMOVED if hasattr(module, a)]
        if gone:
            raise FamilyError(
                f"{where} declares {', '.join(gone)}, which the registry no longer reads: "
                "give the family one PRIORITY"
            )
        hooks = {a: getattr(module, a, None) for a in ("applies", "plan", "alone")}
        for attr, hook in hooks.items():
            if hook is not None and not callable(hook):
                raise FamilyError(f"{where}: {attr} must be a function")
        return cls(
            name=name,
            priority=priority,
            wants=tuple(wants),
            applies=module.applies,
            plan=module.plan,
            module=module.__name__,
            device_only=bool(getattr(module, "DEVICE_ONLY", False)),
            alone=hooks["alone"],
        )


def discover(package: str) -> list[Family]:
    """The families of the modules of ``package`` (its helpers, ``_name``, left out)."""
    pkg = importlib.import_module(package)
    found = pkgutil.iter_modules(pkg.__path__, prefix=f"{package}.")
    names = sorted(m.name for m in found if not m.name.rsplit(".", 1)[-1].startswith(HELPER))
    return [Family.from_module(importlib.import_module(n)) for n in names]


def from_folder(folder: Path) -> list[Family]:
    """The families of the ``*.py`` files of ``folder`` (a family kept outside the package, a test's)."""
    out = []
    for path in sorted(Path(folder).glob("*.py")):
        if path.name.startswith(HELPER):
            continue
        where = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
        name = f"torchparity_family_{where}_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise FamilyError(f"family module {path}: cannot be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        out.append(Family.from_module(module))
    return out


class Registry:
    """Families checked (names and priorities unique) and sorted by priority."""

    def __init__(self, families: Iterable[Family]) -> None:
        ordered = sorted(families, key=lambda f: f.priority)
        names: dict[str, Family] = {}
        taken: dict[int, Family] = {}
        for f in ordered:
            if f.name in names:
                raise FamilyError(
                    f"family modules {names[f.name].module} and {f.module} both declare "
                    f"NAME {f.name!r}"
                )
            names[f.name] = f
            if f.priority in taken:
                raise FamilyError(
                    f"family modules {taken[f.priority].module} ({taken[f.priority].name}) and "
                    f"{f.module} ({f.name}) both take priority {f.priority}"
                )
            taken[f.priority] = f
        self.families: tuple[Family, ...] = tuple(ordered)
        self._by_name = names

    def __add__(self, more: Iterable[Family]) -> Registry:
        return Registry([*self.families, *more])

    @property
    def names(self) -> tuple[str, ...]:
        """Every family's name, by priority, ``fill-in`` last."""
        return (*(f.name for f in self.families), FILL_IN)

    @property
    def device_only(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.families if f.device_only)

    def __getitem__(self, name: str) -> Family:
        return self._by_name[name]

    def candidates(self, info: ApiInfo, backend_module: str = "") -> list[str]:
        """The families to try for this API, best first (``fill-in`` always last)."""
        for f in self.families:
            if f.alone is not None and f.alone(info, backend_module):
                return [f.name, FILL_IN]
        return [f.name for f in self.families if f.applies(info, backend_module)] + [FILL_IN]

    def wants(self, families: Sequence[str]) -> list[str]:
        """The facts the families ask the agent for, each once, in their order."""
        out: list[str] = []
        for name in families:
            if name != FILL_IN:
                out += [w for w in self._by_name[name].wants if w not in out]
        return out
