"""The dashboard: one static HTML page of APIs × branches × products, rendered from the store.

``collect`` reads the store's runs into typed records (``model``), ``plan`` reads a ``plan`` summary
JSON, ``chart`` lays out the burndown's SVG, ``render`` writes the page (one Jinja2 template, inline
CSS and script, nothing fetched) with the evidence logs beside it.
"""

from .collect import api_of, collect, column_of
from .model import NO_EVIDENCE, STATE_WORDS, ApiRow, Cell, Column, Dashboard, Evidence, PlanSummary
from .plan import plan_summary, read_plan
from .render import render_page, write_dashboard

__all__ = [
    "NO_EVIDENCE",
    "STATE_WORDS",
    "ApiRow",
    "Cell",
    "Column",
    "Dashboard",
    "Evidence",
    "PlanSummary",
    "api_of",
    "collect",
    "column_of",
    "plan_summary",
    "read_plan",
    "render_page",
    "write_dashboard",
]
