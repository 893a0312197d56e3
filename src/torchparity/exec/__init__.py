"""Where jobs run: a warm worker (fork per job) or fresh interpreters, on this machine."""

from .runners import FreshRunner, Job, JobResult, Runner, WarmWorker, check_timeout, make_runner
from .session import AgentSession, agent_session

__all__ = [
    "AgentSession", "FreshRunner", "Job", "JobResult", "Runner", "WarmWorker", "agent_session", "check_timeout",
    "make_runner",
]
