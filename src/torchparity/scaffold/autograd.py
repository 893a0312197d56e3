"""The ``autograd`` family: gradients on the device against values worked out by hand and the CPU.

``torch.autograd.grad``/``backward`` (first and second derivatives of
``sum(x * x)``, weighted outputs, accumulation), the engine's ``run_backward``
and ``queue_callback`` (called after the hooks), ``gradcheck``/``gradgradcheck``
(true for ``sin``, false for a Function with a wrong backward).
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.autograd import AUTOGRAD_NAMESPACE, ENGINE_ATTRIBUTE, ENGINE_CALLS
from .snippets import filled, snippet


def autograd_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    names = {r.canonical, r.path, *r.aliases}
    leaf = r.path.rsplit(".", 1)[-1]
    if leaf in ENGINE_CALLS:  # the engine's calls are spelled through its attribute
        spelled_there = any(ENGINE_ATTRIBUTE in n for n in names)
    else:
        spelled_there = any(n.startswith(AUTOGRAD_NAMESPACE) for n in names)
    scenario = snippet("autograd", leaf)
    if scenario is None or not spelled_there:
        raise CannotDecide(f"no autograd template for {r.canonical}")
    source = filled(scenario, f"test_{stem_of(r)}", {"API": spelling_of(r), "DEVICE": device})
    what = scenario.what + ", on the device against values worked out by hand and the CPU"
    return TestPlan(
        api=r.canonical,
        spelling=spelling_of(r),
        family="autograd",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )
