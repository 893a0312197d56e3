"""From the batch's options and its tasks to one ``VerifyOptions`` per task, every input checked first.

What a batch is asked is what ``verify`` is asked, once per task: the same
options, each task's own PR fields on top of the command line's, its own
output folder (``OUT/<api slug>``). Refs are checked for every task before any
work (a maintenance branch or an unknown ref is bad input now, not after an
hour of runs).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from ..collect import EnvSpec
from ..config import Config
from ..errors import UsageError
from ..gitrepo import repo_root, resolve_commit
from ..records.batch import BatchPlan, BatchTask
from ..records.task import TaskRecord
from ..report.build import GIVEN_FIELDS
from ..verify import VerifyOptions, slug
from .tasks import read_tasks


@dataclass
class BatchOptions:
    tasks: Path
    #: what every task's verify is given (its api, refs, PR fields and folder are the task's own)
    verify: VerifyOptions = field(default_factory=lambda: VerifyOptions(api=""))
    #: folder of the tasks' folders (OUT/<api slug>/) and of the batch summary
    out: Path = Path("torchparity-out")
    #: targets at once (0: sized to the cores)
    jobs: int = 0

    @property
    def envs(self) -> list[EnvSpec]:
        return self.verify.envs

    @property
    def repo(self) -> Path | None:
        return self.verify.repo


def jobs_for(requested: int) -> int:
    if requested < 0:
        raise UsageError(f"--jobs {requested}: give a positive number (0: sized to the cores)")
    return requested or max(1, os.cpu_count() or 1)


def read_plan(
    opt: BatchOptions, cfg: Config, ray_envs: tuple[str, ...] = (), ray_address: str = ""
) -> BatchPlan:
    """The plan of a new batch: the tasks file read, every task's refs checked."""
    if not opt.envs:
        raise UsageError("no environment given; pass --python PY or --env NAME")
    listed = read_tasks(opt.tasks)
    plan = BatchPlan(
        tasks=listed.tasks,
        source=listed.source,
        form=listed.form,
        refs=tuple(opt.verify.refs),
        envs=tuple(e.name for e in opt.envs),
        ray_envs=ray_envs,
        ray_address=ray_address,
    )
    check_refs(plan, opt, cfg)
    return plan


def check_refs(plan: BatchPlan, opt: BatchOptions, cfg: Config) -> None:
    """Every task's refs exist and take new tests (the same rule verify applies, for all tasks at once)."""
    root = repo_root(opt.repo) if opt.repo is not None else None
    for task in plan.tasks:
        refs = task.refs or plan.refs
        if root is None:
            if task.refs or plan.refs:
                raise UsageError(
                    f"{task.source}: refs need --repo: they are looked up in the backend's git repository"
                )
            continue
        for ref in refs or cfg.active_branches or ("HEAD",):
            if cfg.is_maintenance(ref):
                raise UsageError(
                    f"{task.source} ({task.api}): {ref} is a maintenance branch "
                    f"({cfg.maintenance_reason or 'it takes no new tests'}); drop it"
                )
            resolve_commit(root, ref)


def merged_fields(common: TaskRecord, own: TaskRecord) -> TaskRecord:
    """The task file's PR fields over the command line's."""
    changes = {
        f.name: getattr(own, f.name)
        for f in fields(TaskRecord)
        if f.name in GIVEN_FIELDS and getattr(own, f.name) not in (None, "", ())
    }
    return replace(common, **changes)


def task_options(opt: BatchOptions, plan: BatchPlan, task: BatchTask, out: Path) -> VerifyOptions:
    """What ``verify`` would be given for this task."""
    common = opt.verify
    return replace(
        common,
        api=task.api,
        refs=list(task.refs or plan.refs),
        envs=list(common.envs),
        out=out,
        fields=merged_fields(common.fields, task.fields),
    )


def out_folders(plan: BatchPlan, out: Path) -> dict[int, Path]:
    """``OUT/<slug>`` per task; two tasks with one slug get ``-2``, ``-3`` ... in task order."""
    seen: dict[str, int] = {}
    folders = {}
    for task in plan.tasks:
        name = slug(task.api)
        seen[name] = seen.get(name, 0) + 1
        folders[task.index] = out / (name if seen[name] == 1 else f"{name}-{seen[name]}")
    return folders


__all__ = [
    "BatchOptions",
    "check_refs",
    "jobs_for",
    "merged_fields",
    "out_folders",
    "read_plan",
    "task_options",
]
