"""``batch``: every task of a task list verified as ``verify`` would, sharing what can be shared.

The batch is a run of kind ``batch`` in the store, holding its plan and each
task's state; each task is a verify run of its own (``Pipeline``, the same
stages as ``verify``), drawing on one ``Shared``: one pool of runners for all
tasks (a warm worker per environment, or Ray actors), one checkout per commit,
one resolve job for every API, one coverage index per ref. Tasks run
``jobs`` at a time; a task that fails (bad input, a broken environment) is
recorded and the others go on.

Nothing finished is done again: a task's state is stored when it starts (its
verify run) and when it ends, each target of its verify run when that target
ends (``Collector``), each stage's record when the stage ends. ``resume`` (after
Ctrl-C or a SIGKILL of the controller) reads the plan from the store, removes
the checkouts the killed process left, keeps finished tasks, and continues each
started task's verify run: its finished stages and targets are kept. The batch run is held by
one process at a time (its store's lock, taken before any work): a second ``batch --resume`` of it
is refused untouched while the first runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ..collect import Reporter, Target, TargetRecord
from ..collect.checkouts import SharedCheckouts, remove_leftovers
from ..config import Config
from ..errors import ExitCode, TorchparityError, UsageError
from ..gitrepo import repo_root
from ..phrases import phrase
from ..records.base import open_envelope
from ..records.batch import BatchPlan, BatchTask, BatchTaskState
from ..records.verify import TargetVerdict
from ..store import Store, put, read_run
from ..verify import Pipeline, Stages, Verdict
from ..verify.shared import Cancelled, Shared, pool_for
from . import summary
from .plan import BatchOptions, jobs_for, out_folders, read_plan, task_options
from .progress import BatchProgress
from .scheduler import run_all


@dataclass
class BatchOutcome:
    run_id: int
    uid: str
    plan: BatchPlan
    states: dict[int, BatchTaskState]
    complete: bool
    summary_md: Path
    summary_json: Path
    #: what was shared, counted: resolve jobs, coverage builds, checkouts, runners started
    shared: dict[str, int] = field(default_factory=dict)

    @property
    def exit_code(self) -> ExitCode:
        if not self.complete:
            return ExitCode.INTERRUPTED
        states = list(self.states.values())
        if any(s.status == "failed" and s.error.startswith("bad input") for s in states):
            return ExitCode.USAGE_ERROR
        if any(s.status == "failed" or s.result == "ERROR" for s in states):
            return ExitCode.ENVIRONMENT_ERROR
        if any(s.result != "PASS" for s in states):
            return ExitCode.FAILED
        return ExitCode.OK


class _TaskHooks(Stages):
    """One task's stages and targets, told to the progress display; its verify run, told to the store."""

    def __init__(self, batch: _Batch, task: BatchTask) -> None:
        self.batch = batch
        self.task = task
        self.run_id: int | None = None

    def stage(self, name: str, detail: str = "") -> None:
        if self.batch.progress is not None:
            self.batch.progress.stage(self.task.index, name, detail)

    def run_started(self, run_id: int) -> None:
        self.run_id = run_id
        self.batch.record(
            BatchTaskState(
                self.task.index, self.task.api, "started", run_id, self.batch.store.run(run_id).uid
            )
        )

    def collector_reporter(self) -> Reporter:
        hooks = self

        class _Targets(Reporter):
            def target_done(self, target: Target, record: TargetRecord) -> None:
                if hooks.batch.progress is not None:
                    said = tuple(phrase(n) for n in record.notes if n.code.startswith("node_lost"))
                    hooks.batch.progress.target_done(
                        hooks.task.index, target.label, record.result, said
                    )

        return _Targets()


def _states(store: Store, run_id: int) -> dict[int, BatchTaskState]:
    """The newest state of each task in batch run ``run_id``."""
    out: dict[int, BatchTaskState] = {}
    for kind, _key, doc in store.records(run_id):
        if kind == BatchTaskState.KIND:
            st = open_envelope(doc, BatchTaskState)
            out[st.index] = st
    return out


def _stored_plan(store: Store, run_id: int) -> BatchPlan:
    for kind, _key, doc in store.records(run_id):
        if kind == BatchPlan.KIND:
            return open_envelope(doc, BatchPlan)
    raise UsageError(f"run {run_id} holds no batch plan; it cannot be resumed as a batch")


