"""Reports rendered from one run's records: PR description, acceptance comment, JSON, JUnit XML, summary."""

from .build import SOURCE_TYPES, build_report, check_source_types
from .model import REPORT_SCHEMA, ReportModel, TargetReport
from .render import KINDS, LANGS, config_templates_dir, render

__all__ = [
    "KINDS",
    "LANGS",
    "REPORT_SCHEMA",
    "SOURCE_TYPES",
    "ReportModel",
    "TargetReport",
    "build_report",
    "check_source_types",
    "config_templates_dir",
    "render",
]
