"""Checks over a change: the PR's commits and files, and the checklist a PR must pass."""

from .change import checklist_for_runs, evaluate_change
from .checklist import DEFAULT_TYPE_TAGS, ITEMS, checklist_from_json, evaluate_checklist

__all__ = [
    "DEFAULT_TYPE_TAGS",
    "ITEMS",
    "checklist_for_runs",
    "checklist_from_json",
    "evaluate_change",
    "evaluate_checklist",
]
