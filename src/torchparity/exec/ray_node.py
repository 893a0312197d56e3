"""The part of a Ray job that runs on the node: an actor holding the environment's runner there.

``NodeAgent`` is made a Ray actor by ``ray_pool`` (placed by the environment's
resources and node labels). It installs the agent source the controller sent,
starts the same runner the controller would start locally (a warm worker, or
fresh interpreters), unpacks the ref's archived files once per commit, and runs
each job as the local runner would, with the controller's paths mapped onto
its unpacked tree. It answers the job's result and the bytes of its log; the
controller writes those into its own store. Nothing here decides a verdict.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import os
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Any

from ..emulated import runner_settings
from . import ship, trees
from .runners import Job, make_runner


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def remap(value: Any, old: str, new: str) -> Any:
    """Every string under ``old`` (a controller path) moved under ``new`` (the node's tree)."""
    if isinstance(value, str):
        if value == old or value.startswith(old.rstrip("/") + "/"):
            return new + value[len(old.rstrip("/")) :]
        return value
    if isinstance(value, list):
        return [remap(v, old, new) for v in value]
    if isinstance(value, dict):
        return {k: remap(v, old, new) for k, v in value.items()}
    return value


class NodeAgent:
    """One environment's runner on one node (a Ray actor; its methods run one at a time)."""

    def __init__(
        self,
        python: str,
        backend_module: str,
        device: str,
        mode: str,
        agent: dict[str, bytes],
        allow_cpu_fallback: bool = False,
        emulated: str = "",
    ) -> None:
        self.agent_home = ship.use_agent(agent)
        self.home = Path(tempfile.mkdtemp(prefix="torchparity-ray-"))
        # an emulated backend is the one shipped with this node's torchparity (its path is the node's)
        run = runner_settings(emulated, backend_module, device)
        self.runner = make_runner(
            mode,
            python,
            run.backend_module,
            run.device,
            self.home / "worker",
            allow_cpu_fallback,
            run.environ,
        )
        self.trees: dict[str, Path] = {}
        self._n = itertools.count(1)

    def node(self) -> dict[str, Any]:
        import ray

        address = ray.util.get_node_ip_address()
        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "host": socket.gethostname(),
            "address": address,
            "pid": os.getpid(),
            "agent": self.agent_home.name,
        }

    def _tree(self, key: str, data: list[Any]) -> Path:
        if key not in self.trees:
            import ray

            blob = data[0] if isinstance(data[0], bytes) else ray.get(data[0])
            self.trees[key] = trees.unpack(blob, self.home / "trees" / key)
        return self.trees[key]

    def run(
        self,
        job: dict[str, Any],
        tree: str = "",
        data: list[Any] | None = None,
        overlay: list[tuple[str, bytes]] | None = None,
    ) -> dict[str, Any]:
        """Run ``job`` (``Job``'s fields, ``root``: the controller's checkout it names paths in)."""
        root = job.pop("root", None)
        where = self._tree(tree, data or []) if tree else None
        restore: list[tuple[Path, bytes | None]] = []
        if where is not None and root:
            job = remap(job, root, str(where))
            for rel, content in overlay or []:
                dest = where / rel
                restore.append((dest, dest.read_bytes() if dest.exists() else None))
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(content)
        output = self.home / "jobs" / f"{next(self._n)}.log"
        output.parent.mkdir(parents=True, exist_ok=True)
        try:
            res = self.runner.run(
                Job(
                    job["op"],
                    job["args"],
                    output,
                    job.get("timeout"),
                    job.get("cwd"),
                    job.get("literal"),
                )
            )
            files = {
                k: _sha256(Path(job["args"][k])) for k in ("path", "file") if job["args"].get(k)
            }
        finally:
            for dest, before in reversed(restore):
                if before is None:
                    dest.unlink(missing_ok=True)
                else:
                    dest.write_bytes(before)
        log = output.read_bytes() if output.exists() else b""
        output.unlink(missing_ok=True)
        doc = dataclasses.asdict(res)
        doc.pop("output", None)
        return {"result": doc, "log": log, "files": files}

    def close(self) -> None:
        self.runner.close()
        shutil.rmtree(self.home, ignore_errors=True)


__all__ = ["NodeAgent", "remap"]
