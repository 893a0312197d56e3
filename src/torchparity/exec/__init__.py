"""Where jobs run: a warm worker (fork per job) or fresh interpreters, on this machine.

Importing this package is light (``interrupt``, which every verb uses, imports nothing heavy); the
runners and sessions are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runners import FreshRunner, Job, JobResult, Runner, WarmWorker, check_timeout, make_runner
    from .session import AgentSession, agent_session

_FROM = {
    "FreshRunner": "runners",
    "Job": "runners",
    "JobResult": "runners",
    "Runner": "runners",
    "WarmWorker": "runners",
    "check_timeout": "runners",
    "make_runner": "runners",
    "AgentSession": "session",
    "agent_session": "session",
}


def __getattr__(name: str) -> Any:
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = [
    "AgentSession",
    "FreshRunner",
    "Job",
    "JobResult",
    "Runner",
    "WarmWorker",
    "agent_session",
    "check_timeout",
    "make_runner",
]
