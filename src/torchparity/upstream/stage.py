"""The upstream stage: ``(task, earlier records) -> UpstreamRecord``, used by its verb, ``verify`` and ``batch``.

For every environment: one runner (torch imported once), the environment probe
(torch version, device, its name, the OS platform), then for every source (each
backend ref; the PyTorch clone's tag for this torch) the test tree of that
commit, the disabled list that applies to it, and the candidate files run test
by test (``target.run_target``). Nothing is written into either repository.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..collect.envspec import EnvSpec
from ..config import Config
from ..coverage.aliases import AliasTable
from ..emulated import RunnerSettings, emulation, runner_settings
from ..errors import UsageError
from ..exec import Job, Runner, check_timeout, make_runner
from ..exec.interrupt import temporary_dir
from ..gitrepo import blob_bytes, repo_root, resolve_commit
from ..records.coverage import ApiCoverage, RefCoverage
from ..records.target import emulated_in
from ..records.upstream import UpstreamRecord, UpstreamTarget
from ..store import Store
from .checkout import test_tree
from .disabled import DisabledList, list_at
from .evidence import command, target_log
from .find import (
    GIVEN,
    Found,
    Wanted,
    candidates,
    entry_kind,
    hits_at,
    opinfo_files,
    parse_given,
    torch_tag,
)
from .settings import UpstreamSettings, upstream_settings
from .target import TargetPlan, run_target

#: PyTorch's test tree in a clone
PYTORCH_TESTS = ("test",)


@dataclass
class UpstreamOptions:
    api: str
    repo: Path | None = None
    #: backend refs (names as asked); the stage resolves them
    refs: list[str] = field(default_factory=list)
    envs: list[EnvSpec] = field(default_factory=list)
    device: str = ""
    upstream_repo: Path | None = None
    recheck: bool = False
    #: chosen tests (path::Class::test) instead of the ones coverage finds
    tests: list[str] = field(default_factory=list)
    mode: str = "warm"
    timeout: float = 900.0
    allow_cpu_fallback: bool = False
    #: the API is an operator: its OpInfo-driven tests are candidates too
    operator: bool = False
    #: backend targets (``ref@env``) not to run: their environment does not fit the ref's torch release
    skip: frozenset[str] = frozenset()


class UpstreamHooks:
    """What the stage says while it works (the CLI prints it)."""

    def stage(self, what: str) -> None: ...

    def done(self, target: UpstreamTarget) -> None: ...


@dataclass
class _Source:
    kind: str  # backend | pytorch
    repo: Path
    ref: str
    commit: str
    roots: tuple[str, ...]
    cov: RefCoverage | None


def _facts(res_result: dict[str, Any]) -> dict[str, Any]:
    return {str(k): v for k, v in res_result.get("facts", [])}


def _runner(
    opt: UpstreamOptions, cfg: Config, env: EnvSpec, logs: Path
) -> tuple[Runner, RunnerSettings]:
    """The environment's runner (an emulated one runs with the emulation first on its path)."""
    run = runner_settings(env.emulated, cfg.backend_module, env.device or opt.device or cfg.device)
    return make_runner(
        opt.mode,
        env.python,
        run.backend_module,
        run.device,
        logs,
        opt.allow_cpu_fallback,
        run.environ,
    ), run


def _ref_coverage(coverage: ApiCoverage | None, ref: str, upstream: bool) -> RefCoverage | None:
    if coverage is None:
        return None
    return next((r for r in coverage.refs if r.ref == ref and r.upstream == upstream), None)


def check_options(cfg: Config, opt: UpstreamOptions) -> tuple[UpstreamSettings, list[Wanted]]:
    """Bad input is refused before any interpreter starts: the settings and the given tests."""
    check_timeout(opt.timeout)
    if not opt.envs:
        raise UsageError("no environment given; pass --python PY or --env NAME")
    if opt.repo is None and opt.upstream_repo is None:
        raise UsageError(
            "no test tree to search: pass --repo R (the backend's vendored upstream files) "
            "and/or --upstream-repo PATH (a PyTorch clone)"
        )
    for path in (opt.repo, opt.upstream_repo):
        if path is not None:
            repo_root(path)
    return upstream_settings(cfg), [parse_given(t) for t in opt.tests]


