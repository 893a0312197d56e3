"""What the tasks of one verify or batch share: runners, checkouts, resolve answers, the coverage index.

``verify`` makes a ``Shared`` of its own for its one task; ``batch`` makes one for
all of its tasks and hands it to every task's ``Pipeline``, so the stages are the
same functions either way and only what they draw on is shared:

* ``pool``: the runners (one warm worker per environment, or Ray actors) that
  resolve, the scaffold's facts and every target's jobs run on;
* ``checkouts``: one worktree per commit (batch), or a worktree per target (verify);
* ``resolved``: one resolve per API; a batch asks the agent for all its APIs in
  one job (``resolve_all``) and each task takes its answer;
* ``coverage``: one index per ref for every API of the batch (the blob facts are
  cached in the store by blob id; the index is built once under one alias table
  that holds what resolve said of each API, as ``coverage API1 API2 --python`` does);
* locks for the stages that write shared files (docs pages).
"""

from __future__ import annotations

import itertools
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from ..api import AgentSession, ApiInfo, resolve_api
from ..api.resolve import UnresolvedApi
from ..collect.collector import Checkouts, Collector
from ..config import Config
from ..coverage import coverage_for
from ..coverage.aliases import AliasTable
from ..errors import TorchparityError, UsageError
from ..exec import Job
from ..exec.interrupt import stopping, temp_dir
from ..exec.pool import EnvLike, LocalPool, RunnerPool, preload_for
from ..records.coverage import ApiCoverage
from ..store import Store


class Cancelled(KeyboardInterrupt):
    """The run this task belongs to is stopping (Ctrl-C, SIGTERM): the task's run stays incomplete."""


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class CoverageIndex:
    """Coverage of many APIs over the same refs, computed together once (one index per ref)."""

    def __init__(self, store: Store, test_roots: Sequence[str]) -> None:
        self.store = store
        self.test_roots = list(test_roots)
        self._lock = threading.Lock()
        self._planned: dict[tuple[str, tuple[str, ...]], list[ApiInfo]] = {}
        self._done: dict[tuple[str, tuple[str, ...], str], ApiCoverage] = {}
        #: coverage_for calls made (each builds the index of every ref once)
        self.builds = 0

    def plan(self, root: Path, refs: Sequence[str], infos: Sequence[ApiInfo]) -> None:
        """The APIs that will ask about ``refs``: the first to ask gets them all computed."""
        with self._lock:
            group = self._planned.setdefault((str(root), tuple(refs)), [])
            known = {i.resolution.query for i in group}
            group.extend(i for i in infos if i.resolution.query not in known)

    def get(
        self,
        root: Path,
        refs: Sequence[str],
        info: ApiInfo,
        table_for: Callable[[list[ApiInfo]], AliasTable],
    ) -> ApiCoverage:
        key = (str(root), tuple(refs))
        query = info.resolution.query
        with self._lock:
            if (key[0], key[1], query) not in self._done:
                group = [
                    i
                    for i in self._planned.get(key, [])
                    if (key[0], key[1], i.resolution.query) not in self._done
                ]
                if query not in {i.resolution.query for i in group}:
                    group.append(info)
                queries = list(dict.fromkeys(i.resolution.query for i in group))
                report = coverage_for(
                    queries,
                    root,
                    list(refs),
                    self.store,
                    tests=self.test_roots,
                    aliases=table_for(group),
                )
                self.builds += 1
                for q, cov in zip(queries, report.apis, strict=True):
                    self._done[(key[0], key[1], q)] = cov
            return self._done[(key[0], key[1], query)]


#: seconds the probe asking an environment's torch version may take (it imports torch and the backend)
PROBE_TIMEOUT = 600.0


