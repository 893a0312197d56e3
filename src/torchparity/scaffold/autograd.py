"""The ``autograd`` family: gradients on the device against values worked out by hand and the CPU.

``torch.autograd.grad``/``backward`` (first and second derivatives of
``sum(x * x)``, weighted outputs, accumulation), the engine's ``run_backward``
and ``queue_callback`` (called after the hooks), ``gradcheck``/``gradgradcheck``
(true for ``sin``, false for a Function with a wrong backward).
"""

from __future__ import annotations

from typing import Any

from ..api.records import ApiInfo
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .render import render_macro

WHICH = {
    "grad": "grad",
    "backward": "backward",
    "gradcheck": "gradcheck",
    "gradgradcheck": "gradgradcheck",
    "run_backward": "run_backward",
    "queue_callback": "queue_callback",
}


def autograd_plan(info: ApiInfo, facts: dict[str, Any], device: str) -> TestPlan:
    r = info.resolution
    names = {r.canonical, r.path, *r.aliases}
    leaf = r.path.rsplit(".", 1)[-1]
    engine = any("_execution_engine" in n for n in names)
    if (
        leaf not in WHICH
        or (leaf in ("run_backward", "queue_callback") and not engine)
        or (
            leaf not in ("run_backward", "queue_callback")
            and not any(n.startswith("torch.autograd.") for n in names)
        )
    ):
        raise CannotDecide(f"no autograd template for {r.canonical}")
    source = render_macro(
        "autograd.py.j2",
        "autograd",
        {"device": device},
        test=f"test_{stem_of(r)}",
        C=spelling_of(r),
        which=WHICH[leaf],
    )
    what = {
        "grad": "first and second derivatives and weighted outputs",
        "backward": "gradients accumulated into .grad",
        "run_backward": "the engine's backward pass, into .grad and as returned gradients",
        "queue_callback": "a callback queued from a hook runs after it, within backward",
        "gradcheck": "true for functions with correct gradients, false for a wrong backward",
        "gradgradcheck": "true for functions with correct gradients, false for a wrong backward",
    }[leaf]
    what += ", on the device against values worked out by hand and the CPU"
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
