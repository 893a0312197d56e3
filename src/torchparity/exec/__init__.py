"""Where jobs run: a warm worker or fresh interpreters locally (Ray for clusters)."""

from .runners import FreshRunner, Job, JobResult, Runner, WarmWorker, make_runner

__all__ = ["FreshRunner", "Job", "JobResult", "Runner", "WarmWorker", "make_runner"]
