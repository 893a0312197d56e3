"""Reports rendered from one run's records: PR description, acceptance comment, JSON, JUnit XML, summary."""

from .build import SOURCE_TYPES, build_report, check_source_types
from .model import REPORT_SCHEMA, ReportModel, TargetReport
from .render import KINDS, LANGS, config_templates_dir, render
from .selfreview import SelfReview, TextContradicted, ensure_true, render_checked, self_review

__all__ = [
    "KINDS",
    "LANGS",
    "REPORT_SCHEMA",
    "SOURCE_TYPES",
    "ReportModel",
    "SelfReview",
    "TargetReport",
    "TextContradicted",
    "build_report",
    "check_source_types",
    "config_templates_dir",
    "ensure_true",
    "render",
    "render_checked",
    "self_review",
]
