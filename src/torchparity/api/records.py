"""The records of an API resolution live in ``torchparity.records.resolve``; re-exported here."""

from ..records.resolve import (
    ApiInfo,
    Classification,
    OpCount,
    Resolution,
    TestOps,
    Trace,
    merge_traces,
)

__all__ = ["ApiInfo", "Classification", "OpCount", "Resolution", "TestOps", "Trace", "merge_traces"]