class Shared:
    """The resources the tasks of one run draw on (see the module docstring). Close it once."""

    def __init__(
        self,
        store: Store,
        pool: RunnerPool,
        *,
        test_roots: Sequence[str],
        checkouts: Checkouts | None = None,
        owns_pool: bool = True,
    ) -> None:
        self.store = store
        self.pool = pool
        self.checkouts = checkouts
        self.coverage = CoverageIndex(store, test_roots)
        self.docs_lock = threading.Lock()
        self.owns_pool = owns_pool
        self._resolved: dict[str, ApiInfo | TorchparityError] = {}
        self._versions: dict[tuple[str, str], str] = {}
        self._resolve_lock = threading.Lock()
        self._live: set[Cancellable] = set()
        self._live_lock = threading.Lock()
        self._logs = temp_dir("api")
        self._sessions = itertools.count(1)
        self.cancelled = threading.Event()
        #: agent jobs asked of resolve (one per batch of names)
        self.resolve_calls = 0

    # -- the agent in the first environment ------------------------------------------------
    def session(self, env: EnvLike, device: str) -> AgentSession:
        """An agent session on the pool's runner for ``env`` (resolve, the scaffold's facts)."""
        logs = self._logs / f"session-{next(self._sessions)}"
        logs.mkdir(parents=True, exist_ok=True)
        return AgentSession(self.pool.runner_for(env, device), logs, keep_logs=False)

    def torch_version(self, env: EnvLike, device: str) -> str:
        """The environment's torch version, from one probe on the pool's runner there (asked once)."""
        key = (env.python, env.name)
        with self._resolve_lock:
            if key not in self._versions:
                logs = self._logs / f"versions-{next(self._sessions)}"
                logs.mkdir(parents=True, exist_ok=True)
                res = self.pool.runner_for(env, device).run(
                    Job("probe", {}, logs / "probe.log", timeout=PROBE_TIMEOUT)
                )
                facts = {str(k): v for k, v in res.result.get("facts", []) or []}
                self._versions[key] = str(facts.get("torch_version") or "")
            return self._versions[key]

    def resolve_all(
        self, names: Sequence[str], env: EnvLike, device: str, backend_module: str
    ) -> None:
        """Resolve every name not yet resolved in one agent job; a name that fails is asked alone,
        so one unknown API fails only its own task."""
        with self._resolve_lock:
            todo = [n for n in dict.fromkeys(names) if n not in self._resolved]
            if not todo:
                return
            session = self.session(env, device)
            try:
                self.resolve_calls += 1
                for name, info in zip(
                    todo,
                    resolve_api(todo, env.python, backend_module, trace=True, session=session),
                    strict=True,
                ):
                    self._resolved[name] = info
                return
            except UnresolvedApi as exc:
                if len(todo) == 1:
                    self._resolved[todo[0]] = exc
                    return
            except (
                TorchparityError
            ) as exc:  # the environment itself: every task it was asked for says so
                for name in todo:
                    self._resolved[name] = exc
                return
            for name in todo:
                try:
                    self.resolve_calls += 1
                    (self._resolved[name],) = resolve_api(
                        [name], env.python, backend_module, trace=True, session=session
                    )
                except UnresolvedApi as exc:
                    self._resolved[name] = exc

    def resolve(self, name: str, env: EnvLike, device: str, backend_module: str) -> ApiInfo:
        self.resolve_all([name], env, device, backend_module)
        got = self._resolved[name]
        if isinstance(got, TorchparityError):
            raise got
        return got

    # -- interrupts ---------------------------------------------------------------------------
    def track(self, collector: Collector) -> None:
        with self._live_lock:
            self._live.add(collector)
        if self.cancelled.is_set():
            collector.cancel()

    def untrack(self, collector: Collector) -> None:
        with self._live_lock:
            self._live.discard(collector)

    @property
    def stopping(self) -> bool:
        """Cancelled by its owner, or the process is stopping on a signal."""
        return self.cancelled.is_set() or stopping()

    def check(self) -> None:
        """Raise ``Cancelled`` once the run is stopping (nothing new starts)."""
        if self.stopping:
            raise Cancelled("interrupted")

    def cancel(self) -> None:
        """Stop everything now: collectors mark their targets interrupted, runners are killed."""
        self.cancelled.set()
        with self._live_lock:
            live = list(self._live)
        for c in live:
            c.cancel()
        self.pool.kill()

    def close(self) -> None:
        if self.owns_pool:
            self.pool.close()
        if self.checkouts is not None:
            close = getattr(self.checkouts, "close", None)
            if close is not None:
                close()
        shutil.rmtree(self._logs, ignore_errors=True)


def pool_for(
    cfg: Config,
    envs: Sequence[EnvLike],
    *,
    mode: str,
    workers: int,
    ray_address: str | None,
    repo: Path | None,
    allow_cpu_fallback: bool = False,
) -> RunnerPool:
    """The local pool, or (a Ray address given, by ``--ray`` or ``[ray] address``) the Ray executor for
    the environments that name their Ray needs, the local pool for the others."""
    # the warm workers preload torch's test framework and compiler (and the backend's testing module)
    local = LocalPool(
        mode,
        cfg.backend_module,
        workers=workers,
        allow_cpu_fallback=allow_cpu_fallback,
        preload=preload_for(cfg.backend_module, str(cfg.scaffold.get("testcase_import") or "")),
    )
    address = ray_address or str(cfg.ray.get("address") or "")
    if not address:
        return local
    needs = {
        e.name: cfg.envs[e.name].ray
        for e in envs
        if e.name in cfg.envs and cfg.envs[e.name].ray is not None
    }
    if not needs:
        raise UsageError(
            f"a Ray address is given ({address}) but no chosen environment says what it needs there; "
            f'add ray = {{ resources = {{ NPU = 1 }}, labels = {{ product = "A2" }} }} to [envs.NAME] '
            f"in {cfg.source} and pass --env NAME"
        )
    from ..exec.ray_pool import RayPool

    ship = [*cfg.test_roots, *(cfg.ray.get("ship") or [])]
    return RayPool(
        address,
        needs,  # type: ignore[arg-type]
        local,
        mode=mode,
        backend_module=cfg.backend_module,
        repo=repo,
        ship_paths=ship,
        allow_cpu_fallback=allow_cpu_fallback,
    )


__all__ = ["Cancelled", "CoverageIndex", "Shared", "pool_for"]
