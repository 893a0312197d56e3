"""The batch's records: the plan it was asked to run, and each task's state in the batch run.

A batch is one run of kind ``batch`` holding a ``BatchPlan`` (the tasks as they
were read when it started: a resume runs the same tasks even if the file
changed) and a ``BatchTaskState`` per task and change of state, newest last:
``started`` (its verify run exists), then ``done`` (a verdict) or ``failed`` (the
task stopped with an error: bad input, a broken environment; said in ``error``).
Every task is a verify run of its own, so ``torchparity report RUN`` renders it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .base import Record
from .task import TaskRecord
from .verify import TargetVerdict


@dataclass(frozen=True)
class BatchTask:
    """One task of the plan: the API and its PR fields (``fields.api`` is None)."""

    index: int
    api: str
    fields: TaskRecord
    #: the refs of this task (empty: the batch's)
    refs: tuple[str, ...] = ()
    #: where it was read ("tasks.toml:12", "issue.txt: API名称")
    source: str = ""


@dataclass(frozen=True)
class BatchPlan(Record):
    SCHEMA: ClassVar[str] = "torchparity.batch-plan/1"
    KIND: ClassVar[str] = "batch-plan"

    tasks: tuple[BatchTask, ...]
    #: the TASKS file and its form: text | toml | issue
    source: str
    form: str
    refs: tuple[str, ...] = ()
    envs: tuple[str, ...] = ()
    #: environments whose jobs go to a Ray cluster, and its address ("" when none)
    ray_envs: tuple[str, ...] = ()
    ray_address: str = ""


@dataclass(frozen=True)
class BatchTaskState(Record):
    SCHEMA: ClassVar[str] = "torchparity.batch-task/1"
    KIND: ClassVar[str] = "batch-task"

    index: int
    api: str
    status: str  # started | done | failed
    run_id: int | None = None
    run_uid: str = ""
    result: str = ""  # PASS | FAIL | ERROR (done); "" otherwise
    targets: tuple[TargetVerdict, ...] = ()
    blockers: tuple[str, ...] = ()
    #: the error that stopped the task (failed), one line
    error: str = ""
    #: files written: pr, comment, json, junit, evidence, pr@<ref> ...
    outputs: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed")


__all__ = ["BatchPlan", "BatchTask", "BatchTaskState"]
