"""A warm worker lost during the environment probe (the agent's own code; no test ran) is retried once, and said."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from tests.collect.test_collector import _logs
from torchparity.collect import CollectOptions, Collector, EnvSpec
from torchparity.exec.pool import LocalPool
from torchparity.exec.runners import Job, JobResult, Runner
from torchparity.store import Store

pytestmark = pytest.mark.slow

GOOD = "test/test_good.py"
GOOD_TEXT = """\
import unittest

import torch


class T(unittest.TestCase):
    def test_ones(self):
        self.assertEqual(torch.ones(2).sum().item(), 2.0)


if __name__ == "__main__":
    unittest.main()
"""


class _KillsItsWorkerOnce:
    """A real warm worker whose processes (worker and lanes) are killed for real just before the first probe."""

    def __init__(self, real: Runner) -> None:
        self.real, self.killed = real, False

    def run(self, job: Job) -> JobResult:
        if job.op == "probe" and not self.killed:
            self.killed = True
            self.real.warm()  # type: ignore[attr-defined]
            for pid in [self.real.worker_pid, *(lane.pid for lane in self.real._all)]:  # type: ignore[attr-defined]
                os.kill(pid, signal.SIGKILL)
        return self.real.run(job)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


class _Pool(LocalPool):
    def __init__(self) -> None:
        super().__init__("warm", "", lanes=2)
        self.wrapped: dict[int, _KillsItsWorkerOnce] = {}

    def runner_for(self, env: Any, device: str, target: Any = None) -> Runner:
        real = super().runner_for(env, device, target)
        return self.wrapped.setdefault(id(real), _KillsItsWorkerOnce(real))  # type: ignore[return-value]


def test_a_worker_lost_during_the_probe_is_retried_once_and_said(
    tmp_path, make_repo, python_with_torch
):
    repo = make_repo({"master": {GOOD: GOOD_TEXT}})
    pool = _Pool()
    opts = CollectOptions(
        files=[GOOD], repo=repo, envs=[EnvSpec("py", python_with_torch)], device="cpu"
    )
    try:
        outcome = Collector(Store(tmp_path / "store"), opts, runners=pool).run(["run"])
    finally:
        pool.close()
    (rec,) = outcome.records
    assert next(iter(pool.wrapped.values())).killed
    assert rec.result == "PASS", rec.notes
    retried = [n for n in rec.notes if n.code == "probe_retried"]
    assert 1 <= len(retried) <= 3 and all(n.args["status"] == "WORKER_DIED" for n in retried)
    log = next(iter(_logs(tmp_path).values()))
    assert "an environment probe ended WORKER_DIED" in log
    assert (
        "ENVIRONMENT_PROBE_EXIT_CODE=0" in log and "ENVIRONMENT_PROBE_STATUS=WORKER_DIED" not in log
    )
