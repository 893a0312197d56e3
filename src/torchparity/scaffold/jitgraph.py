"""The ``jitgraph`` family: TorchScript IR objects, passes and ``torch._C._jit_*`` helpers.

The agent (``agent/facts/jitgraph.py``) holds a scenario per API: a small
graph parsed from IR (or a scripted function or module), the API called on it,
and the documented structure read back (node kinds in order, value types and
sizes, what a switch reads back, the schemas an operator has), each measured
on the CPU. This module writes the scenario out: its lines with ``API``
spelled as the API and ``DEVICE`` as the test's device, every measured line as
an exact ``assertEqual`` against the value measured, the hand-worked checks
as they are, and a switch's restore in a ``finally``. Where the graph runs,
it runs on the device under test and its values are compared with those the
CPU gave.
"""

from __future__ import annotations

import re
from typing import Any

from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.jitgraph import CLASSES, HELPERS, PREFIX

_API = re.compile(r"\bAPI\b")


def jitgraph_applies(info: ApiInfo) -> bool:
    """Whether the API is a ``torch._C._jit_*`` function (a pass or a helper of TorchScript), an IR class,
    or one of the torch.jit/torch.fx helpers the agent has a scenario of."""
    r = info.resolution
    names = (r.canonical, r.path, *r.aliases)
    return not r.owner_class and any(
        n.startswith(PREFIX) and n.count(".") == 2 or n in CLASSES or n in HELPERS for n in names
    )


def jitgraph_only(info: ApiInfo) -> bool:
    """A ``torch._C._jit_*`` function that takes TorchScript IR (``torch::jit::Graph``, ``Node``, ``Module``):
    the other families' probing calls it with what it cannot take and ends the interpreter, so only
    this family is asked."""
    return jitgraph_applies(info) and "torch::jit::" in (info.resolution.signature or "")


def _spell(line: str, spelling: str, device: str) -> str:
    return _API.sub(spelling, line).replace("DEVICE", device)


def _assertion(expr: str, value: str) -> str:
    if value in ("None", "True", "False"):
        return f"self.assertIs({expr}, {value})"
    return f"self.assertEqual({expr}, {value})"


def scenario_lines(lines: list[Any], restore: list[str], spelling: str, device: str) -> list[str]:
    """The test body: each line spelled, measured lines asserted, the restore in a ``finally``."""
    body: list[str] = []
    for line in lines:
        if isinstance(line, list) and len(line) in (3, 4) and line[0] == "=":
            comment = f"  # {line[3]}" if len(line) == 4 and line[3] else ""
            body.append(_assertion(_spell(str(line[1]), spelling, device), str(line[2])) + comment)
        elif isinstance(line, str):
            body.append(_spell(line[2:] if line.startswith("! ") else line, spelling, device))
        else:
            raise CannotDecide(f"a scenario line the family cannot write: {line!r}")
    if not restore:
        return body
    setup = [line for line in body if line.startswith("old = ")][:1]
    rest = [line for line in body if line not in setup]
    return [
        *setup,
        "try:",
        *(f"    {line}" for line in rest),
        "finally:",
        *(f"    {_spell(line, spelling, device)}" for line in restore),
    ]


def jitgraph_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    if not jitgraph_applies(info):
        raise CannotDecide(
            f"{info.resolution.canonical} is no torch._C._jit_* function nor a TorchScript IR class or helper"
        )
    found = facts.get("jitgraph") or {}
    if not found.get("found"):
        raise CannotDecide(str(found.get("problem") or "no TorchScript IR facts"))
    lines = list(found.get("lines") or [])
    if not any(isinstance(line, list) for line in lines):
        raise CannotDecide("its scenario measured nothing that holds twice")
    r = info.resolution
    spelling = spelling_of(r)
    stem = stem_of(r)
    body = scenario_lines(lines, [str(x) for x in found.get("restore") or []], spelling, device)
    method = lines_method(f"test_{stem}", body)
    what = (
        "TorchScript's documented structure measured on the CPU and compared exactly (node kinds in order, "
        "value types and sizes, what a switch reads back, an operator's schemas), and where the graph runs, "
        "its result on the device"
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="jitgraph",
        stem=stem,
        methods=(method,),
        summary=what + ".",
        coverage=coverage_rows(
            normal=what, boundary="开关两种取值并在 finally 中恢复" if found.get("restore") else ""
        ),
        uses_device="DEVICE" in " ".join(x if isinstance(x, str) else x[1] for x in lines),
        facts=facts,
    )
