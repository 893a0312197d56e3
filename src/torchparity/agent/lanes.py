"""Lanes: forked copies of the warm worker, each running one job at a time, side by side.

With ``--lanes`` the worker (torch and the preloads imported) forks one lane per channel the
controller passed it and then only supervises: it waits for ``shutdown`` (or its controller's end)
on its own channel and stops the lanes. Each lane is a child subreaper of its own and serves its
channel exactly as a one-lane worker serves stdin: a forked child per job, its leftovers killed
after it. Jobs of one environment then run at once without importing torch again, and a lane's
cleanup after its job never touches another lane's job.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from typing import Sequence

from . import reap, worker
from .backend import Context
from .protocol import Channel, Json, close_fds

#: seconds the lanes get to stop after the worker is told to shut down
STOP_SECONDS = 5.0


def _error(job: Json, error: str) -> Json:
    """The answer to a job that was not run."""
    keys = ("id", "op", "token")
    return dict({k: job.get(k) for k in keys}, status="ERROR", error=error)


def serve_channel(ctx: Context, chan: Channel) -> int:
    """Answer jobs from ``chan`` until ``shutdown`` or its end: a forked child per job."""
    while True:
        job = chan.recv()
        if job is None or job.get("op") == "shutdown":
            return 0
        try:
            answer = worker.run_forked(ctx, job, close=chan.fds())
        except Exception as exc:  # the worker itself must keep answering
            answer = _error(job, "%s: %s" % (type(exc).__name__, exc))
        chan.send(answer)


def start(ctx: Context, lanes: Sequence[tuple[int, int]], main_chan: Channel) -> list[int]:
    """Fork a lane per (read fd, write fd) pair; returns the lanes' pids."""
    pids = []
    lane_fds = [fd for pair in lanes for fd in pair]
    for index, (read_fd, write_fd) in enumerate(lanes):
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                close_fds(
                    main_chan.fds() + [fd for fd in lane_fds if fd not in (read_fd, write_fd)]
                )
                reap.become_subreaper()
                chan = Channel(read_fd, write_fd)
                chan.send({"event": "lane_ready", "pid": os.getpid(), "lane": index})
                code = serve_channel(ctx, chan)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        pids.append(pid)
    close_fds(lane_fds)  # each lane holds its own ends now
    return pids


def lane_status(pid: int, wait: float = STOP_SECONDS) -> Json:
    """How lane ``pid`` ended: {"pid", "exit_code", "signal"} (both None if it has not ended yet)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            got, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return {
                "pid": pid,
                "exit_code": None,
                "signal": None,
                "why": "not a lane of this worker",
            }
        if got == pid:
            if os.WIFSIGNALED(status):
                return {"pid": pid, "exit_code": None, "signal": os.WTERMSIG(status)}
            return {"pid": pid, "exit_code": os.WEXITSTATUS(status), "signal": None}
        if time.monotonic() > deadline:
            return {"pid": pid, "exit_code": None, "signal": None, "why": "still running"}
        time.sleep(0.005)


def supervise(chan: Channel) -> int:
    """The worker once its lanes run: ``lane_status`` (how a lane that died ended) and ``shutdown``
    come here; then the lanes stop."""
    while True:
        msg = chan.recv()
        if msg is None or msg.get("op") == "shutdown":
            break
        if msg.get("op") == "lane_status":
            chan.send(lane_status(int(msg.get("pid") or 0)))
            continue
        chan.send(_error(msg, "this worker runs jobs in its lanes; send them there"))
    stop_lanes()
    return 0


def stop_lanes() -> None:
    """SIGTERM every lane (each takes its job's tree down), reap them, kill what is left."""
    for pid in reap.descendants(os.getpid()):
        try:
            if os.getpgid(pid) == os.getpgrp():  # the lanes; jobs have groups of their own
                os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.monotonic() + STOP_SECONDS
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)
    reap.kill_and_reap_orphans()
