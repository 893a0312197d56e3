"""The warm worker: torch is imported once, then every job runs in a forked child.

The child gets its own process group (so a timeout kills whatever the test
started), its fd 1 and 2 point at the job's output file, it initialises the
device, runs the job and writes the job's answer to ``<output>.result.json``.
The worker waits with a deadline and reports OK / FAIL / TIMEOUT / CRASH; a
child's death never takes the worker down. The worker is a child subreaper
(``reap.py``): what a test started, even in a session of its own, is killed
with the job. A worker whose controller is gone stops its job and exits.
"""

import json
import os
import select
import signal
import sys
import time
import traceback

from . import reap
from .ops import OPS

#: a job's exit code when the device it was asked to run on is not there (a broken environment)
EXIT_DEVICE_MISSING = 3

#: the job child running now (its pid is its process group), for the SIGTERM handler
RUNNING = []  # type: list[int]


def stop_on_sigterm():
    """SIGTERM (the controller stopping us) kills the running job's whole group, then the worker."""

    def handler(signum, frame):
        for pid in list(RUNNING):
            reap.kill_tree(pid)
        reap.kill_tree(os.getpid(), include_self=False)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


#: seconds between two looks at whether the controller (the worker's parent) is still there
PARENT_CHECK = 0.5


class ControllerGone(Exception):
    """The controller that started the worker died (killed outright): nobody waits for the job."""


def _wait(pid, deadline):
    """(status, timed_out): wait for ``pid`` until ``deadline`` (monotonic seconds).

    Raises ``ControllerGone`` when the worker's parent changes while waiting."""
    parent = os.getppid()
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
    try:
        delay = 0.0005
        while True:
            got, status = os.waitpid(pid, os.WNOHANG)
            if got == pid:
                return status, False
            left = deadline - time.monotonic()
            if left <= 0:
                return None, True
            if os.getppid() != parent:
                raise ControllerGone()
            if pidfd is not None:
                select.select([pidfd], [], [], min(left, PARENT_CHECK))
            else:
                time.sleep(min(delay, left))
                delay = min(delay * 2, 0.02)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_child(ctx, job, close_fds=()):
    """Body of the forked child: never returns."""
    code = 70
    try:
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for fd in close_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        out = os.open(job["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        code = execute(ctx, job)
    except BaseException:
        try:
            traceback.print_exc()
        except BaseException:
            pass
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        os._exit(code)


def execute(ctx, job):
    """Run one job in this process; writes the answer file; returns the exit code."""
    result_path = job["output"] + ".result.json"
    if ctx.device_problem and job["op"] != "probe":
        # a requested device that is not there: no job runs on something else instead
        sys.stderr.write("torchparity: %s\n" % ctx.device_problem)
        result = {"device_problem": ctx.device_problem, "exit_code": EXIT_DEVICE_MISSING}
    else:
        problem = ctx.prepare_child()
        if problem and not ctx.device_problem:
            sys.stderr.write("torchparity: device initialisation failed: %s\n" % problem)
        if ctx.replay is not None:  # what the preloads changed comes back when the test imports them
            ctx.replay.arm()
        result = OPS[job["op"]](ctx, job.get("args", {}))
    sys.stdout.flush()
    sys.stderr.flush()
    tmp = result_path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(result, fh, default=str)
    os.rename(tmp, result_path)
    return int(result.get("exit_code", 0) or 0)


def run_forked(ctx, job, close_fds=()):
    """Fork a child for ``job``, wait for it, and describe how it ended."""
    timeout = float(job.get("timeout") or 0) or None
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        run_child(ctx, job, close_fds)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    RUNNING.append(pid)
    deadline = started + timeout if timeout else float("inf")
    try:
        status, timed_out = _wait(pid, deadline)
    except ControllerGone:
        reap.kill_tree(pid)
        reap.kill_tree(os.getpid(), include_self=False)
        os._exit(1)
    finally:
        RUNNING.remove(pid)
    if timed_out:
        reap.kill_tree(pid)  # its group and every descendant, in whatever group or session
        _, status = os.waitpid(pid, 0)
    # Whatever the test started goes with it: its group, and (the worker being their subreaper)
    # the orphans it left behind in groups of their own.
    _kill_group(pid)
    reap.kill_and_reap_orphans()
    answer = {"id": job.get("id"), "op": job["op"], "duration": time.monotonic() - started,
              "output": job["output"], "pid": pid}
    if timed_out:
        answer.update(status="TIMEOUT", exit_code=None, signal=signal.SIGKILL)
    elif os.WIFSIGNALED(status):
        answer.update(status="CRASH", exit_code=None, signal=os.WTERMSIG(status))
    else:
        code = os.WEXITSTATUS(status)
        answer.update(status="OK" if code == 0 else "FAIL", exit_code=code, signal=None)
    result_path = job["output"] + ".result.json"
    if os.path.exists(result_path):
        with open(result_path) as fh:
            answer["result"] = json.load(fh)
        os.unlink(result_path)
    return answer
