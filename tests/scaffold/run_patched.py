"""Run test files as ``python FILE -v`` does, each after a patch that breaks torch (a test helper).

Usage: python run_patched.py JOBS.json RESULTS.json

Each job is ``{"file": path, "patch": python code}``. The parent imports torch
(and what the generated tests import) once, then forks a child per job: the
child runs the patch (which may replace a torch API with a wrong
implementation), then the file via ``runpy.run_path(file, run_name="__main__")``
with ``sys.argv = [file, "-v"]``. The child's exit status and the last line of
the test runner's summary come back per job.
"""

import importlib
import json
import os
import runpy
import signal
import sys
import tempfile

# imported once, before the forks: torch, dynamo (torch's TestCase loads it on the first test), op_db
for _name in ("torch", "torch._dynamo", "torch.testing._internal.common_methods_invocations"):
    importlib.import_module(_name)


def run_child(job, log_path):
    signal.alarm(120)  # a test that hangs (a break can make one wait forever) ends its own run
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    sys.argv = [job["file"], "-v"]
    sys.path[0] = os.path.dirname(os.path.abspath(job["file"]))
    try:
        exec(compile(job.get("patch") or "", "<patch>", "exec"), {"torch": sys.modules["torch"]})
        runpy.run_path(job["file"], run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))


def summary(text):
    for line in reversed(text.splitlines()):
        if line.startswith(("OK", "FAILED")):
            return line.strip()
    return ""


def main():
    jobs = json.load(open(sys.argv[1]))
    results = []
    folder = tempfile.mkdtemp(prefix="run-patched-")
    for n, job in enumerate(jobs):
        log = os.path.join(folder, f"{n:03d}.log")
        pid = os.fork()
        if pid == 0:
            run_child(job, log)
        _, status = os.waitpid(pid, 0)
        text = open(log, encoding="utf-8", errors="replace").read()
        results.append(
            {
                "file": job["file"],
                "exit_code": os.waitstatus_to_exitcode(status),
                "summary": summary(text),
                "output": text[-4000:],
            }
        )
    json.dump(results, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
