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
from .recipes.autograd import AUTOGRAD_CALLS, AUTOGRAD_NAMESPACE, ENGINE_ATTRIBUTE, ENGINE_CALLS
from .render import render_macro


def autograd_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    names = {r.canonical, r.path, *r.aliases}
    leaf = r.path.rsplit(".", 1)[-1]
    if leaf in ENGINE_CALLS:  # the engine's calls are spelled through its attribute
        spelled_there = any(ENGINE_ATTRIBUTE in n for n in names)
    else:
        spelled_there = any(n.startswith(AUTOGRAD_NAMESPACE) for n in names)
    if leaf not in AUTOGRAD_CALLS or not spelled_there:
        raise CannotDecide(f"no autograd template for {r.canonical}")
    source = render_macro(
        "autograd.py.j2",
        "autograd",
        {"device": device},
        test=f"test_{stem_of(r)}",
        C=spelling_of(r),
        which=leaf,
    )
    what = AUTOGRAD_CALLS[leaf] + ", on the device against values worked out by hand and the CPU"
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
