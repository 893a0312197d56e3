"""The Ray executor: environments with a ``ray`` table run their jobs on a matching node of a cluster.

``[envs.a2] ray = { resources = { NPU = 1 }, labels = { product = "A2" } }`` and
a cluster address (``--ray ADDRESS`` or ``[ray] address``) send that
environment's jobs to a node that has the resources and the labels: one Ray
actor per environment (``ray_node.NodeAgent``, placed with ``resources`` and
``label_selector``) holds the environment's warm worker there. Every other
environment runs in the local pool.

What a job carries: the agent source of this controller (so every node runs
the same agent) and the ref's files, ``git archive`` of the test roots at the
target's commit, put once per commit into Ray's object store; a scaffolded
test (the target's overlay) goes with each of its jobs. The node answers each
job's result and the bytes of its log; the collector here turns them into the
target's record and log, which land in this controller's store exactly as a
local run's do. Each record says which node ran it.

A node lost during a target (its actor dies, or stops answering): the target
is recorded ERROR with the loss said, and is run once more, from its first step,
on another node that matches, when one is alive (the retry's record says the
first attempt was lost). Targets stored before the loss are not touched.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..config import RayNeeds
from ..errors import EnvironmentBroken, UsageError
from ..records.notes import Note
from . import ship, trees
from .pool import EnvLike, LocalPool, TargetLike
from .runners import ANSWER_GRACE, Job, JobResult

R = TypeVar("R")

#: seconds a job without a timeout of its own may go unanswered before its node counts as lost
DEFAULT_JOB_SECONDS = 3600.0


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError(
            "--ray needs Ray: pip install 'torchparity[ray]' (or pip install ray)"
        ) from None
    return ray


class NodeLost(EnvironmentBroken):
    """The node a job ran on is gone (or stopped answering)."""

    def __init__(self, node: str, detail: str) -> None:
        super().__init__(f"Ray node {node[:12]} was lost: {detail}")
        self.node = node
        self.detail = detail


@dataclass
class _Agent:
    """One environment's actor on one node."""

    env: str
    actor: Any
    node: dict[str, Any]
    lost: bool = False

    @property
    def node_id(self) -> str:
        return str(self.node.get("node_id", ""))


@dataclass
class _Lease:
    """The agent a target's jobs went to, and whether its node was lost on the way."""

    agent: _Agent
    lost: NodeLost | None = None
    history: list[NodeLost] = field(default_factory=list)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    detail = next(
        (ln.strip() for ln in text if "node has died" in ln or "died" in ln.lower()), None
    )
    return f"{type(exc).__name__}: {detail or (text[0].strip() if text else '')}"


class RayTargetRunner:
    """A ``Runner`` for one target's (or resolve's) jobs on the environment's actor."""

    mode: str
    python: str

    def __init__(
        self,
        pool: RayPool,
        env: EnvLike,
        lease: _Lease,
        tree: tuple[str, Any] | None,
        overlay: Sequence[tuple[str, bytes]],
    ) -> None:
        self.pool = pool
        self.env = env
        self.lease = lease
        self.tree = tree
        self.overlay = list(overlay)
        self.mode = pool.mode
        self.python = env.python

    def run(self, job: Job) -> JobResult:
        ray = self.pool.ray
        agent = self.lease.agent
        if self.lease.lost is not None:
            raise self.lease.lost
        doc = {
            "op": job.op,
            "args": job.args,
            "timeout": job.timeout,
            "cwd": job.cwd,
            "literal": job.literal,
            "root": job.cwd,
        }
        key, ref = self.tree if (self.tree is not None and job.cwd) else ("", None)
        wait = (job.timeout or DEFAULT_JOB_SECONDS) + ANSWER_GRACE
        try:
            answer = ray.get(
                agent.actor.run.remote(
                    doc, key, [ref] if ref is not None else None, self.overlay if key else None
                ),
                timeout=wait,
            )
        except (
            ray.exceptions.RayActorError,
            ray.exceptions.ActorUnavailableError,
            ray.exceptions.GetTimeoutError,
            ray.exceptions.ObjectLostError,
        ) as exc:
            lost = NodeLost(agent.node_id, _first_line(exc))
            self.lease.lost = lost
            self.pool.lost(agent)
            raise lost from None
        job.output.parent.mkdir(parents=True, exist_ok=True)
        job.output.write_bytes(answer["log"])
        res = JobResult(**{**answer["result"], "output": answer["log"].decode("utf-8", "replace")})
        node = agent.node
        res.how = (
            f"{res.how}; on Ray node {agent.node_id[:12]} (host {node.get('host')}, "
            f"{node.get('address')}), from a git archive of the ref shipped with the job"
        ).lstrip("; ")
        mismatch = self._check_files(job, answer.get("files") or {})
        if mismatch:
            res.status, res.result = "ERROR", {}
            res.output += f"\ntorchparity: {mismatch}\n"
        return res

    def _check_files(self, job: Job, remote: dict[str, str | None]) -> str:
        """The file a node ran is the file hashed here (same bytes), or the job is no evidence."""
        if not job.cwd:
            return ""
        for name in ("path", "file"):
            local = job.args.get(name)
            if not local:
                continue
            mapped = remote.get(name)
            try:
                here = hashlib.sha256(Path(local).read_bytes()).hexdigest()
            except OSError:
                continue
            if mapped != here:
                return (
                    f"the file the node ran ({mapped or 'missing'}) is not the file checked out here "
                    f"({here}); the job is no evidence"
                )
        return ""

    def close(self) -> None:
        pass

    def kill(self) -> None:
        pass


