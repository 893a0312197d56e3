"""Agent entry point.

``serve BACKEND DEVICE``     warm worker: JSON-line requests on stdin, answers on stdout
``once BACKEND DEVICE JOB``  fresh mode: one job (JSON) in this interpreter, then exit; its answer goes
                             over the pipe of ``--answer=KEY_FD:ANSWER_FD`` (``answer.py``: the job's
                             key is read from KEY_FD, which is closed, before anything else runs)

Either takes ``allow-cpu-fallback`` last: a requested device that is not there then runs the jobs on
the cpu (and says so) instead of refusing them. ``serve`` also takes ``--preload=MOD,MOD`` (imported
once before any fork, ``preload.py``) and ``--lanes=R:W,R:W`` (file descriptors of one channel per
lane: the worker forks a lane per channel, and each lane runs one job at a time, so that jobs run
side by side; ``lanes.py``).

Both first import torch and the backend module; a failed import answers
``{"event": "import_error", ...}`` (serve) or exits 3 (once).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Sequence

from . import AGENT_PROTOCOL, ALLOW_CPU_FALLBACK, backend, preload, reap
from . import answer as answer_mod
from .backend import Context
from .protocol import Channel, Json

EXIT_IMPORT_FAILED = 3


def _watched_device(ctx: Context) -> str | None:
    """The device whose initialisation the worker watches: the one asked for, or the backend's."""
    if ctx.requested_device not in ("", "auto"):
        return ctx.requested_device
    if ctx.backend_mod is None:  # only the backend's own device: asking cuda would initialise it
        return None
    return backend.backend_device(ctx.torch, ctx.backend_module)


def _context(backend_module: str, device: str, allow_cpu_fallback: bool = False) -> Context:
    torch, backend_mod = backend.import_stack(backend_module)
    ctx = Context(torch, backend_mod, backend_module, device, None, allow_cpu_fallback)
    dev = _watched_device(ctx)
    ctx.initialized_at_import = backend.device_initialized(torch, dev) if dev else None
    return ctx


def _preload(ctx: Context, modules: Sequence[str]) -> list[Json]:
    """Import ``modules`` before any fork; the context then knows what to replay in a job."""
    dev = _watched_device(ctx)
    report, ctx.replay = preload.preload(ctx.torch, modules, dev or "")
    if dev and ctx.initialized_at_import is not None:  # the state the jobs are forked in
        ctx.initialized_at_import = backend.device_initialized(ctx.torch, dev)
    return report


def serve(
    backend_module: str,
    device: str,
    allow_cpu_fallback: bool = False,
    modules: Sequence[str] = (),
    lanes: Sequence[tuple[int, int]] = (),
) -> int:
    from . import lanes as lanes_mod
    from . import worker

    chan = Channel.from_stdio()
    try:
        ctx = _context(backend_module, device, allow_cpu_fallback)
    except backend.ImportFailure as exc:
        failure = {"event": "import_error", "module": exc.module, "detail": exc.detail}
        chan.send(dict(failure, python=sys.executable))
        return EXIT_IMPORT_FAILED
    report = _preload(ctx, modules) if modules else []
    worker.stop_on_sigterm()
    # a job's child (and what a test starts) cannot open this process's descriptors or read its memory
    worker.set_dumpable(False)
    subreaper = reap.become_subreaper()
    tracking = (
        reap.TRACKING_SUBREAPER
        if subreaper
        else (reap.TRACKING_PROC if reap.have_proc() else reap.TRACKING_GROUP)
    )
    hello: Json = {
        "event": "ready",
        "pid": os.getpid(),
        "protocol": AGENT_PROTOCOL,
        "python": sys.executable,
        "torch_version": str(ctx.torch.__version__),
        "process_tracking": tracking,
        "preload": report,
    }
    if any(entry.get("initialised") for entry in report):
        # the controller starts a worker without that import; no job is forked here
        chan.send(hello)
        return 0
    if lanes:
        hello["lanes"] = lanes_mod.start(ctx, lanes, chan)
        chan.send(hello)
        code = lanes_mod.supervise(chan)
    else:
        chan.send(hello)
        code = lanes_mod.serve_channel(ctx, chan)
    # no interpreter teardown: with torch and its compiler imported it takes a second, for nothing
    # (every job ran in a child; the answers are flushed)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def once(
    backend_module: str,
    device: str,
    job_json: str,
    allow_cpu_fallback: bool = False,
    answer: str = "",
) -> int:
    from . import worker

    # before anything else: the key leaves its pipe, and the answer pipe is closed in any fork
    channel = answer_mod.open_answer_channel(answer) if answer else None
    if job_json.startswith("@"):  # a large job comes in a file
        with open(job_json[1:]) as fh:
            job_json = fh.read()
    job = json.loads(job_json)
    try:
        ctx = _context(backend_module, device, allow_cpu_fallback)
    except backend.ImportFailure as exc:
        sys.stderr.write("torchparity-agent: %s\n" % exc)
        if channel is not None:
            channel.send({"import_error": {"module": exc.module, "detail": exc.detail}})
        return EXIT_IMPORT_FAILED
    reap.become_subreaper()
    try:
        return worker.execute(ctx, job, channel)
    finally:  # what the job started and left running goes with it
        reap.kill_and_reap_orphans()


def _options(argv: list[str]) -> tuple[list[str], dict[str, str]]:
    """(positional arguments, {option: value}) of ``--name=value`` arguments."""
    plain: list[str] = []
    options: dict[str, str] = {}
    for arg in argv:
        if arg.startswith("--") and "=" in arg:
            name, value = arg[2:].split("=", 1)
            options[name] = value
        else:
            plain.append(arg)
    return plain, options


def _lane_fds(text: str) -> list[tuple[int, int]]:
    pairs = [pair.split(":") for pair in text.split(",") if pair]
    return [(int(read_fd), int(write_fd)) for read_fd, write_fd in pairs]


def main(argv: Sequence[str] | None = None) -> int:
    argv, options = _options(list(sys.argv[1:] if argv is None else argv))
    fallback = bool(argv) and argv[-1] == ALLOW_CPU_FALLBACK
    if fallback:
        argv = argv[:-1]
    if len(argv) >= 3 and argv[0] == "serve":
        modules = [m for m in options.get("preload", "").split(",") if m]
        return serve(argv[1], argv[2], fallback, modules, _lane_fds(options.get("lanes", "")))
    if len(argv) >= 4 and argv[0] == "once":
        return once(argv[1], argv[2], argv[3], fallback, options.get("answer", ""))
    sys.stderr.write(
        "usage: agent serve BACKEND DEVICE [%s] | once BACKEND DEVICE JOB_JSON [%s]\n"
        % (ALLOW_CPU_FALLBACK, ALLOW_CPU_FALLBACK)
    )
    return 2
