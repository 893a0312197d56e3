"""``plan``: the public surface of the environment's torch against a version's support pages and a
ref's tests, ranked into a task file ``batch`` reads (issue 38).

One module a job: ``surface`` (the agent's answer), ``pages`` (each API's state on the pages),
``direct`` (its tests at the ref), ``rank`` (the order), ``families`` (the scaffold family of the
first N), ``build`` (the steps in order), ``output`` (the task file and the summary).
"""

from .build import Plan, make_plan
from .output import render_summary, summary, write_summary, write_tasks
from .pages import DOCUMENTED, MISSING, STATES, UNSUPPORTED, PageState
from .rank import RULE, PlanRow
from .surface import Surface, SurfaceApi, read_surface

__all__ = [
    "DOCUMENTED",
    "MISSING",
    "RULE",
    "STATES",
    "UNSUPPORTED",
    "PageState",
    "Plan",
    "PlanRow",
    "Surface",
    "SurfaceApi",
    "make_plan",
    "read_surface",
    "render_summary",
    "summary",
    "write_summary",
    "write_tasks",
]
