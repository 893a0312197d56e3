"""Collect evidence: targets = refs x environments; worktrees; agent jobs; records and logs."""

from ..records.target import Step, TargetRecord, TestFile, record_from_json
from .collector import (
    CollectOptions,
    Collector,
    CollectOutcome,
    EnvSpec,
    Reporter,
    Target,
    check_states,
)
from .envs import emulation_notes, select_envs
from .evidence import render_log

__all__ = [
    "CollectOptions",
    "CollectOutcome",
    "Collector",
    "EnvSpec",
    "Reporter",
    "Step",
    "Target",
    "TargetRecord",
    "TestFile",
    "check_states",
    "emulation_notes",
    "record_from_json",
    "render_log",
    "select_envs",
]
