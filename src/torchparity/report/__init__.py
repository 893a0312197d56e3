"""Reports over the evidence: PR description, acceptance comment, JSON, JUnit XML, summary; the checklist."""

from .build import SOURCE_TYPES, build_report
from .checklist import (
    Checklist,
    ChecklistItem,
    checklist_from_json,
    evaluate_checklist,
    find_resolve,
    resolve_aliases,
)
from .model import REPORT_SCHEMA, ReportModel, TargetReport
from .render import KINDS, LANGS, config_templates_dir, render

__all__ = [
    "KINDS", "LANGS", "REPORT_SCHEMA", "SOURCE_TYPES", "Checklist", "ChecklistItem", "ReportModel",
    "TargetReport", "build_report", "checklist_from_json", "config_templates_dir", "evaluate_checklist",
    "find_resolve", "render", "resolve_aliases",
]
