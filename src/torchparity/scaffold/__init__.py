"""Write an API's test in the backend's conventions: template families over the agent's facts."""

from .conventions import Conventions, conventions_from
from .core import (
    FailsOnDevice,
    ScaffoldResult,
    check_destination,
    scaffold_facts,
    scaffold_facts_many,
    scaffold_test,
)
from .families import build_plan, candidates
from .insert import check_only_insertions, insert_methods
from .operators import dtypes_from_text
from .plan import COVERAGE_DIMENSIONS, FAMILIES, CannotDecide, Method, TestPlan

__all__ = [
    "COVERAGE_DIMENSIONS",
    "FAMILIES",
    "FailsOnDevice",
    "CannotDecide",
    "Conventions",
    "Method",
    "ScaffoldResult",
    "TestPlan",
    "build_plan",
    "candidates",
    "check_destination",
    "check_only_insertions",
    "conventions_from",
    "dtypes_from_text",
    "insert_methods",
    "scaffold_facts",
    "scaffold_facts_many",
    "scaffold_test",
]
