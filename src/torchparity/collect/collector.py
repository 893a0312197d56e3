"""Run a backend's test files for every (ref, environment) target and keep the evidence.

For each target: a checkout at the ref (or the files as they are on disk),
the SHA-256 of every test file, then agent jobs on one runner (warm worker by
default, fresh interpreters with ``fresh``): the environment probe, each file
run whole as ``python FILE -v`` would, the state-leak check, and the isolation
probe for the chosen states. The record and its log go to the store.

The runners come from a pool (``exec.pool``: one warm worker per environment,
with lanes so that targets of one environment run at once), given by the
owner (``verify`` shares its pool with resolve and the scaffold's facts) or made
for this collect. The checkouts (``ref_checkouts``: one per ref, shared by its
environments, only what the run reads) are all started before the first job,
while the workers import torch. A record is stored once its checkout is
removed, so that its log states the cleanup, also when the checkout is shared.
"""

from __future__ import annotations

import os
import shlex
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import __version__
from ..agent import state as agent_state
from ..emulated import emulation
from ..errors import EnvironmentBroken, ExitCode, UsageError
from ..exec import Job, JobResult, Runner, check_timeout
from ..exec.capture import check_max_output
from ..exec.interrupt import Interrupted, stopping, temp_dir
from ..exec.pool import LocalPool, RunnerPool
from ..gitrepo import blob_bytes, commit_title, git, path_exists, repo_root, resolve_commit
from ..records.notes import Note
from ..records.target import (
    BY_ID,
    WHOLE,
    Step,
    TargetRecord,
    TestFile,
    emulated_device,
    leak_verdict,
    record_from_json,
)
from ..records.task import TaskRecord
from ..store import Store, sha256_bytes, sha256_file
from ..store import put as put_record
from ..upstream.disabled import DisabledList, list_at
from ..upstream.find import entry_kind
from ..upstream.settings import UpstreamSettings
from . import api_tests
from .api_tests import FileTests
from .envspec import EnvSpec
from .evidence import render_log
from .ref_checkouts import RefCheckouts
from .verdict import failing_tests, judge

#: where a target's files come from: (repo, target) -> a checkout that lasts while the target runs
#: (its ``path``; ``remove_exit_code`` once removed; ``key`` and ``description`` where it says them)
Checkouts = Callable[[Path, "Target"], AbstractContextManager[Any]]


@dataclass(frozen=True)
class Target:
    ref: str  # as asked ("v2.7.1"), or "local" without a repo
    commit: str  # resolved commit id, "" without a repo
    env: EnvSpec
    #: test files for this target (empty: the options' files)
    files: tuple[str, ...] = ()
    #: files written into the worktree before running (path relative to the repo, bytes):
    #: a scaffolded test that is not committed at this ref yet
    overlay: tuple[tuple[str, bytes], ...] = ()
    #: isolation-probe test selection for this target (empty: the options' patterns)
    patterns: tuple[str, ...] = ()
    #: which tests of each file are the API's, and which files run by id (a file not named here runs
    #: whole and all its tests are the API's: the collect verb's files)
    api: tuple[FileTests, ...] = ()
    #: set for a target no environment fits: nothing runs, the record says what the ref needs
    mismatch: str = ""
    #: the torch releases the ref targets, and what the version check said ("" : not checked)
    torch_wanted: tuple[str, ...] = ()
    version_check: str = ""
    #: the environment's torch version as probed when the targets were planned ("" : not asked)
    torch_version: str = ""

    @property
    def label(self) -> str:
        return f"{self.ref}@{self.env.name}"


@dataclass
class CollectOptions:
    files: list[str]
    repo: Path | None = None
    refs: list[str] = field(default_factory=list)
    envs: list[EnvSpec] = field(default_factory=list)
    device: str = "auto"
    backend_module: str = ""
    timeout: float | None = 900.0
    mode: str = "warm"  # warm | fresh
    argv: list[str] = field(default_factory=lambda: ["-v"])
    isolation_states: list[str] = field(default_factory=list)
    patterns: list[str] = field(default_factory=list)
    fail_on_leak: bool = False
    #: run the selected tests once more under the dispatch recorder (which ATen ops, on which devices)
    trace: bool = False
    jobs: int = 0  # 0: one per target, at most the CPU count
    source_branch: str = ""
    #: what the run is asked to do (stored with a new run, so its texts need nothing else)
    task: TaskRecord | None = None
    #: a requested device that is not there runs on the cpu (the log says so) instead of ERROR
    allow_cpu_fallback: bool = False
    #: target label -> lines an earlier stage adds to that target's log (the upstream stage's section)
    log_sections: dict[str, list[str]] = field(default_factory=dict)
    #: how each ref's files are checked out: sparse (only what the run reads) | worktree (git worktree)
    checkout: str = "sparse"
    #: folders written into a sparse checkout beside the test files and what they import (test roots)
    checkout_roots: list[str] = field(default_factory=list)
    #: modules the warm workers import before forking (None: torch's test framework and compiler)
    preload: Sequence[str] | None = None
    #: bytes of each step's output kept (its head and tail, ``exec/capture.py``); None: 16 MiB; 0: all
    max_output: int | None = None
    #: the backend's vendored files and disabled list (``[upstream]``): applied to the tests run by id
    upstream: UpstreamSettings | None = None
    #: ref -> (path, bytes) of a test written for the API (scaffolded), run where none of its direct
    #: tests ran (all skipped, disabled or never started); None: no such test
    fallback: Callable[[str], tuple[str, bytes] | None] | None = None


