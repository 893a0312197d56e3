"""Facts of the ``jitgraph`` family: TorchScript IR objects, passes and ``torch._C._jit_*`` helpers.

Each scenario builds a small TorchScript graph (``torch._C.parse_ir`` of IR
written here, so its text carries no source path) or a scripted function or
module, calls the API (spelled ``API``; the test spells it by its name) and
reads back the documented structure: node kinds in order, value types, sizes,
the result the graph computes. The values the test holds are measured here on
the CPU; the test runs the same lines with ``DEVICE`` bound to the device under
test, so structure is compared exactly and results computed on the device.

A scenario is a list of lines:

* a plain line runs here and is written into the test;
* ``"= EXPR"`` is measured here and written as ``self.assertEqual(EXPR, <value>)``;
* ``"! LINE"`` is written into the test only (an assertion worked out by hand).

``restore`` lines run (and are written) in a ``finally``: a switch is put back.

The scenarios of ``torch._C`` (the tensor-expression kernel's included) are in ``jitgraph_ir.py``,
those of Python helpers in the recipe data ``recipes/jitgraph.py``; this module runs them.
"""

from __future__ import annotations

import linecache
import sys
import types
from typing import Any, Dict, List, Optional, Sequence, Tuple, cast

from ..protocol import Json, TorchModule
from .jitgraph_ir import CLASSES, HELPERS, PASSES, TE
from .literal import NotLiteral, error_text, literal
from .recipes.jitgraph import PYTHON
from .schema_probe import JitgraphFacts

SCENARIOS: Dict[str, Dict[str, List[str]]] = {}
for _leaf, _scenario in list(PASSES.items()) + list(HELPERS.items()) + list(CLASSES.items()):
    SCENARIOS["torch._C." + _leaf] = _scenario
SCENARIOS.update(PYTHON)
for _leaf, _scenario in TE.items():
    SCENARIOS["torch._C._te." + _leaf] = _scenario


def scenario_for(res: Json) -> Tuple[Optional[str], Optional[Dict[str, List[str]]]]:
    """The scenario of the API (by any of its names), and its leaf; or (None, None)."""
    for name in [res.get("path", ""), res.get("canonical", "")] + list(res.get("aliases", [])):
        if name in SCENARIOS:
            return name.rsplit(".", 1)[-1], SCENARIOS[name]
    return None, None


def _expr(line: str) -> str:
    """The expression of a ``=`` line, without its comment."""
    return line[2:].split("  # ", 1)[0]


def _comment(line: str) -> str:
    return line.split("  # ", 1)[1] if "  # " in line else ""


_RUNS = [0]


def _module(torch: TorchModule, source: str) -> Tuple[types.ModuleType, str]:
    """A fresh module whose source ``inspect`` can read (``torch.jit.script`` of a function or class
    defined in the scenario reads it), as the test file's is."""
    _RUNS[0] += 1
    name = "torchparity_jitgraph_scenario_%d" % _RUNS[0]
    filename = "<%s>" % name
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    return module, filename


def _run_lines(torch: TorchModule, obj: Any, lines: List[str], restore: Sequence[str]) -> List[Any]:
    """Run the scenario's lines here, in a function as the test's method runs them; the measured
    value of each ``=`` line, in order."""
    code: List[str] = []
    for line in lines:
        if line.startswith("! "):
            continue
        code.append("__measured__.append(%s)" % _expr(line) if line.startswith("= ") else line)
    if restore:
        code = (
            ["try:"]
            + ["    " + line for line in code]
            + ["finally:"]
            + ["    " + line for line in restore]
        )
    source = (
        "def __scenario__():\n" + "".join("    %s\n" % line for line in code) + "\n__scenario__()\n"
    )
    module, filename = _module(torch, source)
    values: List[Any] = []
    module.__dict__.update(
        {"torch": torch, "API": obj, "DEVICE": torch.device("cpu"), "__measured__": values}
    )
    try:
        exec(compile(source, filename, "exec"), module.__dict__)
    finally:
        sys.modules.pop(module.__name__, None)
    return values


def jitgraph_facts(torch: TorchModule, obj: Any, res: Json) -> JitgraphFacts:
    """``{"found": True, "leaf", "lines": [line or ["=", expr, literal, comment]], "restore"}``, or a problem."""
    leaf, scenario = scenario_for(res)
    if scenario is None:
        return {"found": False, "problem": "no TorchScript IR scenario for %s" % res.get("path")}
    lines, restore = scenario["lines"], scenario.get("restore") or []
    try:
        first = _run_lines(torch, obj, lines, restore)
        second = _run_lines(torch, obj, lines, restore)
    except Exception as exc:
        return {"found": False, "problem": "its scenario failed here: %s" % error_text(exc)}
    out: List[Any] = []
    index = 0
    for line in lines:
        if not line.startswith("= "):
            out.append(line)
            continue
        value, again = first[index], second[index]
        index += 1
        try:
            text = literal(value, torch)
        except NotLiteral as exc:
            return {"found": False, "problem": "%s gives no literal (%s)" % (line[2:], exc)}
        if text != literal(again, torch):
            continue  # differs between runs: not a fact
        out.append(["=", _expr(line), text, _comment(line)])
    # a scenario found comes with its leaf
    return {"found": True, "leaf": cast(str, leaf), "lines": out, "restore": list(restore)}
