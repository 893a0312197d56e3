"""``verify``: from an API name to a reviewed-ready result, one stage after another.

Stages (each leaves a record in the store, attached to the verify run):

1. resolve and classify the API in the first environment;
2. coverage at every ref (active branches from the config by default;
   maintenance branches refused with the reason);
3. scaffold a test where no direct test exists (or on ``scaffold=True``): into
   each ref's worktree as an overlay (and a patch the user can apply), or, with
   no repo, into a work folder in the store;
   then the API's upstream official tests (``upstream``), when the backend's vendored upstream files
   hold any (or ``--upstream-repo`` is given): run test by test with the backend's disabled list;
4. collect for every (ref, environment): probe, the test files, the isolation
   probe for the API's states, leak detection and the dispatch trace;
5. docs check for every version page (and adding missing entries like the parent);
6. the checklist, then the PR description, acceptance comment, JSON and JUnit
   written to the output folder.

The verdict lists what blocks; the CLI turns it into a table and an exit code.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..agent.api.states import states_for_api
from ..api import AgentSession, ApiInfo, Trace
from ..api.resolve import with_test_traces
from ..checks import evaluate_change, evaluate_checklist
from ..collect import (
    CollectOptions,
    Collector,
    EnvSpec,
    Reporter,
    Target,
    TargetRecord,
)
from ..collect.api_tests import FileTests, none_ran_reason
from ..collect.releases import fit, wanted_releases
from ..config import Config
from ..coverage.environment import resolved_table
from ..coverage.spellings import Spellings, assemble, docs_names
from ..docs import DocsTree, add_entry, check_in_tree, folder_name, normalize_version
from ..docs.tree import find_docs_dir
from ..emulated import RunnerSettings, runner_settings
from ..errors import ExitCode, TorchparityError, UsageError
from ..exec import check_timeout
from ..exec.interrupt import temporary_dir
from ..fsutil import atomic_write, read_text_file
from ..gitrepo import blob_bytes, git, repo_root, resolve_commit
from ..names import name_patterns
from ..phrases import category_words, phrase
from ..records.base import Record
from ..records.change import ChangeRecord
from ..records.checklist import Checklist
from ..records.coverage import ApiCoverage
from ..records.docs import DocsAddRecord, DocsCheckRecord
from ..records.run import RunRecords
from ..records.scaffold import ScaffoldRecord
from ..records.task import TaskRecord
from ..records.upstream import UpstreamRecord
from ..records.verify import TargetVerdict, VerifyRecord
from ..report import build_report, check_source_types, config_templates_dir, render_checked
from ..report.branches import for_branch
from ..report.render import config_output_lines
from ..scaffold import scaffold_facts, scaffold_test
from ..store import Store, read_run
from ..store import put as put_record
from ..upstream import UpstreamOptions, has_candidates, upstream_stage
from ..upstream.evidence import section as upstream_section
from ..upstream.settings import upstream_settings
from .shared import Shared, pool_for


@dataclass
class VerifyOptions:
    api: str
    repo: Path | None = None
    refs: list[str] = field(default_factory=list)
    envs: list[EnvSpec] = field(default_factory=list)
    device: str = ""
    docs: Path | None = None
    docs_versions: list[str] | None = None
    docs_add: bool = False
    docs_status: str | None = None
    scaffold: bool = False
    into: str | None = None
    lang: str = "zh"
    out: Path | None = None
    fresh: bool = False
    timeout: float = 900.0
    rev_range: str | None = None
    #: run these files (repo-relative) instead of every file that holds a direct test
    test_files: list[str] = field(default_factory=list)
    #: the PR fields given on the command line (title, task issue, source type, ...)
    fields: TaskRecord = field(default_factory=lambda: TaskRecord(api=None))
    #: a requested device that is not there runs on the cpu (saying so) instead of stopping (exit 3)
    allow_cpu_fallback: bool = False
    #: a PyTorch clone: its test/ at each environment's torch version is searched for official tests too
    upstream_repo: Path | None = None
    #: run the official tests the backend's disabled list removes, to find stale entries
    recheck_disabled: bool = False
    #: a Ray cluster's address: environments with a ray table run on a matching node there
    ray: str | None = None
    #: run a ref in environments whose torch is not the release the ref targets (every text says so)
    allow_version_mismatch: bool = False


@dataclass
class Verdict:
    api: str
    canonical: str = ""
    #: the name PyTorch documents (torch.cuda.Event for torch.cuda.streams.Event): folder names
    doc_name: str = ""
    kind: str = ""
    category: str = ""
    run_id: int | None = None
    records: list[TargetRecord] = field(default_factory=list)
    coverage: ApiCoverage | None = None
    scaffolded: ScaffoldRecord | None = None
    docs: DocsCheckRecord | None = None
    docs_added: DocsAddRecord | None = None
    checklist: Checklist | None = None
    change: ChangeRecord | None = None
    upstream: UpstreamRecord | None = None
    outputs: dict[str, str] = field(default_factory=dict)
    #: what blocks the verdict and what the user should know: the terminal's lines (English)
    blockers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stages: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.blockers

    @property
    def exit_code(self) -> ExitCode:
        if self.passed:
            return ExitCode.OK
        if any(r.result in ("ERROR", "MISMATCH") for r in self.records):
            return ExitCode.ENVIRONMENT_ERROR
        return ExitCode.FAILED

    def to_record(self, complete: bool = True) -> VerifyRecord:
        return VerifyRecord(
            api=self.api,
            canonical=self.canonical,
            doc_name=self.doc_name,
            kind=self.kind,
            category=self.category,
            result=("PASS" if self.passed else "FAIL") if complete else "INCOMPLETE",
            targets=tuple(TargetVerdict(r.label, r.result) for r in self.records),
            blockers=tuple(self.blockers),
            notes=tuple(self.notes),
            stages=tuple(self.stages),
        )

    def to_json(self) -> dict[str, Any]:
        """What ``verify --json`` prints: the verify record, with the run and the files written."""
        return {
            **self.to_record().to_json(),
            "run_id": self.run_id,
            "scaffolded": (
                {
                    "path": self.scaffolded.path,
                    "family": self.scaffolded.family,
                    "refs": list(self.scaffolded.refs),
                    "complete": self.scaffolded.complete,
                }
                if self.scaffolded
                else None
            ),
            "docs_added": self.docs_added.to_json() if self.docs_added else None,
            "outputs": self.outputs,
        }


class Stages:
    """Hooks the pipeline calls (the CLI prints progress from them)."""

    def stage(self, name: str, detail: str = "") -> None: ...

    def run_started(self, run_id: int) -> None:
        """The task's verify run exists (new, or the one continued): a batch records which it is."""

    def done(self, name: str, outcome: str) -> None: ...

    def collector_reporter(self) -> Reporter:
        return Reporter()


