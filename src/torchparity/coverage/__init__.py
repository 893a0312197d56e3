"""Coverage search: which tests already exercise an API, at any git ref, from an index of git blobs."""

from .aliases import (
    AliasSource,
    AliasTable,
    JsonSource,
    MappingSource,
    StaticSource,
    static_table,
    table_for,
)
from .environment import environment_table, resolved_table
from .index import BlobCache, FileIndex, Indexer, RefIndex
from .query import (
    ApiCoverage,
    ApiName,
    CoverageReport,
    RefCoverage,
    TestHit,
    coverage_for,
    parse_upstream,
    resolve_targets,
)

__all__ = [
    "AliasSource",
    "AliasTable",
    "ApiCoverage",
    "ApiName",
    "BlobCache",
    "CoverageReport",
    "FileIndex",
    "Indexer",
    "JsonSource",
    "MappingSource",
    "RefCoverage",
    "RefIndex",
    "StaticSource",
    "TestHit",
    "coverage_for",
    "environment_table",
    "parse_upstream",
    "resolve_targets",
    "resolved_table",
    "static_table",
    "table_for",
]
