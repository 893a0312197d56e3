"""Agent entry point.

``serve BACKEND DEVICE``     warm worker: JSON-line requests on stdin, answers on stdout
``once BACKEND DEVICE JOB``  fresh mode: one job (JSON) in this interpreter, then exit

Either takes ``allow-cpu-fallback`` last: a requested device that is not there
then runs the jobs on the cpu (and says so) instead of refusing them.

Both first import torch and the backend module; a failed import answers
``{"event": "import_error", ...}`` (serve) or exits 3 (once).
"""

import json
import os
import sys

from . import AGENT_PROTOCOL, ALLOW_CPU_FALLBACK, backend, reap
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


def serve(backend_module, device, allow_cpu_fallback=False):
    from . import worker

    chan = Channel.from_stdio()
    try:
        ctx = _context(backend_module, device, allow_cpu_fallback)
    except backend.ImportFailure as exc:
        chan.send({"event": "import_error", "module": exc.module, "detail": exc.detail,
                   "python": sys.executable})
        return EXIT_IMPORT_FAILED
    worker.stop_on_sigterm()
    subreaper = reap.become_subreaper()
    tracking = reap.TRACKING_SUBREAPER if subreaper else (
        reap.TRACKING_PROC if reap.have_proc() else reap.TRACKING_GROUP)
    chan.send({"event": "ready", "pid": os.getpid(), "protocol": AGENT_PROTOCOL,
               "python": sys.executable, "torch_version": str(ctx.torch.__version__),
               "process_tracking": tracking})
    channel_fds = (chan._in.fileno(), chan._out.fileno())
    while True:
        job = chan.recv()
        if job is None or job.get("op") == "shutdown":
            return 0
        try:
            answer = worker.run_forked(ctx, job, close_fds=channel_fds)
        except Exception as exc:  # the worker itself must keep answering
            answer = {"id": job.get("id"), "op": job.get("op"), "status": "ERROR",
                      "error": "%s: %s" % (type(exc).__name__, exc)}
        chan.send(answer)


def once(backend_module, device, job_json, allow_cpu_fallback=False):
    from . import worker

    if job_json.startswith("@"):  # a large job comes in a file
        with open(job_json[1:]) as fh:
            job_json = fh.read()
    job = json.loads(job_json)
    try:
        ctx = _context(backend_module, device, allow_cpu_fallback)
    except backend.ImportFailure as exc:
        sys.stderr.write("torchparity-agent: %s\n" % exc)
        result_path = job["output"] + ".result.json"
        with open(result_path, "w") as fh:
            json.dump({"import_error": {"module": exc.module, "detail": exc.detail}}, fh)
        return EXIT_IMPORT_FAILED
    reap.become_subreaper()
    try:
        return worker.execute(ctx, job)
    finally:  # what the job started and left running goes with it
        reap.kill_and_reap_orphans()


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    fallback = argv[-1] == ALLOW_CPU_FALLBACK
    if fallback:
        argv = argv[:-1]
    if len(argv) >= 3 and argv[0] == "serve":
        return serve(argv[1], argv[2], fallback)
    if len(argv) >= 4 and argv[0] == "once":
        return once(argv[1], argv[2], argv[3], fallback)
    sys.stderr.write("usage: agent serve BACKEND DEVICE [%s] | once BACKEND DEVICE JOB_JSON [%s]\n"
                     % (ALLOW_CPU_FALLBACK, ALLOW_CPU_FALLBACK))
    return 2