#: how the blocker of a verify whose every target was emulated starts
EMULATED_BLOCKER = "EMULATED"


def slug(api: str) -> str:
    parts = [p for p in api.split(".") if p]
    return (
        re.sub(r"[^A-Za-z0-9_]+", "_", "_".join(parts[-2:]) if len(parts) >= 2 else api)
        .strip("_")
        .lower()
    )


def _refs(opt: VerifyOptions, cfg: Config, root: Path | None) -> list[tuple[str, str]]:
    if root is None:
        if opt.refs:
            raise UsageError(
                "--ref needs --repo: refs are looked up in the backend's git repository"
            )
        return [("local", "")]
    head = _range_head(opt.rev_range)
    # with a change (--range), the tests run where the change is: its head, unless --ref says where
    refs = list(opt.refs) or ([head] if head else list(cfg.active_branches) or ["HEAD"])
    for ref in refs:
        if cfg.is_maintenance(ref):
            raise UsageError(
                f"{ref} is a maintenance branch ({cfg.maintenance_reason or 'it takes no new tests'}); "
                "drop it from --ref"
            )
    out = [(r, resolve_commit(root, r)) for r in refs]
    if head:
        change = resolve_commit(root, head)
        for ref, commit in out:
            if git(root, "merge-base", "--is-ancestor", change, commit, check=False).returncode:
                raise UsageError(
                    f"--ref {ref} ({commit[:12]}) does not contain the change --range {opt.rev_range} "
                    f"(its head {change[:12]}): the tests would run without it; pass --ref {head} "
                    "or leave --ref out"
                )
    return out


def _read_where(rec: DocsCheckRecord, folder: Path) -> DocsCheckRecord:
    """``rec`` with where its pages were read: the git repository's branch and commit holding the
    folder, and whether the folder has changes not committed there (none when it is in no repository)."""
    top = git(folder, "rev-parse", "--show-toplevel", check=False)
    if top.returncode:
        return rec
    root = Path(top.text.strip())
    rel = os.path.relpath(folder.resolve(), root.resolve())
    head = git(root, "rev-parse", "HEAD", check=False)
    branch = git(root, "branch", "--show-current", check=False)
    status = git(root, "status", "--porcelain", "--", rel, check=False)
    return replace(
        rec,
        repo_path=rel,
        branch=branch.text.strip() if not branch.returncode else "",
        commit=head.text.strip() if not head.returncode else "",
        modified=bool(status.text.strip()) if not status.returncode else None,
    )


def _range_head(rev_range: str | None) -> str:
    """The head of ``BASE..HEAD`` / ``BASE...HEAD`` ("" without a range; HEAD when the range ends open)."""
    if not rev_range:
        return ""
    if ".." not in rev_range:
        return rev_range
    return rev_range.split("..", 1)[1].lstrip(".") or "HEAD"