class _Batch:
    def __init__(
        self,
        store: Store,
        cfg: Config,
        opt: BatchOptions,
        plan: BatchPlan,
        run_id: int,
        argv: list[str],
        progress: BatchProgress | None,
    ) -> None:
        self.store = store
        self.cfg = cfg
        self.opt = opt
        self.plan = plan
        self.run_id = run_id
        self.uid = store.run(run_id).uid
        self.argv = argv
        self.progress = progress
        self.states = _states(store, run_id)
        self.folders = out_folders(plan, opt.out)

    def record(self, state: BatchTaskState) -> None:
        put(
            self.store, state, self.run_id, state.api
        )  # one transaction: the task's state is kept or not
        self.states[state.index] = state

    def run(self, shared: Shared) -> None:
        todo = [
            t
            for t in self.plan.tasks
            if not (t.index in self.states and self.states[t.index].finished)
        ]
        for t in self.plan.tasks:
            if t not in todo and self.progress is not None:
                self.progress.kept_done(self.states[t.index])
        self._prepare(shared, todo)
        run_all(todo, lambda t: self._task(shared, t), jobs_for(self.opt.jobs), shared.cancel)

    def _prepare(self, shared: Shared, todo: list[BatchTask]) -> None:
        """One resolve job for every API that has no stored answer; their coverage planned together."""
        env = self.opt.envs[0]
        device = env.device or self.opt.verify.device or self.cfg.device
        fresh = []
        for t in todo:
            continued = self._continued(t)
            if continued is None or read_run(self.store, continued).resolve is None:
                fresh.append(t)
        if fresh:
            shared.resolve_all([t.api for t in fresh], env, device, self.cfg.backend_module)
        if self.opt.repo is None:
            return
        root = repo_root(self.opt.repo)
        groups: dict[tuple[str, ...], list[BatchTask]] = {}
        for t in fresh:
            groups.setdefault(
                tuple(t.refs or self.plan.refs or self.cfg.active_branches or ("HEAD",)), []
            ).append(t)
        for refs, tasks in groups.items():
            infos = []
            for t in tasks:
                try:
                    infos.append(shared.resolve(t.api, env, device, self.cfg.backend_module))
                except TorchparityError:
                    continue  # that task says why when it runs
            shared.coverage.plan(root, refs, infos)

    def _continued(self, task: BatchTask) -> int | None:
        """The verify run a started task continues (None: it starts one)."""
        st = self.states.get(task.index)
        return st.run_id if st is not None and st.status == "started" else None

    def _task(self, shared: Shared, task: BatchTask) -> None:
        if shared.stopping:
            return
        if self.progress is not None:
            self.progress.task_started(task.index, task.api)
        hooks = _TaskHooks(self, task)
        started = time.monotonic()
        options = task_options(self.opt, self.plan, task, self.folders[task.index])
        argv = [
            *self.argv,
            "--task",
            task.api,
        ]  # the batch's command line, and which task (not a verb's own)
        continued = self._continued(task)
        state: BatchTaskState | None
        try:
            if continued is not None and self.store.run(continued).status == "complete":
                state = self._done_from_run(task, continued, time.monotonic() - started)
            else:
                verdict = Pipeline(self.store, self.cfg, options, hooks, argv, shared).run(
                    continue_run=continued
                )
                state = self._done(task, verdict, time.monotonic() - started)
        except (Cancelled, KeyboardInterrupt):
            state = None  # still started: a resume continues it
        except TorchparityError as exc:
            if shared.stopping:  # what an interrupt cut short is not the task's verdict
                state = None
                if self.progress is not None:
                    self.progress.task_finished(task.index, None)
                return
            kind = "bad input" if isinstance(exc, UsageError) else "broken environment"
            state = BatchTaskState(
                task.index,
                task.api,
                "failed",
                hooks.run_id,
                self.store.run(hooks.run_id).uid if hooks.run_id else "",
                error=f"{kind}: {exc}",
                seconds=round(time.monotonic() - started, 3),
            )
        except Exception as exc:  # a torchparity bug in one task: said, and the others go on
            state = BatchTaskState(
                task.index,
                task.api,
                "failed",
                hooks.run_id,
                error=(
                    f"internal error: {type(exc).__name__}: {exc} (a torchparity bug; rerun the task with "
                    "verify --debug and report it)"
                ),
                seconds=round(time.monotonic() - started, 3),
            )
        if state is not None:
            self.record(state)
        if self.progress is not None:
            self.progress.task_finished(task.index, state)

    def _done(self, task: BatchTask, v: Verdict, seconds: float) -> BatchTaskState:
        result = (
            "PASS"
            if v.passed
            else ("ERROR" if v.exit_code == ExitCode.ENVIRONMENT_ERROR else "FAIL")
        )
        assert v.run_id is not None
        return BatchTaskState(
            task.index,
            task.api,
            "done",
            v.run_id,
            self.store.run(v.run_id).uid,
            result,
            tuple(TargetVerdict(r.label, r.result) for r in v.records),
            tuple(v.blockers),
            outputs=tuple(v.outputs.items()),
            seconds=round(seconds, 3),
        )

    def _done_from_run(self, task: BatchTask, run_id: int, seconds: float) -> BatchTaskState:
        """A task whose verify run ended after its last stored state (the controller died in between)."""
        row = self.store.run(run_id)
        rec = read_run(self.store, run_id).verify
        outputs = row.summary.get("outputs") or {}
        return BatchTaskState(
            task.index,
            task.api,
            "done",
            run_id,
            row.uid,
            rec.result if rec else str(row.result),
            rec.targets if rec else (),
            rec.blockers if rec else (),
            outputs=tuple((str(k), str(v)) for k, v in outputs.items()),
            seconds=round(seconds, 3),
        )