def _judged(full: Step, source: Step) -> Step:
    """The run as judged: its tests and runner (``judge`` puts them on ``full``) with the answer they
    came in (``source``: the run itself, or with fresh interpreters the agent's own rerun)."""
    return full if source is full else replace(full, result=source.result)


@dataclass
class _TargetDraft:
    """A target's record while the collector runs it.

    The record is frozen: each fact learned makes its next version (``learn``), so that a run cut
    short by an error keeps every fact learned before it. ``replace`` copies shallowly: every version
    shares the record's lists, and what is appended to ``rec``'s lists (files, steps, tests, notes)
    is in the record as it ends. Its lists are appended to, never replaced.
    """

    rec: TargetRecord

    def learn(self, **facts: Any) -> None:
        """The record with ``facts`` (field name -> value) in place of what it said."""
        self.rec = self.rec.replace(**facts)


def _closed(rec: TargetRecord) -> TargetRecord:
    """``rec`` with what is stored at its end (also for a partial one, so that a report never has to
    guess it): the state-leak check's verdict, the collector's exit code, the time it finished."""
    leak_status, leak_reason, leak_tests_watched = leak_verdict(rec)
    return rec.replace(
        leak_status=leak_status,
        leak_reason=leak_reason,
        leak_tests_watched=leak_tests_watched,
        collector_exit_code=EXIT_CODES[rec.result],
        finished=time.time(),
    )


#: the collector's exit code for each target result
EXIT_CODES = {"PASS": 0, "FAIL": 1, "NONE_RAN": 1, "MISMATCH": 3, "ERROR": 3, "INCOMPLETE": 130}


class Reporter:
    """Hooks the collector calls as it works (the CLI draws progress from them)."""

    def target_started(self, target: Target, steps: int) -> None: ...

    def step_done(self, target: Target, step: Step) -> None: ...

    def target_done(self, target: Target, record: TargetRecord) -> None: ...


@dataclass
class CollectOutcome:
    run_id: int
    records: list[TargetRecord]
    complete: bool

    @property
    def exit_code(self) -> ExitCode:
        if not self.complete:
            return ExitCode.INTERRUPTED
        results = {r.result for r in self.records}
        if "ERROR" in results:
            return ExitCode.ENVIRONMENT_ERROR
        if results - {"PASS"}:
            return ExitCode.FAILED
        return ExitCode.OK


def check_states(names: list[str]) -> None:
    unknown = [n for n in names if n not in agent_state.STATE_NAMES]
    if unknown:
        raise UsageError(
            f"unknown state {unknown[0]!r}; known states: {', '.join(agent_state.STATE_NAMES)}"
        )


#: a probe whose worker was lost is tried again this many times (lanes die together when the worker does)
PROBE_RETRIES = 3