class Pipeline:
    def __init__(
        self,
        store: Store,
        cfg: Config,
        opt: VerifyOptions,
        hooks: Stages | None = None,
        argv: list[str] | None = None,
        shared: Shared | None = None,
    ) -> None:
        """``shared``: what this task shares with others (a batch's runners, checkouts, resolve answers
        and coverage index); None: a verify of its own."""
        self.store = store
        self.cfg = cfg
        self.opt = opt
        self.hooks = hooks or Stages()
        self.argv = argv or ["verify", opt.api]
        self.given_shared = shared
        self.shared: Shared = shared  # type: ignore[assignment]  # None until run() sets it
        self._tree: DocsTree | None = (
            None  # the docs pages, parsed once for every stage that reads them
        )
        #: how the first environment's agent runs (its backend module and device, an emulation's path)
        self._first = RunnerSettings(cfg.backend_module, opt.device or cfg.device, {})
        self._into_original = (
            ""  # the --into file before the scaffolded methods were added (its patch)
        )
        self._root: Path | None = None
        #: (ref, env) pairs that do not run: their environment does not fit the ref's torch release
        self._skipped: set[str] = set()
        if opt.lang not in ("zh", "en"):
            raise UsageError(f"--lang {opt.lang!r}: use zh or en")
        if not opt.envs:
            raise UsageError("no environment given; pass --python PY or --env NAME")
        if opt.into and opt.scaffold is False:
            opt.scaffold = True
        check_source_types(list(opt.fields.source_types))
        check_timeout(opt.timeout)
        if opt.out is not None and opt.out.exists() and not opt.out.is_dir():
            raise UsageError(f"--out {opt.out} is a file; pass a folder for the reports")

    # -- the whole run -----------------------------------------------------------------------
    def run(self, continue_run: int | None = None) -> Verdict:
        """Every stage in order into a new verify run, or (``continue_run``) into an interrupted one:
        the stages and targets it finished are taken from its records, not done again.

        A run continued is claimed first (one writer per run, ``store/runlock.py``): while another process
        works on it this is refused, naming that process, before anything is read, asked or written."""
        if continue_run is not None:
            self.store.claim_run(continue_run)
        verdict = Verdict(api=self.opt.api)
        try:
            return self._all(verdict, continue_run)
        finally:
            # sealed runs were let go as they ended; one stopped before its end is free for the next resume
            for rid in (continue_run, verdict.run_id):
                if rid is not None:
                    self.store.release_run(rid)

    def _all(self, verdict: Verdict, continue_run: int | None) -> Verdict:
        opt, cfg = self.opt, self.cfg
        root = repo_root(opt.repo) if opt.repo is not None else None
        self._root = root
        refs = _refs(opt, cfg, root)
        self._check_docs_versions(root)  # bad input is refused before any work, not after the runs
        self._check_files(root, refs)
        device = opt.device or cfg.device
        env = opt.envs[0]
        # one agent in the first environment answers both resolve and the scaffold's facts
        self._first = runner_settings(env.emulated, cfg.backend_module, env.device or device)
        prior = self._prior(continue_run)
        shared = self.given_shared or Shared(
            self.store,
            pool_for(
                cfg,
                opt.envs,
                mode="fresh" if opt.fresh else "warm",
                workers=1,
                ray_address=opt.ray,
                repo=root,
                allow_cpu_fallback=opt.allow_cpu_fallback,
            ),
            test_roots=cfg.test_roots,
        )
        self.shared = shared
        try:
            return self._run(root, refs, device, verdict, prior, continue_run)
        finally:
            if self.given_shared is None:
                shared.close()

    def _prior(self, continue_run: int | None) -> RunRecords | None:
        """The records of the verify run to continue (None: a new run); refused when it is not one."""
        if continue_run is None:
            return None
        row = self.store.run(continue_run)
        if row.kind != "verify":
            raise UsageError(
                f"run {continue_run} is a {row.kind} run, not a verify run; it cannot be resumed by verify"
            )
        if row.status == "complete":
            raise UsageError(
                f"run {continue_run} is complete; nothing to resume (see 'torchparity report {continue_run}')"
            )
        prior = read_run(self.store, continue_run)
        if prior.task is not None and prior.task.api not in (None, self.opt.api):
            raise UsageError(f"run {continue_run} verified {prior.task.api}, not {self.opt.api}")
        self.store.reopen_run(continue_run)
        return prior

    def _run(
        self,
        root: Path | None,
        refs: list[tuple[str, str]],
        device: str,
        verdict: Verdict,
        prior: RunRecords | None,
        continue_run: int | None,
    ) -> Verdict:
        opt, cfg = self.opt, self.cfg
        info = (
            prior.resolve
            if prior is not None and prior.resolve is not None
            else self._resolve(verdict, device)
        )
        self._resolved(info, verdict)
        verdict.run_id = (
            continue_run if continue_run is not None else self.store.new_run("verify", self.argv)
        )
        self.hooks.run_started(verdict.run_id)
        try:
            if prior is None or prior.task is None:
                self._keep(
                    verdict,
                    cfg.task_record(opt.api, opt.fields, repo=root is not None, lang=opt.lang),
                )
            if prior is None or prior.resolve is None:
                self._keep(verdict, info)
            else:
                self._kept(verdict, prior.resolve)
            self.shared.check()
            coverage = self._coverage(root, refs, info, verdict, prior)
            self.shared.check()
            targets, test_files = self._tests(root, refs, info, coverage, device, verdict, prior)
        except BaseException:
            self._finish(verdict, complete=False)
            raise
        try:
            self.shared.check()
            sections = self._upstream(root, refs, info, coverage, device, verdict, prior)
            self.shared.check()
            self._collect(root, targets, info, device, verdict, sections)
            self.shared.check()  # targets cut short by an interrupt are not a verdict: the run stays open
            info = self._classify(info, verdict)
            self._docs(root, info, verdict)
            self._checklist(root, info, test_files, verdict)
            put_record(self.store, verdict.to_record(), verdict.run_id, opt.api)
            self._finish(verdict)
            self._reports(root, info.canonical, verdict)
        except BaseException:
            self._finish(verdict, complete=False)
            raise
        self._finish(verdict)  # again, now naming the files written
        return verdict

    def _keep(self, verdict: Verdict, record: Record) -> None:
        """Store a stage's record in the verify run (the report is rendered from these alone)."""
        assert verdict.run_id is not None
        put_record(self.store, record, verdict.run_id, self.opt.api)
        self._kept(verdict, record)

    @staticmethod
    def _kept(verdict: Verdict, record: Record) -> None:
        """A stage's record is in the run (stored now, or by the run this one continues)."""
        if record.KIND not in ("task", "verify", *verdict.stages):
            verdict.stages.append(record.KIND)

    def _check_files(self, root: Path | None, refs: list[tuple[str, str]]) -> None:
        """--test-file and --into name text files that exist (at every ref, with a repo): refused
        before any work, so that a refused verify leaves no run behind."""
        opt = self.opt
        wanted = [("--test-file", f) for f in opt.test_files] + (
            [("--into", opt.into)] if opt.into else []
        )
        for flag, f in wanted:
            if root is None:
                read_text_file(f, flag)
                continue
            rel = Path(f)
            if rel.is_absolute():
                try:
                    rel = rel.relative_to(root)
                except ValueError:
                    raise UsageError(f"{flag} {f} is not inside the repo {root}") from None
            for ref, commit in refs:
                data = blob_bytes(root, commit, rel.as_posix())
                if data is None:
                    raise UsageError(
                        f"{flag} {f} does not exist at {ref} ({commit[:12]}) in {root}; "
                        "give a path relative to the repo root that exists at every --ref"
                    )
                if b"\x00" in data:
                    raise UsageError(f"{flag} {f} at {ref} is a binary file, not a test file")
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    raise UsageError(f"{flag} {f} at {ref} is not UTF-8 text") from None

    # -- 1. resolve ----------------------------------------------------------------------------
    def _session(self, device: str) -> AgentSession:
        """The agent in the first environment (resolve, the scaffold's facts): the pool's runner there."""
        env = self.opt.envs[0]
        return self.shared.session(env, env.device or device)

    def _resolve(self, verdict: Verdict, device: str) -> ApiInfo:
        env = self.opt.envs[0]
        self.hooks.stage("resolve", f"{self.opt.api} in {env.name}")
        info = self.shared.resolve(
            self.opt.api, env, env.device or device, self._first.backend_module
        )
        traced = info.trace is not None and info.trace.ok
        self.hooks.done(
            "resolve",
            f"{info.canonical} ({info.resolution.kind}, {category_words(info.category)}"
            # without a trace the tests' own trace decides the category later (``_classify``)
            + ("" if traced else "; no dispatch trace yet")
            + ")",
        )
        return info

    @staticmethod
    def _resolved(info: ApiInfo, verdict: Verdict) -> None:
        verdict.canonical = info.canonical
        verdict.doc_name = info.resolution.doc_names()[0]
        verdict.kind = info.resolution.kind
        verdict.category = info.category

    # -- 2. coverage ---------------------------------------------------------------------------
    def _coverage(
        self,
        root: Path | None,
        refs: list[tuple[str, str]],
        info: ApiInfo,
        verdict: Verdict,
        prior: RunRecords | None = None,
    ) -> ApiCoverage | None:
        if root is None:
            verdict.notes.append(
                "coverage not collected: no --repo (the embedded default runs on this machine)"
            )
            return None
        # the one spelling assembly the coverage verb and the checklist use too: the static table,
        # resolve's answers, [backend_aliases] and the docs' NPU 形式名称
        spellings = self._spellings(root, [info])
        verdict.notes.extend(spellings.notes())
        if prior is not None and prior.coverage is not None:
            verdict.coverage = prior.coverage
            self._kept(verdict, prior.coverage)
            return prior.coverage
        self.hooks.stage("coverage", f"{len(refs)} ref(s)")
        # with the other tasks of a batch: one index per ref under one table for all their APIs
        cov = self.shared.coverage.get(
            root,
            [r for r, _ in refs],
            info,
            lambda infos: (
                (
                    spellings
                    if [i.resolution.query for i in infos] == [info.resolution.query]
                    else self._spellings(root, infos)
                ).table
            ),
        )
        self._keep(verdict, cov)
        verdict.coverage = cov
        counts = ", ".join(f"{r.ref}: {len(r.direct)} direct" for r in cov.refs)
        self.hooks.done("coverage", counts)
        return cov

    def _spellings(self, root: Path, infos: list[ApiInfo]) -> Spellings:
        """The spelling assembly for these APIs (one task's, or a batch's group)."""
        try:
            tree = self._docs_tree(root)
        except UsageError:
            tree = None  # the docs stage says what is wrong with the folder
        return assemble(
            [i.resolution.query for i in infos],
            self.cfg,
            repo=root,
            docs=tree,
            resolutions=[i.resolution for i in infos],
        )

    # -- 3. which tests, scaffolded where needed -------------------------------------------------
    def _tests(
        self,
        root: Path | None,
        refs: list[tuple[str, str]],
        info: ApiInfo,
        coverage: ApiCoverage | None,
        device: str,
        verdict: Verdict,
        prior: RunRecords | None = None,
    ) -> tuple[list[Target], list[str]]:
        opt = self.opt
        direct: dict[str, list[Any]] = {}
        if coverage is not None:
            direct = {r.ref: list(r.direct) for r in coverage.refs}
        chosen = tuple(dict.fromkeys(opt.test_files))
        need = opt.scaffold or (not chosen and any(not direct.get(ref) for ref, _ in refs))
        scaffold: dict[str, tuple[str, bytes, list[str]]] = {}
        if need and prior is not None and prior.scaffold is not None and not opt.into:
            scaffold = self._scaffolded(
                prior.scaffold, verdict
            )  # written by the run this one continues
        elif need:
            scaffold = self._scaffold(root, refs, info, device, verdict, self._session(device))
        targets: list[Target] = []
        checked: list[str] = []
        changed = self._changed(root)
        versions = self._torch_versions(root, refs, device)
        for ref, commit in refs:
            overlay: tuple[tuple[str, bytes], ...] = ()
            if ref in scaffold:
                rel, data, methods = scaffold[ref]
                files: tuple[str, ...] = (rel,)
                patterns = tuple(methods)
                overlay = ((rel, data),) if root is not None else ()
                checked.append(rel)
                # a new file is the API's whole; methods added to a file (--into) are its API tests
                added = tuple(f"{rel}::{m.replace('.', '::')}" for m in methods) if opt.into else ()
                api: tuple[FileTests, ...] = (FileTests(rel, added, whole=True),)
            else:
                tests = direct.get(ref) or []
                if chosen:
                    tests = [t for t in tests if t.path in chosen]
                    files = chosen
                else:
                    files = tuple(dict.fromkeys(t.path for t in tests))
                patterns = tuple(dict.fromkeys(t.test.rsplit("::", 1)[-1] for t in tests)) or tuple(
                    name_patterns(info.canonical)
                )
                # the API's direct tests run by id; a file that is the task's own (--test-file, changed
                # in --range) runs whole, its other tests being context
                api = tuple(
                    FileTests(
                        f,
                        tuple(dict.fromkeys(t.test for t in tests if t.path == f)),
                        whole=bool(chosen) or f in changed,
                    )
                    for f in files
                )
            targets += self._fitted(ref, commit, versions, files, overlay, patterns, api, verdict)
        return targets, list(dict.fromkeys(checked))

    def _changed(self, root: Path | None) -> set[str]:
        """The files the task's own change touches (``--range``): they run whole."""
        if root is None or not self.opt.rev_range:
            return set()
        res = git(root, "diff", "--name-only", self.opt.rev_range, check=False)
        return {line.strip() for line in res.text.splitlines() if line.strip()}

    def _torch_versions(
        self, root: Path | None, refs: list[tuple[str, str]], device: str
    ) -> dict[str, str]:
        """Each environment's torch version, probed once, where a ref says which release it targets."""
        if not any(wanted_releases(self.cfg, root, r, c) for r, c in refs):
            return {}
        self.hooks.stage("environments", "which torch each one has, against each ref's release")
        versions = {
            env.name: self.shared.torch_version(env, env.device or device) for env in self.opt.envs
        }
        self.hooks.done(
            "environments", ", ".join(f"{n}: torch {v or 'unknown'}" for n, v in versions.items())
        )
        return versions

    def _fitted(
        self,
        ref: str,
        commit: str,
        versions: dict[str, str],
        files: tuple[str, ...],
        overlay: tuple[tuple[str, bytes], ...],
        patterns: tuple[str, ...],
        api: tuple[FileTests, ...],
        verdict: Verdict,
    ) -> list[Target]:
        """The ref's targets: one per environment that fits its torch release; with none, a MISMATCH
        target per environment (nothing runs), or, with --allow-version-mismatch, every one anyway."""
        opt = self.opt
        wanted = wanted_releases(self.cfg, self._root, ref, commit) if versions else ()
        f = fit(ref, wanted, opt.envs, versions)
        if not opt.allow_version_mismatch:
            self._skipped.update(f"{ref}@{env.name}" for env, _, _ in f.others)

        def made(envs: Sequence[EnvSpec], check: str, mismatch: str = "") -> list[Target]:
            return [
                Target(
                    ref,
                    commit,
                    env,
                    files=files,
                    overlay=overlay,
                    patterns=patterns,
                    api=api,
                    torch_wanted=wanted,
                    version_check=check,
                    mismatch=mismatch,
                    torch_version=versions.get(env.name, ""),
                )
                for env in envs
            ]

        if not f.mismatch:
            for env, _have_version, why in f.others:
                verdict.notes.append(
                    f"{ref} does not run in {env.name} ({why}; {ref} targets torch "
                    f"{' / '.join(wanted) or 'any'})"
                )
            return made(f.fitting, "match" if wanted else "")
        if opt.allow_version_mismatch:
            return made(opt.envs, "allowed")
        return made(opt.envs, "mismatch", "; ".join(f"{e.name}: {why}" for e, _, why in f.others))

    def _scaffolded(
        self, sc: ScaffoldRecord, verdict: Verdict
    ) -> dict[str, tuple[str, bytes, list[str]]]:
        """The scaffold of the run this one continues: the same file at the same refs."""
        verdict.scaffolded = sc
        self._kept(verdict, sc)
        for what in sc.fill_in:
            verdict.notes.append(f"the scaffolded test fails until this is filled in: {what}")
        return {ref: (sc.path, sc.content.encode("utf-8"), list(sc.methods)) for ref in sc.refs}

    def _scaffold(
        self,
        root: Path | None,
        refs: list[tuple[str, str]],
        info: ApiInfo,
        device: str,
        verdict: Verdict,
        session: AgentSession,
    ) -> dict[str, tuple[str, bytes, list[str]]]:
        """ref -> (path, bytes, test methods) of the scaffolded test (facts asked once)."""
        opt, cfg = self.opt, self.cfg
        env = opt.envs[0]
        dev, backend = self._first.device, self._first.backend_module
        self.hooks.stage("scaffold", info.canonical)
        facts = scaffold_facts(info, session, None, backend)
        common: dict[str, Any] = dict(
            python=env.python, device=dev, backend_module=backend, facts=facts
        )
        out: dict[str, tuple[str, bytes, list[str]]] = {}
        if root is None:
            # a folder per run: verifying the same API again never trips over the last test
            work = self.store.root / "work" / slug(verdict.doc_name) / f"run-{verdict.run_id}"
            work.mkdir(parents=True, exist_ok=True)
            into = Path(opt.into) if opt.into else None
            original = into.read_text("utf-8") if into is not None and into.is_file() else ""
            res = scaffold_test(info, cfg, into=into, out_dir=None if into else work, **common)
            path = Path(res.path).absolute()
            shown = os.path.relpath(path) if path.is_relative_to(Path.cwd()) else str(path)
            out["local"] = (shown, path.read_bytes(), list(res.methods))
            verdict.scaffolded = res.to_record(shown, ("local",), outside_repo=into is None)
            self._into_original = original
        else:
            folder = str(
                cfg.scaffold.get("test_dir") or (cfg.test_roots[0] if cfg.test_roots else "test")
            )
            with temporary_dir("scaffold") as tmp:
                for ref, commit in refs:
                    if opt.into:
                        data = blob_bytes(root, commit, opt.into)
                        if data is None:
                            raise UsageError(
                                f"--into {opt.into} does not exist at {ref}; give a test file of the repo"
                            )
                        into_file = Path(tmp) / re.sub(r"[^A-Za-z0-9._-]+", "_", ref) / opt.into
                        into_file.parent.mkdir(parents=True, exist_ok=True)
                        into_file.write_bytes(data)
                        res = scaffold_test(info, cfg, into=into_file, write=False, **common)
                        rel = opt.into
                    else:
                        res = scaffold_test(
                            info, cfg, out_dir=Path(tmp) / "new", write=False, **common
                        )
                        rel = _free_path(root, refs, f"{folder.rstrip('/')}/{Path(res.path).name}")
                    out[ref] = (rel, res.content.encode("utf-8"), list(res.methods))
                    if verdict.scaffolded is None:
                        verdict.scaffolded = res.to_record(rel)
                        self._into_original = (data or b"").decode("utf-8") if opt.into else ""
                    verdict.scaffolded = verdict.scaffolded.replace(
                        refs=(*verdict.scaffolded.refs, ref)
                    )
        sc = verdict.scaffolded
        assert sc is not None
        self._keep(verdict, sc)
        for what in sc.fill_in:
            verdict.notes.append(f"the scaffolded test fails until this is filled in: {what}")
        self.hooks.done(
            "scaffold", f"{sc.family}: {sc.path} ({len(sc.methods)} test(s)) at {', '.join(out)}"
        )
        return out

    # -- 3b. the API's upstream official tests ------------------------------------------------------
    def _upstream(
        self,
        root: Path | None,
        refs: list[tuple[str, str]],
        info: ApiInfo,
        coverage: ApiCoverage | None,
        device: str,
        verdict: Verdict,
        prior: RunRecords | None = None,
    ) -> dict[str, list[str]]:
        """The upstream stage, when official tests exist; returns each collect target's log section."""
        opt = self.opt
        operator = info.category == "operator"
        if (
            prior is not None and prior.upstream is not None
        ):  # a resumed run: the stage ended before
            rec = prior.upstream
            self._kept(verdict, rec)
        else:
            if (
                not has_candidates(self.cfg, coverage, root, refs, operator)
                and opt.upstream_repo is None
            ):
                return {}
            # the stage runs its tests on this machine: environments bound to Ray nodes are left out
            remote = set(getattr(self.shared.pool, "needs", {}) or {})
            envs = [e for e in opt.envs if e.name not in remote]
            if remote & {e.name for e in opt.envs}:
                verdict.notes.append(
                    "upstream: the official tests were not run for "
                    f"{', '.join(sorted(remote & {e.name for e in opt.envs}))} (bound to Ray nodes; "
                    "the upstream stage runs on this machine only)"
                )
            if not envs:
                return {}
            self.hooks.stage(
                "upstream", "the API's official tests with the backend's disabled list"
            )
            rec = upstream_stage(
                self.store,
                self.cfg,
                UpstreamOptions(
                    api=info.canonical,
                    repo=root,
                    refs=[r for r, _ in refs] if root is not None else [],
                    envs=envs,
                    device=device,
                    upstream_repo=opt.upstream_repo,
                    recheck=opt.recheck_disabled,
                    mode="fresh" if opt.fresh else "warm",
                    timeout=opt.timeout,
                    allow_cpu_fallback=opt.allow_cpu_fallback,
                    operator=operator,
                    skip=frozenset(self._skipped),
                ),
                coverage,
                resolved_table([info.resolution]),
            )
            self._keep(verdict, rec)
        verdict.upstream = rec
        for t in rec.targets:
            bad = [x.id or x.test for x in t.tests if x.status == "failed"]
            if bad:
                verdict.blockers.append(
                    f"upstream {t.label}: {len(bad)} official test(s) failed ({', '.join(bad[:3])})"
                )
            for e in t.stale:
                if t.emulated:  # CPU kernels under an emulated device say nothing of the hardware
                    verdict.notes.append(
                        f"upstream {t.label}: {e.key!r} in {e.list_file} passes on the emulated "
                        f"{t.emulated}; recheck it on hardware before deleting it"
                    )
                else:
                    verdict.blockers.append(
                        f"upstream {t.label}: stale disabled entry {e.key!r} in {e.list_file} "
                        "(its tests pass without it; delete the key)"
                    )
            if t.result == "ERROR":
                verdict.blockers.append(f"upstream {t.label}: ERROR ({t.error})")
            elif t.result == "NOT_RUN" and t.tests:
                why = next(
                    (x.detail for x in t.tests if x.status == "not_started" and x.detail), ""
                )
                verdict.notes.append(
                    f"upstream {t.label}: no official test ran" + (f" ({why})" if why else "")
                )
            elif t.result == "PARTIAL":
                why = next((x.detail for x in t.missed if x.detail), "")
                verdict.notes.append(
                    f"upstream {t.label}: {len(t.missed)} official test(s) that apply here did not "
                    "start, so the ones that passed are not a pass of the official tests"
                    + (f" ({why})" if why else "")
                )
        self.hooks.done(
            "upstream", ", ".join(f"{t.label}={t.result}" for t in rec.targets) or "no target"
        )
        return {
            f"{ref}@{env.name}": [
                line
                for t in rec.targets
                if t.env == env.name and (t.ref == ref or t.source == "pytorch")
                for line in upstream_section(t)
            ]
            for ref, _ in (refs if root is not None else [("local", "")])
            for env in opt.envs
        }

    # -- 4. collect --------------------------------------------------------------------------------
    def _collect(
        self,
        root: Path | None,
        targets: list[Target],
        info: ApiInfo,
        device: str,
        verdict: Verdict,
        sections: dict[str, list[str]] | None = None,
    ) -> None:
        opt = self.opt
        empty = [t.label for t in targets if not t.files]
        if empty:
            verdict.blockers.append(
                f"no test to run at {', '.join(sorted({t.split('@')[0] for t in empty}))}"
            )
            targets = [t for t in targets if t.files]
        if not targets:
            return
        states = [s for s in states_for_api(info.canonical)]
        options = CollectOptions(
            files=[],
            repo=root,
            envs=list(opt.envs),
            device=device,
            backend_module=self.cfg.backend_module,
            timeout=opt.timeout,
            mode="fresh" if opt.fresh else "warm",
            isolation_states=states,
            patterns=name_patterns(info.canonical),
            trace=True,
            allow_cpu_fallback=opt.allow_cpu_fallback,
            log_sections=dict(sections or {}),
            upstream=upstream_settings(self.cfg),
            fallback=self._fallback(root, targets, info, device, verdict),
        )
        self.hooks.stage(
            "collect", f"{len(targets)} target(s), states: {', '.join(states) or 'none linked'}"
        )
        collector = Collector(
            self.store,
            options,
            self.hooks.collector_reporter(),
            runners=self.shared.pool,
            checkouts=self.shared.checkouts,
        )
        self.shared.track(collector)
        try:
            outcome = collector.run(
                self.argv, targets, run_id=verdict.run_id, kind="verify", finish=False
            )
        finally:
            self.shared.untrack(collector)
        verdict.records = outcome.records
        for rec in outcome.records:
            if rec.result == "MISMATCH":
                verdict.blockers.append(
                    f"target {rec.label}: MISMATCH ({rec.ref} targets torch "
                    f"{' / '.join(rec.torch_wanted)}; {_have(rec)}): not run"
                )
                continue
            if rec.result == "NONE_RAN":
                verdict.blockers.append(f"target {rec.label}: NONE_RAN ({none_ran_reason(rec)})")
            elif rec.result != "PASS":
                verdict.blockers.append(f"target {rec.label}: {rec.result} ({_why(rec)})")
            missing = _missing_modules(rec)
            if missing and (
                rec.result != "PASS" or any(t.status == "not_started" for t in rec.api_tests)
            ):
                verdict.notes.append(
                    f"{rec.label}: the test files import {', '.join(missing)}, which this environment "
                    "lacks, so their tests never started; verify in an environment that has it "
                    "(--env/--python)"
                    + ("" if verdict.scaffolded is not None else ", or pass --scaffold")
                )
        for rec in outcome.records:
            if rec.version_check == "allowed":
                verdict.blockers.append(
                    f"target {rec.label}: ran with torch {rec.torch_version or 'unknown'}, "
                    f"{rec.ref} targets torch {' / '.join(rec.torch_wanted)} "
                    "(--allow-version-mismatch): not evidence for that release"
                )
        ran = [r for r in outcome.records if r.result != "MISMATCH"]
        if ran and all(r.emulated for r in ran):
            # a dry run: whatever passed, there is no hardware evidence yet (the checklist says the same)
            devices = ", ".join(sorted({r.emulated for r in ran}))
            verdict.blockers.append(
                f"{EMULATED_BLOCKER}: every target ran on an emulated {devices} (on CPU): "
                "a dry run, not hardware evidence; verify on the device"
            )
        verdict.stages.append("collect")
        self.hooks.done("collect", ", ".join(f"{r.label}={r.result}" for r in outcome.records))

    def _fallback(
        self,
        root: Path | None,
        targets: list[Target],
        info: ApiInfo,
        device: str,
        verdict: Verdict,
    ) -> Callable[[str], tuple[str, bytes] | None] | None:
        """For a target where none of the API's direct tests ran: the scaffolded test (written once,
        when first needed), run in their place as for an API without tests. None where the task names
        its own test files (--test-file) or runs without a repo."""
        if root is None or self.opt.test_files:
            return None
        lock = threading.Lock()
        made: dict[str, tuple[str, bytes, list[str]]] = {}
        asked: list[bool] = []
        refs = list(dict.fromkeys((t.ref, t.commit) for t in targets if not t.mismatch))

        def fallback(ref: str) -> tuple[str, bytes] | None:
            with lock:
                if not asked:
                    asked.append(True)
                    if verdict.scaffolded is None:
                        try:
                            made.update(
                                self._scaffold(
                                    root, refs, info, device, verdict, self._session(device)
                                )
                            )
                        except TorchparityError as exc:
                            verdict.notes.append(f"no test could be scaffolded instead: {exc}")
                got = made.get(ref)
                return (got[0], got[1]) if got is not None else None

        return fallback

    def _classify(self, info: ApiInfo, verdict: Verdict) -> ApiInfo:
        """Without a trace of the API alone (its call sample, or a call the facts probe built), the API
        classified by what its tests dispatched (the first target that traced them: the environment
        resolve ran in), so the texts never say "no trace" beside a log that has one. A trace of the
        API alone stays the evidence: a test's trace also holds the test's own operators."""
        if info.trace is not None and info.trace.ok:
            return info
        for rec in verdict.records:
            traces = [
                replace(Trace.from_json(s.result["trace"]), target=s.test_file)
                for s in rec.trace
                if s.result.get("trace")
            ]
            if any(t.tests_run for t in traces):
                better = with_test_traces(info, traces, self.cfg.backend_module)
                if better is not info:
                    self._keep(verdict, better)
                    verdict.category = better.category
                    self.hooks.done(
                        "classify",
                        f"{better.canonical} ({better.resolution.kind}, "
                        f"{category_words(better.category)}), from the dispatch trace of its tests",
                    )
                return better
        return info

    # -- 5. docs -----------------------------------------------------------------------------------
    def _docs_tree(self, root: Path | None) -> DocsTree | None:
        """The --docs folder, or the repo's docs root when it has one (None: no docs to read)."""
        if self._tree is None:
            docs_dir = find_docs_dir(
                self.opt.docs, [root] if root is not None else [], self.cfg.docs_root
            )
            if docs_dir is not None:
                self._tree = DocsTree(docs_dir, self.cfg.docs_products, self.cfg.docs_root)
        return self._tree

    def _check_docs_versions(self, root: Path | None) -> None:
        if not self.opt.docs_versions:
            return
        tree = self._docs_tree(root)
        if tree is None:
            where = f"no {root / self.cfg.docs_root}" if root is not None else "no --repo"
            raise UsageError(
                f"--docs-version given but there is no docs folder ({where}); "
                "pass --docs DIR (the folder holding pytorch_X-Y-Z/)"
            )
        absent = [
            v
            for v in dict.fromkeys(map(normalize_version, self.opt.docs_versions))
            if not tree.has_folder(v)
        ]
        if absent:
            raise UsageError(
                f"--docs-version {', '.join(absent)}: no {', '.join(map(folder_name, absent))} in "
                f"{tree.root}; versions there: {', '.join(tree.versions()) or 'none'}"
            )

    def _docs(self, root: Path | None, info: ApiInfo, verdict: Verdict) -> None:
        # the pages are shared by every task of a batch: one task reads and writes them at a time,
        # and reads them as the tasks before it left them
        with self.shared.docs_lock:
            if self.given_shared is not None:
                self._tree = None
            self._docs_stage(root, info, verdict)

    def _docs_stage(self, root: Path | None, info: ApiInfo, verdict: Verdict) -> None:
        opt, cfg = self.opt, self.cfg
        tree = self._docs_tree(root)
        if tree is None:
            verdict.notes.append("docs not checked: no --docs folder (and none in the repo)")
            return
        if not info.resolution.public:
            verdict.notes.append(
                f"docs not required: {info.canonical} is private ({info.resolution.public_reason})"
            )
            return
        products = cfg.docs_products
        self.hooks.stage("docs", str(tree.root))
        # pages write the name PyTorch documents (torch.cuda.Event), not always the canonical one
        entry, spellings = docs_names(info.resolution.query, info.resolution)
        result = check_in_tree(tree, entry, opt.docs_versions, spellings)
        missing = [v.version for v in result.versions if not v.present]
        if missing and opt.docs_add:
            # nest it under its parent as the page spells the parent (the check's hint says which)
            name = next((v.hint_api for v in result.versions if not v.present and v.hint), entry)
            like = name.rsplit(".", 1)[0] if opt.docs_status is None else None
            if like is not None:
                parent = check_in_tree(tree, like, missing)
                lacking = [v.version for v in parent.versions if not v.present]
                if lacking:
                    example = ",".join(f"{p.code}=支持" for p in products)
                    raise UsageError(
                        f"--docs-add: the parent {like} has no entry in {', '.join(lacking)} to copy statuses "
                        f"from; pass --docs-status S (e.g. {example})"
                    )
            added = add_entry(
                name, tree.root, missing, like=like, statuses=opt.docs_status, products=products
            )
            for version in missing:
                tree.forget(version)  # those pages were written
            verdict.docs_added = added.to_record()
            self._keep(verdict, verdict.docs_added)
            result = check_in_tree(tree, entry, opt.docs_versions, spellings)
            missing = [v.version for v in result.versions if not v.present]
        verdict.docs = _read_where(result.to_record(), tree.root)
        self._keep(verdict, verdict.docs)
        if missing:
            verdict.blockers.append(
                f"docs: no entry for {entry} in {', '.join(missing)} (add with --docs-add)"
            )
        bad_links = [v.version for v in result.versions if v.present and not v.link_ok]
        if bad_links:
            verdict.blockers.append(
                f"docs: the docs link does not match the version in {', '.join(bad_links)}"
            )
        written = [
            c.version
            for c in (verdict.docs_added.changes if verdict.docs_added is not None else ())
            if c.action == "added"
        ]
        self.hooks.done(
            "docs",
            "missing in " + ", ".join(missing)
            if missing
            else (
                f"added in {', '.join(written)}; present in every version"
                if written
                else "present in every version"
            ),
        )

    # -- 6. checklist and reports -------------------------------------------------------------------
    def _checklist(
        self, root: Path | None, info: ApiInfo, files: list[str], verdict: Verdict
    ) -> None:
        opt = self.opt
        resolved = info.to_json()  # its query and aliases count as the API
        if opt.rev_range and root is not None:
            verdict.change = evaluate_change(
                root, opt.rev_range, self.cfg, opt.api, info, opt.fields.source_branch
            )
            self._keep(verdict, verdict.change)
            rels = files or [tf.path for r in verdict.records for tf in r.test_files]
            check = evaluate_checklist(
                root,
                opt.rev_range,
                list(dict.fromkeys(rels)),
                info.canonical,
                self.cfg,
                verdict.records,
                title=opt.fields.title,
                resolve=resolved,
            )
        elif verdict.scaffolded is not None:
            path = self._scaffold_copy(verdict)
            check = evaluate_checklist(
                None,
                None,
                [str(path)],
                info.canonical,
                self.cfg,
                verdict.records,
                resolve=resolved,
                # the copy is the file the targets ran: named by its path in the repo, as the PR names it
                shown_as=[verdict.scaffolded.path] if root is not None else [],
            )
        else:
            verdict.notes.append(
                "checklist not evaluated: no new test file (existing direct tests were run)"
            )
            return
        self.hooks.stage("checklist")
        verdict.checklist = check
        self._keep(verdict, check)
        failed = check.failed
        dry_run = any(b.startswith(EMULATED_BLOCKER) for b in verdict.blockers)
        for item in failed:
            if item.id == "hardware_evidence" and dry_run:
                continue  # the collect stage's blocker already says it
            verdict.blockers.append(f"checklist: {item.title_en}: {item.reason}")
        self.hooks.done("checklist", f"{len(failed)} item(s) fail")

    def _out_dir(self, verdict: Verdict) -> Path:
        out = self.opt.out or Path("torchparity-out") / slug(verdict.doc_name or verdict.api)
        out.mkdir(parents=True, exist_ok=True)
        return out

    def _scaffold_copy(self, verdict: Verdict) -> Path:
        """The scaffolded test, written into the output folder (and a patch for the repo)."""
        sc = verdict.scaffolded
        assert sc is not None
        out = self._out_dir(verdict)
        name = Path(sc.path).name
        copy = out / name
        copy.write_text(sc.content, encoding="utf-8")
        verdict.outputs["test"] = str(copy)
        if sc.path and (self.opt.repo is not None or self.opt.into):
            patch = out / f"{Path(name).stem}.patch"
            if self.opt.into:  # the methods added to an existing file: a patch that changes it
                text = _change_patch(
                    os.path.relpath(self.opt.into) if self.opt.repo is None else sc.path,
                    self._into_original,
                    sc.content,
                )
            else:
                text = _new_file_patch(sc.path, sc.content)
            patch.write_text(text, encoding="utf-8")
            verdict.outputs["patch"] = str(patch)
        return copy

    def _reports(self, root: Path | None, canonical: str, verdict: Verdict) -> None:
        if verdict.run_id is None:
            return
        self.hooks.stage("report")
        # the texts are rendered from the run's records alone, exactly as 'torchparity report RUN' does
        run = read_run(self.store, verdict.run_id)
        model = build_report([run])
        out = self._out_dir(verdict)
        tdir = config_templates_dir(self.cfg)
        lang = self.opt.lang
        lines = config_output_lines(self.cfg)
        files = {
            "pr": (
                f"pr.{lang}.md",
                render_checked(
                    model, "pr", lang, f"pr.{lang}.md", templates_dir=tdir, output_lines=lines
                ),
            ),
            "comment": (
                f"comment.{lang}.md",
                render_checked(
                    model,
                    "comment",
                    lang,
                    f"comment.{lang}.md",
                    templates_dir=tdir,
                    output_lines=lines,
                ),
            ),
            "json": ("report.json", render_checked(model, "json", lang, templates_dir=tdir)),
            "junit": ("junit.xml", render_checked(model, "junit", lang, templates_dir=tdir)),
        }
        if root is not None:
            # one PR per target branch: the PR text the community submits to that branch, of its targets
            for ref in dict.fromkeys(
                [*(r.ref for r in verdict.records), *(t.record.ref for t in run.targets)]
            ):
                name = re.sub(r"[^A-Za-z0-9._-]+", "_", ref)
                text = render_checked(
                    build_report([for_branch(run, ref)]),
                    "pr",
                    lang,
                    f"pr.{name}.{lang}.md",
                    templates_dir=tdir,
                )
                files[f"pr@{ref}"] = (f"pr.{name}.{lang}.md", text)
        # every text is rendered and self-reviewed above; only then is any written
        for key, (name, text) in files.items():
            atomic_write(out / name, text)
            verdict.outputs[key] = str(out / name)
        ev = out / "evidence"
        ev.mkdir(exist_ok=True)
        for t in self.store.targets(verdict.run_id):
            if t.log_sha:
                name = re.sub(r"[^A-Za-z0-9._@-]+", "_", t.label) + ".log"
                (ev / name).write_bytes(self.store.blobs.read(t.log_sha))
        verdict.outputs["evidence"] = str(ev)
        self.hooks.done("report", str(out))

    def _finish(self, verdict: Verdict, complete: bool = True) -> None:
        if verdict.run_id is None:
            return
        if complete:
            result, status = ("PASS" if verdict.passed else "FAIL"), "complete"
        else:  # a stage stopped the verify: what was collected stays, marked as such
            result, status = "INCOMPLETE", "incomplete"
        self.store.finish_run(
            verdict.run_id,
            result,
            status=status,
            summary={"outputs": verdict.outputs, "api": verdict.api},
        )