class RayPool:
    """Ray-bound environments on a cluster, every other one in ``local``."""

    def __init__(
        self,
        address: str,
        needs: dict[str, RayNeeds],
        local: LocalPool,
        *,
        mode: str,
        backend_module: str,
        repo: Path | None,
        ship_paths: Sequence[str],
        allow_cpu_fallback: bool = False,
    ) -> None:
        self.address = address
        self.allow_cpu_fallback = allow_cpu_fallback
        self.needs = needs
        self.local = local
        self.mode = mode
        self.backend_module = backend_module
        self.repo = repo
        self.ship_paths = list(ship_paths)
        self.ray = import_ray()
        self._lock = threading.RLock()
        self._agents: dict[str, _Agent] = {}
        self._trees: dict[str, tuple[str, Any] | EnvironmentBroken] = {}
        #: by target (the object: two tasks' targets may share a label)
        self._leases: dict[int, _Lease] = {}
        self._dead: set[str] = set()
        self._started = False
        self._agent_ref: Any = None
        #: actors started (each paid one interpreter start + import torch on its node)
        self.started = 0

    # -- the cluster --------------------------------------------------------------------------
    def _connect(self) -> None:
        if self._started:
            return
        ray = self.ray
        if not ray.is_initialized():
            import torchparity

            ray.init(
                address=self.address,
                namespace="torchparity",
                log_to_driver=False,
                runtime_env={
                    "py_modules": [str(Path(torchparity.__file__).parent)],
                    "excludes": ["__pycache__", "*.pyc"],
                },
            )
        self._agent_ref = ray.put(ship.agent_sources())
        self._started = True

    def _matching(self, needs: RayNeeds, exclude: set[str]) -> list[dict[str, Any]]:
        out = []
        for n in self.ray.nodes():
            if not n.get("Alive") or n.get("NodeID") in exclude:
                continue
            labels = n.get("Labels") or {}
            resources = n.get("Resources") or {}
            if all(labels.get(k) == v for k, v in needs.labels) and all(
                resources.get(k, 0) >= v for k, v in needs.resources
            ):
                out.append(n)
        return out

    def describe_nodes(self) -> str:
        nodes = [n for n in self.ray.nodes() if n.get("Alive")]
        return (
            "; ".join(
                f"{n['NodeID'][:12]} labels {{{', '.join(f'{k}={v}' for k, v in (n.get('Labels') or {}).items() if not k.startswith('ray.io/'))}}}"
                for n in nodes
            )
            or "none alive"
        )

    def _agent(self, env: EnvLike, device: str) -> _Agent:
        with self._lock:
            got = self._agents.get(env.name)
            if got is not None and not got.lost:
                return got
            self._connect()
            needs = self.needs[env.name]
            if not self._matching(needs, self._dead):
                raise EnvironmentBroken(
                    f"no alive Ray node matches environment {env.name} ({needs.describe()}); "
                    f"nodes: {self.describe_nodes()}"
                )
            from .ray_node import NodeAgent

            selector = dict(needs.labels)
            if self._dead:
                selector["ray.io/node-id"] = "!in(" + ",".join(sorted(self._dead)) + ")"
            cls = self.ray.remote(NodeAgent)
            actor = cls.options(
                num_cpus=0,
                resources=dict(needs.resources),
                label_selector=selector,
                max_restarts=0,
                max_concurrency=1,
            ).remote(
                env.python,
                self.backend_module,
                device,
                self.mode,
                self._agent_ref,
                self.allow_cpu_fallback,
                env.emulated,
            )
            try:
                node = self.ray.get(actor.node.remote(), timeout=600)
            except (
                Exception
            ) as exc:  # it never came up: its node was lost already, or it cannot start
                raise EnvironmentBroken(
                    f"the Ray actor of environment {env.name} did not start: {_first_line(exc)}"
                ) from None
            agent = _Agent(env.name, actor, node)
            self._agents[env.name] = agent
            self.started += 1
            return agent

    def lost(self, agent: _Agent) -> None:
        """The agent's node is gone (or unreachable): never used again, and killed should it come back
        (it would hold the node's resources)."""
        with self._lock:
            agent.lost = True
            if agent.node_id:
                self._dead.add(agent.node_id)
            if self._agents.get(agent.env) is agent:
                del self._agents[agent.env]
        try:
            self.ray.kill(agent.actor, no_restart=True)
        except Exception:  # already gone with its node
            pass

    # -- the ref's files ---------------------------------------------------------------------------
    def _tree(self, target: TargetLike) -> tuple[str, Any] | None:
        if self.repo is None or not target.commit:
            return None
        paths = sorted(set(self.ship_paths))
        key = trees.tree_key(target.commit, paths)
        with self._lock:
            got = self._trees.get(key)
            if got is None:
                try:
                    data = trees.archive(self.repo, target.commit, target.ref, paths)
                    got = (key, self.ray.put(data))
                except EnvironmentBroken as exc:
                    got = exc
                self._trees[key] = got
        if isinstance(got, EnvironmentBroken):
            raise got
        return got

    # -- the pool ------------------------------------------------------------------------------------
    def runner_for(self, env: EnvLike, device: str, target: TargetLike | None = None) -> Any:
        if env.name not in self.needs:
            return self.local.runner_for(env, device, target)
        tree = self._tree(target) if target is not None else None
        lease = _Lease(self._agent(env, device))
        if target is not None:
            with self._lock:
                before = self._leases.get(id(target))
                if before is not None:
                    lease.history = [*before.history, *([before.lost] if before.lost else [])]
                self._leases[id(target)] = lease
        return RayTargetRunner(self, env, lease, tree, target.overlay if target is not None else ())

    def finish_target(self, target: TargetLike, record: R, again: Callable[[TargetLike], R]) -> R:
        with self._lock:
            lease = self._leases.pop(id(target), None)
        if lease is None:
            return record
        notes: list[Note] = record.notes  # type: ignore[attr-defined]
        if lease.lost is None:
            for first in lease.history:
                notes.append(
                    Note.of("node_lost_retried", node=first.node[:12], detail=first.detail)
                )
            notes.append(
                Note.of(
                    "ray_node",
                    node=lease.agent.node_id[:12],
                    host=lease.agent.node.get("host"),
                    address=lease.agent.node.get("address"),
                )
            )
            return record
        if lease.history:  # this was the retry, and it was lost too
            first = lease.history[0]
            notes.append(Note.of("node_lost_retried", node=first.node[:12], detail=first.detail))
            notes.append(
                Note.of("node_lost_again", node=lease.lost.node[:12], detail=lease.lost.detail)
            )
            return record
        needs = self.needs[lease.agent.env]
        if not self._matching(needs, self._dead):
            notes.append(Note.of("node_lost", node=lease.lost.node[:12], detail=lease.lost.detail))
            return record
        with self._lock:
            self._leases[id(target)] = lease  # the retry's lease takes this one's history
        retried = again(target)
        return self.finish_target(target, retried, again)

    def kill(self) -> None:
        self.local.kill()
        with self._lock:
            agents = list(self._agents.values())
        for a in agents:
            try:
                self.ray.kill(a.actor)
            except Exception:  # already gone
                pass

    def close(self) -> None:
        self.local.close()
        with self._lock:
            agents, self._agents = list(self._agents.values()), {}
        for a in agents:
            try:
                self.ray.get(a.actor.close.remote(), timeout=30)
            except Exception:  # its node is gone: nothing to close there
                pass
            try:
                self.ray.kill(a.actor)
            except Exception:
                pass


__all__ = ["NodeLost", "RayPool", "RayTargetRunner", "import_ray"]
