"""Run test files as ``python FILE -v`` does, each in a fork of one interpreter that imported torch.

Usage: python scaffold_runner.py JOBS.json RESULTS.json

A job is ``{"file": path, "standin": resolution or null}``; with a resolution the
child first replaces that API everywhere it is reached (``torchparity.agent.facts.standin``)
by a stand-in returning a sentinel. Per job: exit code, the runner's summary line,
the first failure line, and where the API was replaced.
"""

import importlib
import json
import os
import re
import runpy
import shutil
import sys
import tempfile

for _name in ("torch", "torch._dynamo", "torch.testing._internal.common_utils"):
    importlib.import_module(_name)

from torchparity.agent.facts import standin  # noqa: E402


def run_child(job, log_path, info_path, work):
    import signal

    signal.alarm(300)  # a test that hangs ends its own run
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    sys.argv = [job["file"], "-v"]
    sys.path[0] = os.path.dirname(os.path.abspath(job["file"]))
    os.makedirs(work)
    os.chdir(work)
    code = 1
    try:
        if os.environ.get(
            "BENCH_BACKEND_MODULE"
        ):  # the backend, imported in the child (never before a fork)
            importlib.import_module(os.environ["BENCH_BACKEND_MODULE"])
        if job.get("standin"):
            info = standin.install(job["standin"])
            with open(info_path, "w") as fh:
                json.dump(info, fh)
        runpy.run_path(job["file"], run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))


def summary(text):
    for line in reversed(text.splitlines()):
        if line.startswith(("OK", "FAILED")):
            return line.strip()
    return ""


def first_failure(text):
    m = re.search(r"^(\w*(Error|Exception)\b.*)$", text, re.M)
    return m.group(1)[:200] if m else ""


def main():
    jobs = json.load(open(sys.argv[1]))
    results = []
    folder = tempfile.mkdtemp(prefix="bench-scaffold-run-")
    for n, job in enumerate(jobs):
        log = os.path.join(folder, f"{n:04d}.log")
        info_path = os.path.join(folder, f"{n:04d}.json")
        pid = os.fork()
        if pid == 0:
            run_child(job, log, info_path, os.path.join(folder, f"{n:04d}.cwd"))
        _, status = os.waitpid(pid, 0)
        text = open(log, encoding="utf-8", errors="replace").read()
        info = json.load(open(info_path)) if os.path.exists(info_path) else {}
        results.append(
            {
                "file": job["file"],
                "exit_code": os.waitstatus_to_exitcode(status),
                "summary": summary(text),
                "first_failure": first_failure(text),
                "replaced": info.get("replaced", []),
                "standin_problem": info.get("problem", ""),
            }
        )
    json.dump(results, open(sys.argv[2], "w"))
    shutil.rmtree(folder, ignore_errors=True)  # the logs and the tests' working folders


if __name__ == "__main__":
    main()