class _Stage:
    def __init__(
        self,
        store: Store,
        cfg: Config,
        opt: UpstreamOptions,
        coverage: ApiCoverage | None,
        aliases: AliasTable | None,
        hooks: UpstreamHooks | None,
    ) -> None:
        self.store, self.cfg, self.opt = store, cfg, opt
        self.coverage, self.aliases = coverage, aliases
        self.hooks = hooks or UpstreamHooks()
        self.settings, self.given = check_options(cfg, opt)
        self.notes: list[str] = []
        self.lists: dict[str, DisabledList] = {}
        self.selection = GIVEN if self.given else ""
        self.root = repo_root(opt.repo) if opt.repo is not None else None
        self.clone = repo_root(opt.upstream_repo) if opt.upstream_repo is not None else None
        if self.root is not None and not self.settings.vendored:
            self.notes.append(
                f"{cfg.source} names no vendored upstream files ([upstream] vendored): "
                "the backend repo is not searched"
            )
        refs = (opt.refs or list(cfg.active_branches) or ["HEAD"]) if self.root is not None else []
        self.refs = (
            [(r, resolve_commit(self.root, r)) for r in refs] if self.root is not None else []
        )

    # -- sources ---------------------------------------------------------------------------
    def _backend_sources(self) -> list[_Source]:
        if self.root is None or not self.settings.vendored:
            return []
        out = []
        for ref, commit in self.refs:
            cov = _ref_coverage(self.coverage, ref, upstream=False)
            if cov is None and not self.given:
                cov = hits_at(
                    self.root, ref, self.opt.api, self.store, self.cfg.test_roots, self.aliases
                )
            out.append(_Source("backend", self.root, ref, commit, tuple(self.cfg.test_roots), cov))
        return out

    def _pytorch_source(self, torch_version: str, env: str) -> _Source | None:
        if self.clone is None:
            return None
        tag = torch_tag(torch_version)
        if tag is None:
            self.notes.append(
                f"{env}: torch {torch_version} is no PyTorch release, so no tag of the clone "
                "matches it; its official tests were not searched there"
            )
            return None
        try:
            commit = resolve_commit(self.clone, tag)
        except UsageError:
            self.notes.append(
                f"{env}: the PyTorch clone {self.clone} has no tag {tag} (torch {torch_version}); "
                f"fetch it (git -C {self.clone} fetch origin tag {tag})"
            )
            return None
        cov = None
        if not self.given:
            cov = hits_at(self.clone, tag, self.opt.api, self.store, PYTORCH_TESTS, self.aliases)
        return _Source("pytorch", self.clone, tag, commit, PYTORCH_TESTS, cov)

    def _found(self, src: _Source) -> Found:
        keep = self.settings if src.kind == "backend" else None
        found = candidates(
            src.cov,
            src.repo,
            src.commit,
            src.roots,
            settings=keep,
            operator=self.opt.operator,
            given=self.given,
        )
        if not self.selection or (self.selection == "related" and found.selection == "direct"):
            self.selection = found.selection
        return found

    # -- running --------------------------------------------------------------------------
    def run(self) -> UpstreamRecord:
        backend = self._backend_sources()
        targets: list[UpstreamTarget] = []
        with temporary_dir("upstream-jobs") as logs:
            for i, env in enumerate(self.opt.envs):
                targets.extend(self._env(env, backend, logs / str(i)))
        opinfos = tuple(sorted({t.opinfo for target in targets for t in target.tests if t.opinfo}))
        return UpstreamRecord(
            api=self.opt.api,
            selection=self.selection or "direct",
            recheck=self.opt.recheck,
            targets=tuple(targets),
            opinfos=opinfos,
            notes=tuple(dict.fromkeys(self.notes)),
        )

    def _env(self, env: EnvSpec, backend: list[_Source], logs: Path) -> list[UpstreamTarget]:
        logs.mkdir(parents=True, exist_ok=True)
        self.hooks.stage(f"probe {env.name}")
        runner, run = _runner(self.opt, self.cfg, env, logs)
        out: list[UpstreamTarget] = []
        try:
            probe = runner.run(Job("probe", {}, logs / "probe.log", self.opt.timeout))
            facts = _facts(probe.result)
            dev = str(probe.result.get("device_type") or run.device)
            torch_version = str(facts.get("torch_version") or "")
            platform = f"{facts.get(f'{dev}_device_name') or ''};{facts.get('platform') or ''}"
            problem = str(probe.result.get("device_problem") or "")
            # an emulated backend (--emulate, or one the probe names as such): its tests are a dry run
            emulated = emulated_in(facts, dev) or (
                emulation(env.emulated).device if env.emulated else ""
            )
            if probe.status != "OK":
                problem = problem or f"the environment probe ended {probe.status}"
            sources = list(backend)
            pt = self._pytorch_source(torch_version, env.name)
            if pt is not None:
                sources.append(pt)
            for src in sources:
                label = (
                    f"{src.ref}@{env.name}"
                    if src.kind == "backend"
                    else f"pytorch-{src.ref}@{env.name}"
                )
                if label in self.opt.skip:
                    continue
                base = UpstreamTarget(
                    label=label,
                    source=src.kind,
                    ref=src.ref,
                    commit=src.commit,
                    env=env.name,
                    python=env.python,
                    device=dev,
                    torch_version=torch_version,
                    platform=platform,
                    hardware=env.hardware,
                    emulated=emulated,
                )
                if problem:
                    t = replace(base, result="ERROR", error=problem)
                else:
                    t = self._target(base, src, runner, run.environ, logs)
                t = replace(
                    t,
                    log=target_log(
                        t,
                        probe.output,
                        probe.exit_code,
                        self.opt.mode,
                        probe.result.get("facts") or [],
                    ),
                )
                self.hooks.done(t)
                out.append(t)
        finally:
            runner.close()
        return out

    def _target(
        self,
        base: UpstreamTarget,
        src: _Source,
        runner: Runner,
        environ: dict[str, str],
        logs: Path,
    ) -> UpstreamTarget:
        found = self._found(src)
        files = []
        for fc in found.files:
            data = blob_bytes(src.repo, src.commit, fc.path)
            if data is None:
                if src.kind == "backend" and fc.wanted and fc.wanted[0].how == GIVEN:
                    raise UsageError(
                        f"--test {fc.wanted[0].test}: {fc.path} does not exist at {src.ref}"
                    )
                continue
            files.append((fc, data))
        if not files:
            self.notes.append(
                f"{base.label}: no official test of {self.opt.api} found"
                + (" in the vendored upstream files" if src.kind == "backend" else " in test/")
            )
            return base
        list_repo, list_commit = (
            (src.repo, src.commit)
            if src.kind == "backend"
            else (
                (self.root, self.refs[0][1]) if self.root is not None and self.refs else (None, "")
            )
        )
        disabled, dsha = list_at(
            self.settings, list_repo, list_commit, base.torch_version, self.lists
        )
        self.hooks.stage(f"{base.label}: {len(files)} file(s)")
        with test_tree(src.repo, src.commit, src.roots, src.ref) as tree:
            list_path = None
            if disabled is not None:
                list_path = tree / disabled.path
                if (
                    src.kind == "pytorch"
                ):  # the backend's list, beside the PyTorch tree (not inside it)
                    assert list_repo is not None
                    list_path = logs / "disabled" / Path(disabled.path).name
                    list_path.parent.mkdir(parents=True, exist_ok=True)
                    list_path.write_bytes(
                        blob_bytes(list_repo, list_commit, disabled.path) or b"{}"
                    )
            plan = TargetPlan(
                label=base.label,
                source=src.kind,
                ref=src.ref,
                commit=src.commit,
                root=tree,
                files=files,
                env=base.env,
                python=base.python,
                device=base.device,
                torch_version=base.torch_version,
                platform=base.platform,
                hardware=base.hardware,
                emulated=base.emulated,
                disabled=disabled,
                disabled_sha256=dsha,
                list_path=list_path,
                variable=self.settings.disabled.variable if disabled is not None else "",
                recheck=self.opt.recheck,
                budget=self.settings.max_tests,
                timeout=self.opt.timeout,
                api=self.opt.api,
                entries={fc.path: entry_kind(data) for fc, data in files},
            )
            python = base.python

            def literal(argv: Sequence[str], set_vars: dict[str, str], unset: Sequence[str]) -> str:
                # the runner's own variables (an emulation's PYTHONPATH) first, as the run sets them
                return command(python, argv, {**environ, **set_vars}, unset)

            t = run_target(plan, runner, logs, literal)
        return replace(t, hardware=base.hardware)


