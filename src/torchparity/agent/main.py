"""Agent entry point.

``serve BACKEND DEVICE``     warm worker: JSON-line requests on stdin, answers on stdout
``once BACKEND DEVICE JOB``  fresh mode: one job (JSON) in this interpreter, then exit; its answer goes
                             over the pipe of ``--answer=KEY_FD:ANSWER_FD`` (``answer.py``: the job's
                             key is read from KEY_FD, which is closed, before anything else runs)

Either takes ``allow-cpu-fallback`` last: a requested device that is not there
then runs the jobs on the cpu (and says so) instead of refusing them.
``serve`` also takes ``--preload=MOD,MOD`` (imported once before any fork,
``preload.py``) and ``--lanes=R:W,R:W`` (file descriptors of one channel per
lane: the worker forks a lane per channel, and each lane runs one job at a
time, so that jobs run side by side; ``lanes.py``).

Both first import torch and the backend module; a failed import answers
``{"event": "import_error", ...}`` (serve) or exits 3 (once).
"""

import json
import os
import sys

from . import AGENT_PROTOCOL, ALLOW_CPU_FALLBACK, backend, preload, reap
from . import answer as answer_mod
from .ops import Context
from .protocol import Channel

EXIT_IMPORT_FAILED = 3


def _context(backend_module, device, allow_cpu_fallback=False):
    torch, backend_mod = backend.import_stack(backend_module)
    dev = device if device not in ("", "auto") else None
    if dev is None and backend_mod is not None:
        # only the backend's own device is looked at here: asking cuda would initialise it
        dev = backend.backend_device(torch, backend_module)
    initialized = backend.device_initialized(torch, dev) if dev else None
    return Context(torch, backend_mod, backend_module, device, initialized, allow_cpu_fallback)


def _preload(ctx, modules):
    """Import ``modules`` before any fork; the context then knows what to replay in a job."""
    dev = ctx.requested_device if ctx.requested_device not in ("", "auto") else None
    if dev is None and ctx.backend_mod is not None:
        dev = backend.backend_device(ctx.torch, ctx.backend_module)
    report, replay = preload.preload(ctx.torch, modules, dev or "")
    ctx.replay = replay
    if dev and ctx.initialized_at_import is not None:  # the state the jobs are forked in
        ctx.initialized_at_import = backend.device_initialized(ctx.torch, dev)
    return report


def serve(backend_module, device, allow_cpu_fallback=False, modules=(), lanes=()):
    from . import lanes as lanes_mod
    from . import worker

    chan = Channel.from_stdio()
    try:
        ctx = _context(backend_module, device, allow_cpu_fallback)
    except backend.ImportFailure as exc:
        chan.send(
            {
                "event": "import_error",
                "module": exc.module,
                "detail": exc.detail,
                "python": sys.executable,
            }
        )
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
    hello = {
        "event": "ready",
        "pid": os.getpid(),
        "protocol": AGENT_PROTOCOL,
        "python": sys.executable,
        "torch_version": str(ctx.torch.__version__),
        "process_tracking": tracking,
        "preload": report,
    }
    if any(entry.get("initialised") for entry in report):
        chan.send(
            hello
        )  # the controller starts a worker without that import; no job is forked here
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


def once(backend_module, device, job_json, allow_cpu_fallback=False, answer=""):
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


def _options(argv):
    """(positional arguments, {option: value}) of ``--name=value`` arguments."""
    plain, options = [], {}
    for arg in argv:
        if arg.startswith("--") and "=" in arg:
            name, value = arg[2:].split("=", 1)
            options[name] = value
        else:
            plain.append(arg)
    return plain, options


def _lane_fds(text):
    out = []
    for pair in filter(None, text.split(",")):
        read_fd, write_fd = pair.split(":")
        out.append((int(read_fd), int(write_fd)))
    return out


def main(argv=None):
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
