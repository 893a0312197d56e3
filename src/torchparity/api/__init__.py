"""Resolve an API name and classify it, with dispatch-trace evidence (asks the agent)."""

from .classify import CATEGORIES, classify
from .records import ApiInfo, Classification, OpCount, Resolution, TestOps, Trace, merge_traces
from .resolve import (
    AgentSession,
    UnresolvedApi,
    agent_session,
    name_patterns,
    resolve_api,
    trace_call,
    trace_file,
)

__all__ = [
    "CATEGORIES",
    "AgentSession",
    "ApiInfo",
    "Classification",
    "OpCount",
    "Resolution",
    "TestOps",
    "Trace",
    "UnresolvedApi",
    "agent_session",
    "classify",
    "merge_traces",
    "name_patterns",
    "resolve_api",
    "trace_call",
    "trace_file",
]
