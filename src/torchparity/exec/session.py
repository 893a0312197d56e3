"""An agent session: one runner for a batch of jobs, with their logs kept where a failure needs them.

``resolve``, ``trace`` and the scaffold's facts ask the agent through a session;
the collector drives runners directly, one per environment.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import EnvironmentBroken
from .interrupt import temp_dir
from .runners import Job, Runner, make_runner


class AgentJobCrashed(EnvironmentBroken):
    """An agent job ended without a result (the interpreter crashed, was killed, or timed out)."""


class AgentSession:
    """One runner (warm worker or fresh interpreters) for a batch of resolve/trace jobs."""

    def __init__(self, runner: Runner, log_dir: Path, keep_logs: bool = True) -> None:
        self.runner = runner
        self.log_dir = log_dir
        self.keep_logs = keep_logs
        self._n = 0

    def call(self, op: str, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        self._n += 1
        output = self.log_dir / f"{self._n:03d}-{op}.log"
        res = self.runner.run(Job(op, args, output, timeout))
        if res.result.get("device_problem"):
            raise EnvironmentBroken(str(res.result["device_problem"]))
        if not res.result:
            tail = [ln for ln in res.output.strip().splitlines() if ln.strip()][-1:]
            detail = f": {tail[0]}" if tail else ""
            log = output if self.keep_logs else keep_log(output, op)
            where = f"; its log (with the traceback): {log}" if log is not None else ""
            raise AgentJobCrashed(
                f"agent job {op!r} in {self.runner.python} ended {res.status}"
                f"{f' (exit {res.exit_code})' if res.exit_code is not None else ''}{detail}{where}"
            )
        return res.result


def keep_log(log: Path, op: str) -> Path | None:
    """A copy of a failed job's log that outlives the session's temporary folder (None: no log)."""
    try:
        data = log.read_bytes()
    except OSError:
        return None
    fd, kept = tempfile.mkstemp(prefix=f"torchparity-{op}-", suffix=".log")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return Path(kept)


@contextmanager
def agent_session(
    python: str,
    backend_module: str = "",
    device: str = "auto",
    *,
    mode: str = "warm",
    log_dir: Path | None = None,
    allow_cpu_fallback: bool = False,
    environ: dict[str, str] | None = None,
) -> Iterator[AgentSession]:
    """A runner for ``python`` that is closed (and its temporary logs removed) afterwards."""
    tmp = None
    if log_dir is None:
        tmp = log_dir = temp_dir("api")
    log_dir.mkdir(parents=True, exist_ok=True)
    runner = make_runner(mode, python, backend_module, device, log_dir, allow_cpu_fallback, environ)
    try:
        yield AgentSession(runner, log_dir, keep_logs=tmp is None)
    finally:
        runner.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
