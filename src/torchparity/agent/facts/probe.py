"""The probe: measured scenarios for any API, a receiver, a call that works here, and what it gives.

``probe_isolated`` runs ``probe_facts`` in a forked child; ``Engine`` is the probe of one API, made of
one part per job, each its own module:

* ``runner.py``: a scenario's source run twice from scratch, and the checks that agree;
* ``receivers.py``: receivers and values of classes (recipes, constructors), the parameter lists tried;
* ``arguments.py``: each parameter's candidate values (the value chain ``names.py`` states) and the
  calls made of them;
* ``scenarios.py``: the scenarios of the API by what it is (a class, a member, a function, a value);
* ``distributed.py``: the passes in a process group, an RPC agent, a device mesh.

What they draw on: ``params.py`` (parameter lists), ``asked.py`` (what a failed call asks for),
``recipes/`` (receivers and setups, as data), ``probe_values.py`` (the pools), ``names.py`` (the one guess
by name), ``getters.py`` (a setter's getter), ``registries.py`` (module-level containers), and
``observe.py`` (the checks).
"""

from __future__ import annotations

import re
import sys
from typing import Any, Collection, Dict, Iterable, List

from .distributed import in_process_group
from .getters import paired_getter
from .isolate import ChildFailed, fork_safe, in_child
from .registries import touched_containers
from .runner import BUDGET, Scenario, Timeout
from .scenarios import Scenarios
from .schema_probe import ProbeFacts
from .schema_probe import Scenario as ScenarioFacts
from .scratch_home import scratch_torch_home

#: what other modules (and the tests) reach through this one
__all__ = [
    "Engine",
    "Scenario",
    "needed_imports",
    "paired_getter",
    "probe_facts",
    "probe_isolated",
    "touched_containers",
]


class Engine(Scenarios):
    """The probe of one API: its scenarios (``scenarios()``), run and measured within a budget of time."""


def needed_imports(text: str, baseline: Iterable[str]) -> List[str]:
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


def probe_isolated(
    torch: Any,
    res: Dict[str, Any],
    obj: Any,
    owner: Any,
    device_type: str,
    baseline: Collection[str] = (),
) -> ProbeFacts:
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


def _probe_json(
    torch: Any,
    res: Dict[str, Any],
    obj: Any,
    owner: Any,
    device_type: str,
    baseline: Collection[str],
    each_call: bool,
) -> ProbeFacts:
    """``probe_facts`` as plain JSON data (what a value no JSON holds becomes: its text)."""
    import json

    return json.loads(
        json.dumps(
            probe_facts(torch, res, obj, owner, device_type, baseline, each_call), default=str
        )
    )


def probe_facts(
    torch: Any,
    res: Dict[str, Any],
    obj: Any,
    owner: Any,
    device_type: str,
    baseline: Collection[str] = (),
    each_call: bool = False,
) -> ProbeFacts:
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


def _forget_submodules(names: List[str]) -> None:
    for name in names:
        module = sys.modules.pop(name, None)
        parent, _, leaf = name.rpartition(".")
        holder = sys.modules.get(parent)
        if module is not None and holder is not None and getattr(holder, leaf, None) is module:
            delattr(holder, leaf)


def _probe_with(engine: Engine, torch: Any, res: Dict[str, Any]) -> ProbeFacts:
    baseline = engine.baseline
    try:
        valid, invalid = engine.scenarios()
        if not valid:
            valid, invalid = in_process_group(engine, torch, res) or (valid, invalid)
    except Timeout as exc:
        return {
            "valid": [],
            "invalid": [],
            "imports": [],
            "problem": str(exc),
            "tried": engine.tried,
        }
    docs: Dict[str, List[ScenarioFacts]] = {"valid": [], "invalid": []}
    text = []
    for key, group in (("valid", valid), ("invalid", invalid)):
        for sc in group:
            doc = sc.to_json()
            doc["prelude"] = list(engine.prelude)
            doc["teardown"] = list(getattr(sc, "teardown", [])) + list(engine.postlude)
            docs[key].append(doc)
            text.append("\n".join(engine.prelude) + "\n" + sc.source())
    problem = ""
    if not valid:
        problem = (
            "no call of %s with candidate receivers and arguments gave a result or an effect "
            "a test can hold (%d tried)" % (res["canonical"], engine.tried)
        )
    imports = needed_imports("\n".join(text), set(baseline))
    imports += [
        "import %s" % name for name in engine.submodules if "import %s" % name not in imports
    ]
    out: ProbeFacts = {
        "valid": docs["valid"],
        "invalid": docs["invalid"],
        "tried": engine.tried,
        "problem": problem,
    }
    out["imports"] = imports
    for kept in (docs["valid"], docs["invalid"]):  # a type a check names from another module
        for doc in kept:
            for check in doc.get("checks", []):
                payload = check[-1]
                if (
                    check[0] == "type"
                    and "." in payload
                    and not payload.startswith(("torch", "_API_", "_OWNER_"))
                ):
                    line = "import %s" % payload.rsplit(".", 1)[0]
                    if payload.rsplit(".", 1)[0] in sys.modules and line not in imports:
                        imports.append(line)
    return out