class Collector:
    def __init__(
        self,
        store: Store,
        options: CollectOptions,
        reporter: Reporter | None = None,
        *,
        runners: RunnerPool | None = None,
        checkouts: Checkouts | None = None,
    ) -> None:
        """``runners``: a pool its owner keeps (and closes) across stages or collectors; ``checkouts``:
        checkouts its owner keeps; without them, a pool and a checkout per ref of this collect's own."""
        self.store = store
        self.opt = options
        self.reporter = reporter or Reporter()
        self._cancel = threading.Event()
        self.given_runners = runners
        self.given_checkouts = checkouts
        #: the runners of this run: one per environment (interpreter, device), shared by that
        #: environment's targets: torch is imported once per environment, not once per ref
        self.runners: RunnerPool | None = runners
        self.checkouts: Checkouts | None = checkouts
        self._lock = threading.Lock()
        #: the backend's disabled lists read so far (by SHA-256), for the tests run by id
        self._lists: dict[str, DisabledList] = {}
        #: each target's place in the run as asked (label -> index)
        self._order: dict[str, int] = {}
        #: records stored once their shared checkout was removed (label -> the record as stored, with
        #: the removal's exit code): the run's outcome holds these
        self._removed: dict[str, TargetRecord] = {}
        self._lists_lock = threading.Lock()
        check_states(options.isolation_states)
        check_timeout(options.timeout)
        check_max_output(options.max_output)
        #: paths that a target may overlay (so planning does not ask git for them)
        self.overlay_paths: set[str] = set()
        if options.mode not in ("warm", "fresh"):
            raise UsageError(f"unknown run mode {options.mode!r}; use warm or fresh")
        if options.jobs < 0:
            raise UsageError(
                f"--jobs {options.jobs}: give how many targets run at once (0: up to the CPU count)"
            )

    # -- planning: every input checked before any work starts ----------------------------
    def plan(self) -> list[Target]:
        opt = self.opt
        if not opt.files:
            raise UsageError("no test file given; pass at least one TEST_FILE")
        if not opt.envs:
            raise UsageError("no environment given; pass --python PY or --env NAME")
        targets: list[Target] = []
        if opt.repo is None:
            if opt.refs:
                raise UsageError("--ref needs --repo: refs are looked up in a git repository")
            for f in opt.files:
                if not Path(f).is_file():
                    raise UsageError(f"test file not found: {f}; pass an existing file")
            refs = [("local", "")]
        else:
            root = repo_root(opt.repo)
            self.opt.repo = root
            # worktrees of a run that was killed outright (SIGKILL, a lost machine) are pruned first
            git(root, "worktree", "prune", check=False)
            ref_names = opt.refs or ["HEAD"]
            refs = [(r, resolve_commit(root, r)) for r in ref_names]
            for ref, commit in refs:
                for f in opt.files:
                    if self._relpath(f) in self.overlay_paths:
                        continue
                    if not path_exists(root, commit, self._relpath(f)):
                        raise UsageError(
                            f"test file {f} does not exist at {ref} ({commit[:12]}) in {root}; "
                            "give a path relative to the repo root that exists at every --ref"
                        )
        for ref, commit in refs:
            for env in opt.envs:
                targets.append(Target(ref, commit, env))
        labels = [t.label for t in targets]
        if len(set(labels)) != len(labels):
            raise UsageError("the same ref and environment are given twice; drop the duplicate")
        return targets

    def _relpath(self, f: str) -> str:
        p = Path(f)
        if p.is_absolute() and self.opt.repo is not None:
            try:
                return p.relative_to(self.opt.repo).as_posix()
            except ValueError:
                raise UsageError(f"test file {f} is not inside the repo {self.opt.repo}") from None
        return p.as_posix()

    # -- running ----------------------------------------------------------------------------
    def run(
        self,
        argv: list[str],
        targets: list[Target] | None = None,
        run_id: int | None = None,
        kind: str = "run",
        finish: bool = True,
    ) -> CollectOutcome:
        """Collect every target into run ``run_id`` (a new run when None).

        Given an existing run, targets it already finished (PASS, FAIL, ERROR) are kept
        as they are and only the others run again: an interrupted run resumes.
        ``finish=False`` leaves closing the run to its owner (``verify`` has stages after this one).
        """
        targets = self.plan() if targets is None else targets
        given = run_id is not None
        if run_id is None:
            run_id = self.store.new_run(kind, argv)
            if self.opt.task is not None:
                put_record(self.store, self.opt.task, run_id, self.opt.task.api or "")
        # one process at a time works on a run (its store's lock, ``store/runlock.py``): a second resume
        # of it is refused, naming the holder
        with self.store.hold_run(run_id):
            return self._run(targets, run_id, resumed=given, finish=finish)

    def _run(
        self, targets: list[Target], run_id: int, resumed: bool, finish: bool
    ) -> CollectOutcome:
        records: list[TargetRecord] = []
        self._order = {t.label: i for i, t in enumerate(targets)}
        self._removed = {}
        if resumed:
            self.store.reopen_run(run_id)
            kept = {
                t.label: t
                for t in self.store.targets(run_id)
                if t.result in ("PASS", "FAIL", "NONE_RAN", "MISMATCH", "ERROR")
            }
            for t in targets:
                sha = kept[t.label].record_sha if t.label in kept else None
                if sha:
                    records.append(record_from_json(self.store.read_json(sha)))
            targets = [t for t in targets if t.label not in kept]
        jobs = self.opt.jobs or min(len(targets), os.cpu_count() or 1)
        complete = True
        self._setup(targets)
        pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="target")
        futures: dict[Future[TargetRecord], Target] = {}
        try:
            for t in targets:
                futures[pool.submit(self._collect_and_store, run_id, t)] = t
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for fut in done:
                    records.append(fut.result())
        except BaseException:
            complete = False
            self._cancel.set()  # first: a queued target that a thread picks up now never starts
            for fut in futures:
                fut.cancel()
            self.cancel()
            pool.shutdown(wait=True)
            for fut in futures:
                if fut.done() and not fut.cancelled() and fut.exception() is None:
                    rec = fut.result()
                    if rec not in records:
                        records.append(rec)
            self._teardown()  # the checkouts go: the records waiting for them are stored
            if finish:
                self._finish(run_id, records, complete=False)
            raise
        finally:
            pool.shutdown(wait=True)
            self._teardown()
        # every checkout is removed now: a record stored after its removal is the one the run holds
        records = [self._removed.get(r.label, r) for r in records]
        order = {t.label: i for i, t in enumerate(targets)}
        records.sort(key=lambda r: order.get(r.label, -1))
        if finish:
            self._finish(run_id, records, complete)
        return CollectOutcome(run_id, records, complete)

    def _finish(self, run_id: int, records: list[TargetRecord], complete: bool) -> None:
        results = [r.result for r in records]
        if not complete or "INCOMPLETE" in results:
            overall, status = "INCOMPLETE", "incomplete"
        elif "ERROR" in results:
            overall, status = "ERROR", "complete"
        elif any(r != "PASS" for r in results):
            overall, status = "FAIL", "complete"
        else:
            overall, status = "PASS", "complete"
        summary = {"targets": [{"label": r.label, "result": r.result} for r in records]}
        self.store.finish_run(run_id, overall, status=status, summary=summary)

    @property
    def _cancelled(self) -> bool:
        """Cancelled by its owner, or the process is stopping on a signal."""
        return self._cancel.is_set() or stopping()

    def cancel(self) -> None:
        """Stop all work now: kill every runner (and its children); threads unwind."""
        self._cancel.set()
        with self._lock:
            runners = self.runners
        if runners is not None:
            runners.kill()

    def _device(self, target: Target) -> str:
        return target.env.device or self.opt.device

    def _setup(self, targets: list[Target]) -> None:
        """The runners and the checkouts of this run, all started now: the workers import torch
        while the checkouts are written."""
        opt = self.opt
        with self._lock:
            if self.runners is None:
                self.runners = LocalPool(
                    opt.mode,
                    opt.backend_module,
                    allow_cpu_fallback=opt.allow_cpu_fallback,
                    preload=opt.preload,
                )
            runners = self.runners
        targets = [t for t in targets if not t.mismatch]  # nothing runs for them
        for t in targets:
            warm = getattr(runners, "warm", None)
            if warm is not None:
                warm(t.env, self._device(t))
        if opt.repo is not None and self.checkouts is None:
            own = RefCheckouts(opt.repo, opt.checkout_roots or self._top_folders(), opt.checkout)
            own.prepare(targets, lambda t: [self._relpath(f) for f in (t.files or opt.files)])  # type: ignore[attr-defined]
            self.checkouts = own

    def _top_folders(self) -> list[str]:
        """Without test roots: the top folder of each test file (``test`` for ``test/npu/x.py``)."""
        tops = [
            Path(self._relpath(f)).parts[0]
            for f in self.opt.files
            if len(Path(self._relpath(f)).parts) > 1
        ]
        return list(dict.fromkeys(tops))

    def _teardown(self) -> None:
        """Close what this collect made (not what its owner lent it)."""
        with self._lock:
            checkouts = self.checkouts if self.given_checkouts is None else None
            runners = self.runners if self.given_runners is None else None
            self.checkouts = self.given_checkouts
            self.runners = self.given_runners
        close = getattr(checkouts, "close", None)
        if close is not None:
            close()
        if runners is not None:
            runners.close()

    def _runner_for(self, target: Target, device: str) -> Runner:
        if self._cancelled:
            raise Interrupted("interrupted: no new runner is started")
        with self._lock:
            if self.runners is None:  # collect() called on its own
                self.runners = LocalPool(
                    self.opt.mode,
                    self.opt.backend_module,
                    allow_cpu_fallback=self.opt.allow_cpu_fallback,
                    preload=self.opt.preload,
                )
            runners = self.runners
        return runners.runner_for(target.env, device, target)

    def _collect_and_store(self, run_id: int, target: Target) -> TargetRecord:
        if self._cancelled:  # a target still queued when the signal came: it never starts
            raise Interrupted(f"interrupted before {target.label} started")
        rec, wait_for = self._collect(target)
        if self.runners is not None:  # the pool may note where it ran, or redo it once elsewhere
            rec = self.runners.finish_target(target, rec, self.collect)  # type: ignore[arg-type]
        rec = rec.replace(run_id=run_id)
        when_removed = getattr(self.checkouts, "when_removed", None)
        if wait_for and when_removed is not None:
            # the checkout is shared and still in use: stored once it is removed, with that exit code
            def store(code: int, rec: TargetRecord = rec) -> None:
                notes = rec.notes + ([Note.of("worktree_remove_failed")] if code != 0 else [])
                removed = rec.replace(worktree_remove_exit_code=code, notes=notes)
                self._removed[target.label] = removed
                self._store(run_id, target, removed)

            when_removed(wait_for, store)
        else:
            self._store(run_id, target, rec)
        return rec

    def _store(self, run_id: int, target: Target, rec: TargetRecord) -> None:
        log = render_log(rec, self.opt.log_sections.get(target.label, ())).encode("utf-8")
        self.store.add_target(
            run_id,
            label=target.label,
            ref=target.ref,
            env=target.env.name,
            result=rec.result,
            log=log,
            record=rec.to_json(),
        )
        self.reporter.target_done(target, rec)

    def collect(self, target: Target) -> TargetRecord:
        """Collect ``target``: its checkout, its jobs, its record (not stored)."""
        return self._collect(target)[0]

    def _collect(self, target: Target) -> tuple[TargetRecord, str]:
        """(record, key of the shared checkout still in use by other targets, else "")."""
        opt = self.opt
        device = target.env.device or opt.device
        draft = _TargetDraft(
            TargetRecord(
                label=target.label,
                ref=target.ref,
                commit=target.commit or "n/a (files as on disk)",
                env=target.env.name,
                python=target.env.python,
                mode=opt.mode,
                device=device,
                source_branch=opt.source_branch,
                started=time.time(),
                torchparity_version=__version__,
                hardware=target.env.hardware,
                commit_title=commit_title(opt.repo, target.commit)
                if opt.repo is not None and target.commit
                else None,
                emulated=emulation(target.env.emulated).device if target.env.emulated else "",
                torch_wanted=list(target.torch_wanted),
                version_check=target.version_check,
                torch_version=target.torch_version,
                order=self._order.get(target.label, 0),
            )
        )
        notes = draft.rec.notes
        if target.mismatch:  # no environment has the torch release the ref targets: nothing runs
            # nothing ran, on an emulated device or any other
            draft.learn(result="MISMATCH", emulated="")
            notes.append(
                Note.of(
                    "version_mismatch",
                    ref=target.ref,
                    wanted=" / ".join(target.torch_wanted),
                    have=target.mismatch,
                )
            )
            return _closed(draft.rec), ""
        n_files = len(target.files or opt.files)
        steps = 1 + n_files * (1 + (opt.mode == "fresh") + len(opt.isolation_states) + opt.trace)
        self.reporter.target_started(target, steps)
        logs = temp_dir("jobs")
        wait_for = ""
        try:
            wt = None
            with ExitStack() as stack:
                if opt.repo is not None:
                    checkouts = self.checkouts
                    if checkouts is None:  # collect() called on its own: a checkout for this target
                        checkouts = RefCheckouts(
                            opt.repo, opt.checkout_roots or self._top_folders(), opt.checkout
                        )
                        stack.callback(checkouts.close)
                    wt = stack.enter_context(checkouts(opt.repo, target))
                    root = wt.path
                    draft.learn(checkout=str(getattr(wt, "description", "") or ""))
                else:
                    root = Path.cwd()
                try:
                    self._run_target(
                        draft,
                        target,
                        root,
                        device,
                        logs,
                        overlaid=bool(getattr(wt, "overlaid", False)),
                    )
                finally:
                    stack.close()  # the checkout goes first, then its exit code is recorded
                    if wt is not None:
                        draft.learn(worktree_remove_exit_code=wt.remove_exit_code)
                        key = str(getattr(wt, "key", "") or "")
                        if wt.remove_exit_code is None and key:
                            wait_for = key
            if opt.repo is not None and draft.rec.worktree_remove_exit_code not in (0, None):
                notes.append(Note.of("worktree_remove_failed"))
        except EnvironmentBroken as exc:
            draft.learn(result="INCOMPLETE" if self._cancelled else "ERROR")
            notes.append(getattr(exc, "note", None) or Note.of("environment_broken", detail=exc))
        except UsageError:
            raise
        except Exception as exc:
            if not self._cancelled:
                raise
            draft.learn(result="INCOMPLETE")
            notes.append(Note.of("interrupted", detail=type(exc).__name__))
        finally:
            shutil.rmtree(logs, ignore_errors=True)
        if self._cancelled and draft.rec.result not in ("ERROR",):
            draft.learn(result="INCOMPLETE")
            if not any(n.code.startswith("interrupted") for n in notes):
                notes.append(Note.of("interrupted_before_end"))
        return _closed(draft.rec), wait_for

    def _step(
        self, runner: Runner, target: Target, job: Job, name: str, test_file: str = ""
    ) -> Step:
        if self._cancelled:
            raise EnvironmentBroken("interrupted")
        if job.max_output is None:
            job.max_output = self.opt.max_output
        res: JobResult = runner.run(job)
        step = Step(
            name=name,
            status=res.status,
            exit_code=res.exit_code,
            signal=res.signal_name,
            command=res.command,
            how=res.how,
            duration=round(res.duration, 4),
            output=res.output,
            test_file=test_file,
            result=res.result,
        )
        self.reporter.step_done(target, step)
        return step

    def _run_target(
        self,
        draft: _TargetDraft,
        target: Target,
        root: Path,
        device: str,
        logs: Path,
        overlaid: bool = False,
    ) -> None:
        opt = self.opt
        notes = draft.rec.notes
        added = set()
        for rel, data in target.overlay:
            if not overlaid:  # a checkout of the owner's that does not write it
                dest = root / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
            added.add(rel)
        for f in target.files or opt.files:
            rel = self._relpath(f) if opt.repo is not None else f
            path = (root / rel) if opt.repo is not None else Path(f).absolute()
            blob = None
            if opt.repo is not None:
                committed = blob_bytes(opt.repo, target.commit, rel)
                blob = sha256_bytes(committed) if committed is not None else None
            draft.rec.test_files.append(
                TestFile(rel, str(path), sha256_file(path), blob, added=rel in added)
            )
            if rel in added:
                notes.append(Note.of("not_committed", path=rel, ref=target.ref))
        runner = self._runner_for(target, device)
        probe = self._step(
            runner, target, Job("probe", {}, logs / "probe.log", timeout=opt.timeout), "probe"
        )
        draft.learn(probe=probe)
        for _ in range(PROBE_RETRIES):
            if probe.status != "WORKER_DIED":
                break
            # the probe is the agent's own code and no test ran: a worker (or lane) lost there is tried
            # again (the next try goes to another lane or a restarted worker), and said
            notes.append(Note.of("probe_retried", status=probe.status, detail=probe.how))
            probe = self._step(
                runner, target, Job("probe", {}, logs / "probe.log", timeout=opt.timeout), "probe"
            )
            draft.learn(probe=probe)
        draft.learn(process_tracking=str(getattr(runner, "process_tracking", "") or ""))
        if not probe.ok:
            draft.learn(result="ERROR")
            notes.append(Note.of("probe_unfinished", status=probe.status))
            return
        torch_version = str(draft.rec.probe_facts.get("torch_version") or "")
        draft.learn(torch_version=torch_version)
        if target.version_check == "allowed":
            notes.append(
                Note.of(
                    "version_mismatch_allowed",
                    ref=target.ref,
                    wanted=" / ".join(target.torch_wanted),
                    have=torch_version,
                )
            )
        draft.learn(device=probe.result.get("device_type", device))
        draft.learn(emulated=emulated_device(draft.rec) or draft.rec.emulated)
        problem = probe.result.get("device_problem")
        if problem:  # the requested device is not there: no test runs on something else instead
            draft.learn(result="ERROR")
            notes.append(Note.of("device_unavailable", detail=problem))
            return
        # the files' runs add steps, tests and notes to the record's lists: no other fact changes
        rec = draft.rec
        ok = True
        by_path = {ft.path: ft for ft in target.api}
        for i, tf in enumerate(list(rec.test_files)):
            ok = (
                self._one_file(runner, target, rec, by_path.get(tf.path), tf, root, device, logs, i)
                and ok
            )
        fallback = self._fallback(target, rec, root)
        if fallback is not None:  # none of the direct tests ran: on, as for an API without tests
            ft, tf = fallback
            i = len(rec.test_files) - 1
            ok = self._one_file(runner, target, rec, ft, tf, root, device, logs, i) and ok
        if opt.fail_on_leak and rec.leaks:
            ok = False
        draft.learn(result=api_tests.target_result(rec, ok))
        if draft.rec.result == "NONE_RAN":
            c = rec.api_counts()
            notes.append(
                Note.of(
                    "api_none_ran",
                    total=c["total"],
                    skipped=c["skipped"],
                    disabled=c["disabled"],
                    not_started=c["not_started"],
                )
            )

    def _one_file(
        self,
        runner: Runner,
        target: Target,
        rec: TargetRecord,
        ft: FileTests | None,
        tf: TestFile,
        root: Path,
        device: str,
        logs: Path,
        i: int,
    ) -> bool:
        """One test file of the target: its API tests (by id, or the whole file), then the isolation
        probes and the trace over them; False when a probe or the trace failed."""
        opt = self.opt
        ok = True
        patterns = list(target.patterns or opt.patterns)
        tf.templates = ft.templates if ft is not None else ()
        file_patterns = patterns
        chosen: list[str] | None = None  # the isolation probe and the trace run exactly these
        if ft is not None and not ft.whole and ft.templates:
            tf.selection = BY_ID
            picked = self._select(runner, target, rec, ft, tf, root, device, logs, i)
            if picked is None:
                return True  # nothing of the API's runs in this file: its tests say why
            sel, entry = picked
            args = api_tests.run_args(tf.abs_path, sel, entry, self._unset())
            cwd = api_tests.run_cwd(root, tf.abs_path, entry)
            literal = api_tests.literal(target.env.python, tf.abs_path, sel, entry)
            chosen = api_tests.isolation_tests(sel, entry)
        else:
            tf.selection = WHOLE
            args = {"path": tf.abs_path, "argv": opt.argv}
            cwd, literal = str(root), [target.env.python, tf.abs_path, *opt.argv]
        shown = cwd if cwd != str(root) else ""
        full, source = self._run_file(
            runner, target, rec, args, cwd, literal, tf.path, logs, i, shown_cwd=shown
        )
        if tf.selection == BY_ID:
            rec.api_tests.extend(api_tests.from_selection(sel, _judged(full, source)))
            rec.api_reasons.extend(api_tests.file_reasons(full, source, whole_is_api=True))
        else:
            api, unrelated, answered = api_tests.from_whole(ft, _judged(full, source))
            if not answered and ft is not None:
                # the whole run died before it answered: the API's tests run again, by id
                rec.notes.append(Note.of("api_rerun", path=tf.path, detail=full.status))
                rec.unrelated.append(
                    f"{tf.path}: the file's whole run ended {full.status} before it answered; "
                    "the API's tests were run again by id"
                )
                picked = self._select(runner, target, rec, ft, tf, root, device, logs, i)
                if picked is not None:
                    sel, entry = picked
                    again_full, again = self._run_file(
                        runner,
                        target,
                        rec,
                        api_tests.run_args(tf.abs_path, sel, entry, self._unset()),
                        api_tests.run_cwd(root, tf.abs_path, entry),
                        api_tests.literal(target.env.python, tf.abs_path, sel, entry),
                        tf.path,
                        logs,
                        i,
                        name="rerun",
                        shown_cwd=str(Path(tf.abs_path).parent) if entry == "module" else "",
                    )
                    rec.api_tests.extend(api_tests.from_selection(sel, _judged(again_full, again)))
                    rec.api_reasons.extend(
                        api_tests.file_reasons(again_full, again, whole_is_api=True)
                    )
            else:
                rec.api_tests.extend(api)
                rec.unrelated.extend(f"{tf.path}: {u}" for u in unrelated)
                whole_is_api = ft is None or not ft.templates
                rec.api_reasons.extend(api_tests.file_reasons(full, source, whole_is_api))
        # failing tests speak for themselves; a run that cannot count as a pass for another reason is noted
        rec.notes.extend(
            Note.of("not_a_pass", path=tf.path, detail=r)
            for r in full.verdict_reasons
            if not failing_tests(r)
        )
        for state in opt.isolation_states:
            iso = self._step(
                runner,
                target,
                Job(
                    "isolation",
                    {
                        "path": tf.abs_path,
                        "state": state,
                        "patterns": file_patterns,
                        "tests": chosen,
                    },
                    logs / f"iso-{i}-{state}.log",
                    opt.timeout,
                    str(root),
                ),
                f"isolation:{state}",
                tf.path,
            )
            # the title names the section even when the job died before answering
            iso.result.setdefault("title", agent_state.STATE_TITLES[state])
            rec.isolation.append(iso)
            ok = ok and iso.ok and bool(iso.result.get("passed"))
        if opt.trace:
            tr = self._step(
                runner,
                target,
                Job(
                    "trace",
                    {"file": tf.abs_path, "patterns": file_patterns, "tests": chosen},
                    logs / f"trace-{i}.log",
                    opt.timeout,
                    str(root),
                ),
                "trace",
                tf.path,
            )
            rec.trace.append(tr)
            # the trace is evidence of what the tests touch, not a verdict on them
            ok = ok and tr.status in ("OK", "FAIL")
        return ok

    def _fallback(
        self, target: Target, rec: TargetRecord, root: Path
    ) -> tuple[FileTests, TestFile] | None:
        """Where none of the API's direct tests ran, the test the owner writes for it (a scaffolded
        one), written into the checkout and run as the API's own file; None when there is none."""
        if (
            self.opt.fallback is None
            or not target.api
            or any(ft.whole for ft in target.api)
            or any(t.status in ("passed", "failed") for t in rec.api_tests)
            or rec.api_reasons
            # a listing the environment did not answer (a lost worker, a timeout) says nothing of tests
            or any(not (s.ok or s.result.get("missing")) for s in rec.listing)
            # a Ray node runs the ref's shipped files only: a test written here would not be there
            or target.env.name in (getattr(self.runners, "needs", None) or {})
        ):
            return None
        got = self.opt.fallback(target.ref)
        if got is None:
            return None
        rel, data = got
        dest = root / rel
        if dest.exists():  # never over a file of the ref (the checkout is shared by its targets)
            return None
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
        c = rec.api_counts()
        rec.notes.append(
            Note.of(
                "api_fallback_scaffold",
                path=rel,
                total=c["total"],
                skipped=c["skipped"],
                disabled=c["disabled"],
                not_started=c["not_started"],
            )
        )
        rec.notes.append(Note.of("not_committed", path=rel, ref=target.ref))
        tf = TestFile(rel, str(dest), sha256_file(dest), None, added=True)
        rec.test_files.append(tf)
        return FileTests(rel, (), whole=True), tf

    def _unset(self) -> list[str]:
        """The backend's list variable is unset in every run by id: the list is applied by selection."""
        up = self.opt.upstream
        return [up.disabled.variable] if up is not None and up.disabled.configured else []

    def _run_file(
        self,
        runner: Runner,
        target: Target,
        rec: TargetRecord,
        args: dict[str, Any],
        cwd: str,
        literal: list[str],
        path: str,
        logs: Path,
        i: int,
        name: str = "full",
        shown_cwd: str = "",
    ) -> tuple[Step, Step]:
        """Run one file (whole, or its chosen tests) and judge it: (the run, the step whose structured
        answer holds its tests: the run itself, or with fresh interpreters the agent's own rerun)."""
        opt = self.opt
        unset = tuple(str(n) for n in args.get("unset") or ())
        full = self._step(
            runner,
            target,
            Job(
                "run_file",
                args,
                logs / f"{name}-{i}.log",
                opt.timeout,
                cwd,
                literal=literal,
                unset=unset,
            ),
            name,
            path,
        )
        if (
            shown_cwd and full.command
        ):  # python -m unittest MODULE.Class.test runs in the file's folder
            full.command = f"cd {shlex.quote(shown_cwd)} && {full.command}"
        if opt.mode == "fresh":
            # the literal run cannot be instrumented: the agent runs the file again in its own fresh
            # interpreter, and that run's structured results give the verdict and the leak check
            leak = self._step(
                runner,
                target,
                Job("run_file", args, logs / f"leak-{name}-{i}.log", opt.timeout, cwd),
                "leak_check",
                path,
            )
            judge(full, leak, leak.output)
            leak.output = ""
            rec.leak_check.append(leak)
            source = leak
        else:
            judge(full, full, full.output)
            source = full
        rec.full.append(full)
        rec.leaks.extend(source.result.get("leaks", []))
        return full, source

    def _select(
        self,
        runner: Runner,
        target: Target,
        rec: TargetRecord,
        ft: FileTests,
        tf: TestFile,
        root: Path,
        device: str,
        logs: Path,
        i: int,
    ) -> tuple[api_tests.Selection, str] | None:
        """List the file's tests as its runner loads them and choose the API's on the device, less the
        disabled ones; None (the API's tests recorded as not run) when none of them is left to run."""
        opt = self.opt

        def listing_job() -> Step:
            return self._step(
                runner,
                target,
                Job(
                    "upstream_list",
                    {"path": tf.abs_path, "api": ""},
                    logs / f"list-{i}.log",
                    opt.timeout,
                    str(root),
                ),
                "list",
                tf.path,
            )

        listed = listing_job()
        for _ in range(PROBE_RETRIES):
            if listed.status != "WORKER_DIED":
                break
            # no test ran: a worker (or lane) lost while listing is tried again, and said
            rec.notes.append(
                Note.of("listing_retried", path=tf.path, status=listed.status, detail=listed.how)
            )
            listed = listing_job()
        rec.listing.append(listed)
        listing = api_tests.listing_of(listed)
        if listing is None:
            rec.api_tests.extend(api_tests.not_listed(ft, listed, root))
            return None
        try:
            source = Path(tf.abs_path).read_bytes()
        except OSError:
            source = b""
        entry = entry_kind(source)
        tf.entry = entry
        facts = rec.probe_facts
        dev = str(facts.get("device_type") or device)
        platform = f"{facts.get(f'{dev}_device_name') or ''};{facts.get('platform') or ''}"
        disabled = self._disabled(target, str(facts.get("torch_version") or ""))
        budget = opt.upstream.max_tests if opt.upstream is not None else 200
        sel = api_tests.choose(ft, listing, entry, dev, disabled, platform, budget)
        if not sel.run:
            rec.api_tests.extend(api_tests.from_selection(sel, None))
            return None
        return sel, entry

    def _disabled(self, target: Target, torch_version: str) -> DisabledList | None:
        up = self.opt.upstream
        if up is None or self.opt.repo is None or not target.commit:
            return None
        with self._lists_lock:
            found, _ = list_at(up, self.opt.repo, target.commit, torch_version, self._lists)
        return found