def has_candidates(
    cfg: Config,
    coverage: ApiCoverage | None,
    root: Path | None,
    refs: Sequence[tuple[str, str]],
    operator: bool,
) -> bool:
    """Whether the backend's vendored upstream files hold official tests of the API at any ref
    (``coverage``: the coverage stage's record; an operator's OpInfo-driven files count too)."""
    settings = upstream_settings(cfg)
    if root is None or not settings.vendored:
        return False
    for r in coverage.refs if coverage is not None else ():
        if not r.upstream and any(settings.is_vendored(h.path) for h in (*r.direct, *r.related)):
            return True
    return operator and any(
        opinfo_files(root, commit, cfg.test_roots, settings.is_vendored) for _, commit in refs
    )


def upstream_stage(
    store: Store,
    cfg: Config,
    opt: UpstreamOptions,
    coverage: ApiCoverage | None = None,
    aliases: AliasTable | None = None,
    hooks: UpstreamHooks | None = None,
) -> UpstreamRecord:
    """The API's official tests on every target (``coverage``: the coverage stage's record, when it ran)."""
    return _Stage(store, cfg, opt, coverage, aliases, hooks).run()


__all__ = ["UpstreamHooks", "UpstreamOptions", "check_options", "has_candidates", "upstream_stage"]
