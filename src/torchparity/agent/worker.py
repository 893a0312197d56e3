"""The warm worker: torch is imported once, then every job runs in a forked child.

The child gets its own process group (so a timeout kills whatever the test started), its fd 1 and 2
point at the job's output file, it initialises the device, runs the job and sends the job's answer
once over a pipe the worker made for that job, signed with a key the worker made for it
(``answer.py``: ``AnswerChannel``). The worker reads the pipe while it waits, takes the one message
signed with the key and sent by the child it forked, and says what else came; there is no answer
file a test could write. The worker waits with a deadline and reports OK / FAIL / TIMEOUT / CRASH; a
child's death never takes the worker down. The worker is a child subreaper (``reap.py``): what a
test started, even in a session of its own, is killed with the job. A worker whose controller is
gone stops its job and exits.

The worker (and its lanes) are not dumpable (``PR_SET_DUMPABLE``): a job's child, made dumpable
again for its own sake, cannot open the worker's descriptors through ``/proc/<worker>/fd`` (its
channel to the controller) nor read its memory.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
import traceback
from types import FrameType
from typing import Sequence

from . import answer as answer_mod
from . import reap
from .backend import Context
from .ops import OPS
from .protocol import Json, close_fds

#: a job's exit code when the device it was asked to run on is not there (a broken environment)
EXIT_DEVICE_MISSING = 3

#: the job child running now (its pid is its process group), for the SIGTERM handler
RUNNING: list[int] = []


def stop_on_sigterm() -> None:
    """SIGTERM (the controller stopping us) kills the running job's whole group, then the worker."""

    def handler(signum: int, frame: FrameType | None) -> None:
        for pid in list(RUNNING):
            reap.kill_tree(pid)
        reap.kill_tree(os.getpid(), include_self=False)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


#: seconds between two looks at whether the controller (the worker's parent) is still there
PARENT_CHECK = 0.5

PR_SET_DUMPABLE = 4


def set_dumpable(flag: bool) -> bool:
    """``PR_SET_DUMPABLE`` (Linux): a process that is not dumpable keeps its ``/proc/<pid>/fd`` and memory
    from other processes of the same user, its own children included. False where it cannot."""
    return reap.prctl(PR_SET_DUMPABLE, 1 if flag else 0)


class ControllerGone(Exception):
    """The controller that started the worker died (killed outright): nobody waits for the job."""


def _wait(
    pid: int, deadline: float, reader: answer_mod.AnswerReader | None = None
) -> tuple[int | None, bool]:
    """(status, timed_out): wait for ``pid`` until ``deadline`` (monotonic seconds), reading the job's
    answer pipe (``reader``) as the answer comes, so that a large answer never blocks its writer.

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
            if reader is not None:
                reader.pump()
            got, status = os.waitpid(pid, os.WNOHANG)
            if got == pid:
                return status, False
            left = deadline - time.monotonic()
            if left <= 0:
                return None, True
            if os.getppid() != parent:
                raise ControllerGone()
            answer = [] if reader is None or reader.eof else [reader.fd]
            if pidfd is not None:
                select.select([pidfd] + answer, [], [], min(left, PARENT_CHECK))
            elif answer:
                select.select(answer, [], [], min(delay, left))
                delay = min(delay * 2, 0.02)
            else:
                time.sleep(min(delay, left))
                delay = min(delay * 2, 0.02)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def run_child(
    ctx: Context, job: Json, close: Sequence[int] = (), answer: tuple[int, bytearray] | None = None
) -> None:
    """Body of the forked child: never returns. ``answer``: (write end of the job's answer pipe, key)."""
    code = 70
    try:
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        close_fds(close)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        out = os.open(job["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        channel = None
        if answer is not None:
            channel = answer_mod.AnswerChannel(answer[0], answer[1])
            answer_mod.wipe(answer[1])  # the worker's copy of the key, in this process's memory
        # the job's own process: debuggers and core dumps work as without the worker
        set_dumpable(True)
        code = execute(ctx, job, channel)
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


def execute(ctx: Context, job: Json, channel: answer_mod.AnswerChannel | None = None) -> int:
    """Run one job in this process; sends its answer over ``channel`` (``answer.AnswerChannel``);
    returns the exit code."""
    if ctx.device_problem and job["op"] != "probe":
        # a requested device that is not there: no job runs on something else instead
        sys.stderr.write("torchparity: %s\n" % ctx.device_problem)
        result: Json = {"device_problem": ctx.device_problem, "exit_code": EXIT_DEVICE_MISSING}
    else:
        problem = ctx.prepare_child()
        if problem and not ctx.device_problem:
            sys.stderr.write("torchparity: device initialisation failed: %s\n" % problem)
        if ctx.replay is not None:  # what the preloads changed comes back when a test imports them
            ctx.replay.arm()
        result = OPS[job["op"]](ctx, job.get("args", {}))
    sys.stdout.flush()
    sys.stderr.flush()
    if channel is not None:
        channel.send(result)
    else:
        sys.stderr.write(
            "torchparity-agent: no answer channel was given to this job; its answer is not sent\n"
        )
    return int(result.get("exit_code", 0) or 0)


def run_forked(ctx: Context, job: Json, close: Sequence[int] = ()) -> Json:
    """Fork a child for ``job``, wait for it, and describe how it ended."""
    timeout = float(job.get("timeout") or 0) or None
    key = answer_mod.new_key()
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        run_child(ctx, job, close, (write_fd, key))
    os.close(write_fd)
    reader = answer_mod.AnswerReader(read_fd)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    RUNNING.append(pid)
    deadline = started + timeout if timeout else float("inf")
    try:
        status, timed_out = _wait(pid, deadline, reader)
    except ControllerGone:
        reap.kill_tree(pid)
        reap.kill_tree(os.getpid(), include_self=False)
        os._exit(1)
    finally:
        RUNNING.remove(pid)
    if timed_out:
        reap.kill_tree(pid)  # its group and every descendant, in whatever group or session
        os.waitpid(pid, 0)
    # Whatever the test started goes with it: its group, and (the worker being their subreaper)
    # the orphans it left behind in groups of their own.
    reap.signal_group(pid)
    reap.kill_and_reap_orphans()
    # every writer is gone now (the child and what it left behind were killed): the whole answer is there
    result, problems = answer_mod.read_answer(reader.finish(), key, pid)
    answer: Json = {
        "id": job.get("id"),
        "op": job["op"],
        "duration": time.monotonic() - started,
        "output": job["output"],
        "pid": pid,
        "token": job.get("token"),
    }
    if timed_out or status is None:
        answer.update(status="TIMEOUT", exit_code=None, signal=signal.SIGKILL)
    elif os.WIFSIGNALED(status):
        answer.update(status="CRASH", exit_code=None, signal=os.WTERMSIG(status))
    else:
        code = os.WEXITSTATUS(status)
        answer.update(status="OK" if code == 0 else "FAIL", exit_code=code, signal=None)
    if result is not None:
        answer["result"] = result
    if problems:
        answer["answer_problems"] = problems
    return answer