def run_batch(
    store: Store,
    cfg: Config,
    opt: BatchOptions,
    argv: list[str],
    *,
    progress: BatchProgress | None = None,
    continue_run: int | None = None,
) -> BatchOutcome:
    """Run (or continue) a batch; returns what it did. ``KeyboardInterrupt`` passes through once the
    running tasks have unwound and the batch run is marked incomplete."""
    if opt.verify.lang not in ("zh", "en"):
        raise UsageError(f"--lang {opt.verify.lang!r}: use zh or en")
    jobs = jobs_for(opt.jobs)
    root = repo_root(opt.repo) if opt.repo is not None else None
    if continue_run is None:
        ray_envs = _ray_envs(cfg, opt)
        plan = read_plan(
            opt,
            cfg,
            ray_envs,
            (opt.verify.ray or str(cfg.ray.get("address") or "")) if ray_envs else "",
        )
        run_id = store.new_run("batch", argv)
        put(store, plan, run_id, plan.source)
    else:
        # one writer per run, before any work: while another process resumes this batch, this one is
        # refused here (naming it), before a run is reopened, a checkout removed or a task started
        store.claim_run(continue_run)
        try:
            row = store.run(continue_run)
            if row.kind != "batch":
                raise UsageError(
                    f"run {continue_run} is a {row.kind} run, not a batch; resume it with its own verb"
                )
            if row.status == "complete":
                raise UsageError(
                    f"batch {continue_run} is complete; nothing to resume (see its batch-summary.md)"
                )
            plan = _stored_plan(store, continue_run)
            run_id = row.id
            store.reopen_run(run_id)
        except BaseException:
            store.release_run(continue_run)
            raise
        remove_leftovers(root, row.uid)  # what a killed controller left: its checkouts
    batch = _Batch(store, cfg, opt, plan, run_id, argv, progress)
    if progress is not None:
        progress.total, progress.jobs, progress.batch_uid = len(plan.tasks), jobs, batch.uid
    workers = max(1, -(-jobs // max(1, len(opt.envs))))
    pool = pool_for(
        cfg,
        opt.envs,
        mode="fresh" if opt.verify.fresh else "warm",
        workers=workers,
        ray_address=opt.verify.ray,
        repo=root,
    )
    checkouts = SharedCheckouts(batch.uid) if root is not None else None
    shared = Shared(store, pool, test_roots=cfg.test_roots, checkouts=checkouts)
    complete = False
    try:
        batch.run(shared)
        complete = True
    finally:
        counts = {
            "resolve_jobs": shared.resolve_calls,
            "coverage_builds": shared.coverage.builds,
            "checkouts": checkouts.made if checkouts is not None else 0,
            "runners_started": int(getattr(pool, "started", 0))
            + int(getattr(getattr(pool, "local", None), "started", 0)),
        }
        shared.close()
        md, js = summary.write(opt.out, plan, batch.states, batch.uid, complete)
        results = [s.result or s.status for s in batch.states.values()]
        overall = (
            "INCOMPLETE"
            if not complete
            else ("PASS" if results and all(r == "PASS" for r in results) else "FAIL")
        )
        store.finish_run(
            run_id,
            overall,
            status="complete" if complete else "incomplete",
            summary={"tasks": len(plan.tasks), "summary": str(md), "shared": counts},
        )
    return BatchOutcome(run_id, batch.uid, plan, batch.states, complete, md, js, counts)


def _ray_envs(cfg: Config, opt: BatchOptions) -> tuple[str, ...]:
    if not (opt.verify.ray or cfg.ray.get("address")):
        return ()
    return tuple(
        e.name for e in opt.envs if e.name in cfg.envs and cfg.envs[e.name].ray is not None
    )


__all__ = ["BatchOutcome", "run_batch"]