def _missing_modules(rec: TargetRecord) -> list[str]:
    """Modules a test file could not import (``No module named 'torch_npu'``), first spelling of each."""
    names = [
        m.split(".")[0]
        for s in [*rec.listing, *rec.full]
        if not s.tests
        for m in re.findall(r"No module named '([\w.]+)'", s.output)
    ]
    return list(dict.fromkeys(names))


def _free_path(root: Path, refs: list[tuple[str, str]], rel: str) -> str:
    """``rel``, or where it names a file of a ref already (``test/test_add.py``), ``test_add_api.py``."""
    stem, suffix = os.path.splitext(rel)
    candidate, n = rel, 1
    while any(blob_bytes(root, commit, candidate) is not None for _, commit in refs):
        candidate = f"{stem}_api{'' if n == 1 else n}{suffix}"
        n += 1
    return candidate


def _have(rec: TargetRecord) -> str:
    note = next((n for n in rec.notes if n.code == "version_mismatch"), None)
    return str(note.args.get("have", "")) if note is not None else ""


def _why(rec: TargetRecord) -> str:
    """Why a target is FAIL: the API's failing tests and what else counts against it."""
    failed = [t.id or t.test for t in rec.api_tests if t.status == "failed"]
    if rec.api_tests or rec.api_reasons:
        bits = (
            [f"{len(failed)} of the API's test(s) failed: {', '.join(failed[:3])}"]
            if failed
            else []
        )
        bits += rec.api_reasons[:2]
        for s in rec.isolation:
            if not (s.ok and s.result.get("passed")):
                bits.append(f"{s.result.get('title', s.name).lower()} isolation probe failed")
        if rec.leaks:
            bits.append(f"{len(rec.leaks)} state leak(s)")
        bits.extend(phrase(n) for n in rec.notes[:1] if rec.result == "ERROR")
        if bits:
            return "; ".join(bits)
    bits = []
    for s in rec.full:
        if s.status != "OK" or s.verdict == "FAIL":
            bad = [t.id for t in s.tests if t.outcome in ("failed", "error")]
            if not s.tests:  # it stopped before any test: its last error line says why
                errors = [
                    ln for ln in s.output.splitlines() if re.match(r"^\w+(Error|Exception)\b", ln)
                ]
                bad = errors[-1:] or s.verdict_reasons[:1]
            bits.append(
                f"{s.test_file}: {s.status if s.status != 'OK' else 'FAIL'}"
                + (f" ({', '.join(bad)})" if bad else "")
            )
    for s in rec.isolation:
        if not (s.ok and s.result.get("passed")):
            bits.append(f"{s.result.get('title', s.name).lower()} isolation probe failed")
    if rec.leaks:
        bits.append(f"{len(rec.leaks)} state leak(s)")
    bits.extend(phrase(n) for n in rec.notes[:1] if rec.result == "ERROR")
    return "; ".join(bits) or rec.result


def _change_patch(rel: str, old: str, new: str) -> str:
    """A ``git apply``-able patch that turns ``old`` into ``new`` at ``rel``."""
    import difflib

    lines = list(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{rel}", f"b/{rel}"
        )
    )
    out = [f"diff --git a/{rel} b/{rel}\n"]
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _new_file_patch(rel: str, content: str) -> str:
    """A ``git apply``-able patch that adds ``rel`` with ``content``."""
    with temporary_dir("patch") as tmp:
        path = Path(tmp) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        res = git(
            tmp,
            "diff",
            "--no-index",
            "--no-color",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            "/dev/null",
            rel,
            check=False,
        )  # exit 1: "the files differ"
    return res.text


__all__ = ["Pipeline", "Stages", "Verdict", "VerifyOptions", "slug"]
