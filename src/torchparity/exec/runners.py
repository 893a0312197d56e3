"""Where an agent job runs: a warm worker (fork per job) or a fresh interpreter per job.

Both runners take the same ``Job`` and give the same ``JobResult``; the
collector does not care which ran, and the evidence log says which did.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..agent import ALLOW_CPU_FALLBACK, reap
from ..config import CONFIG_FILENAME
from ..errors import EnvironmentBroken, UsageError
from . import interrupt
from .ship import command_line, isolated_env, launcher

#: seconds allowed for interpreter start + import torch (+ backend) before giving up
STARTUP_TIMEOUT = 300.0
#: extra seconds the controller waits beyond a job's own timeout for the worker's answer
ANSWER_GRACE = 30.0
#: longest job description put on a fresh interpreter's command line (Linux caps one argument at 128 KiB)
MAX_INLINE_JOB = 16384

#: how a fresh interpreter's descendants are tracked, as the evidence log states it
FRESH_TRACKING = (
    "each step's process group, and at a timeout or an interrupt its descendants found through /proc "
    "(also those that left the group with setsid); the agent's own runs are child subreapers that kill "
    "what a job left running") if reap.have_proc() else reap.TRACKING_GROUP


@dataclass
class Job:
    op: str
    args: dict[str, Any]
    output: Path
    timeout: float | None = None
    cwd: str | None = None
    #: for run_file in fresh mode: run the file literally (python FILE ARGS), no agent
    literal: list[str] | None = None


@dataclass
class JobResult:
    op: str
    status: str  # OK | FAIL | TIMEOUT | CRASH | WORKER_DIED | ERROR
    exit_code: int | None
    signal: int | None
    duration: float
    output: str
    result: dict[str, Any] = field(default_factory=dict)
    command: str = ""
    how: str = ""

    @property
    def signal_name(self) -> str:
        if self.signal is None:
            return ""
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return str(self.signal)


#: the longest timeout a step may be given (a day): beyond it a number is a typo, not a plan
MAX_TIMEOUT = 86400.0


def check_timeout(seconds: float | None, flag: str = "--timeout") -> float | None:
    """``seconds`` if it is a usable step timeout (positive, finite, at most ``MAX_TIMEOUT``); bad input else."""
    if seconds is None:
        return None
    if not (0 < seconds <= MAX_TIMEOUT):  # also refuses NaN
        raise UsageError(f"{flag} {seconds:g}: give the seconds a step may take, more than 0 and at most "
                         f"{MAX_TIMEOUT:g} (a day), e.g. {flag} 900")
    return seconds


class Runner(Protocol):
    mode: str
    python: str

    def run(self, job: Job) -> JobResult: ...

    def close(self) -> None: ...


def _check_python(python: str) -> None:
    if os.sep in python or python.startswith("."):
        p = Path(python)
        if not p.exists():
            raise UsageError(
                f"python interpreter not found: {python}; check --python, or the environment's "
                "python in torchparity.toml"
            )
        if not os.access(p, os.X_OK):
            raise UsageError(f"{python} is not executable; point --python (or the env's python) at an interpreter")
    else:
        import shutil

        if shutil.which(python) is None:
            raise UsageError(f"python interpreter {python!r} is not on PATH; give its full path (--python or the env's python)")


def _read_output(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _LineReader:
    """Read JSON lines from a pipe with a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""

    def readline(self, timeout: float | None) -> bytes | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                raise TimeoutError
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line


def _import_failed(python: str, module: str, detail: str) -> str:
    """One line for an environment that cannot import torch or the configured backend module."""
    fix = f"install {module} in that environment or choose another --python"
    if module != "torch":
        fix += f' (or run without it: backend_module = "" in {CONFIG_FILENAME}, where the preset asks for it)'
    return f"{python}: import {module} failed ({detail}); {fix}"


def _agent_args(backend_module: str, device: str, allow_cpu_fallback: bool) -> list[str]:
    return [backend_module or "", device] + ([ALLOW_CPU_FALLBACK] if allow_cpu_fallback else [])


class WarmWorker:
    """One interpreter per environment; torch imported once; a forked child per job."""

    mode = "warm"

    def __init__(self, python: str, backend_module: str, device: str, log_dir: Path,
                 allow_cpu_fallback: bool = False, environ: dict[str, str] | None = None) -> None:
        _check_python(python)
        self.python = python
        self.backend_module = backend_module
        self.device = device
        self.allow_cpu_fallback = allow_cpu_fallback
        self.log_dir = log_dir
        #: variables set on top of the isolated environment (an emulated backend's PYTHONPATH)
        self.environ = dict(environ or {})
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self.startup_seconds = 0.0
        self._reader: _LineReader | None = None
        self._counter = 0
        self._lock = threading.Lock()
        #: how the processes a test starts are found and killed (the worker says, at start)
        self.process_tracking = ""

    @property
    def argv(self) -> list[str]:
        return [self.python, *launcher(), "serve", *_agent_args(self.backend_module, self.device,
                                                                 self.allow_cpu_fallback)]

    def start(self) -> None:
        interrupt.check()  # after a signal nothing new starts
        self.log_dir.mkdir(parents=True, exist_ok=True)
        stderr = open(self.log_dir / "worker-stderr.log", "ab")
        started = time.monotonic()
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                env=isolated_env(self.environ), start_new_session=True,
            )
        except OSError as exc:
            raise EnvironmentBroken(f"cannot start {self.python}: {exc}") from exc
        finally:
            stderr.close()
        interrupt.register(self)
        assert self.proc.stdout is not None
        self._reader = _LineReader(self.proc.stdout.fileno())
        hello = self._hello(time.monotonic() + STARTUP_TIMEOUT)
        if hello.get("event") == "import_error":
            self.close()
            raise EnvironmentBroken(_import_failed(self.python, hello["module"], hello["detail"]))
        self.worker_pid = int(hello["pid"])
        self.process_tracking = str(hello.get("process_tracking") or "")
        self.startup_seconds = time.monotonic() - started

    def _hello(self, deadline: float) -> dict[str, Any]:
        """The agent's first answer. Lines printed before it (a sitecustomize, a .pth) are skipped."""
        assert self._reader is not None
        junk: list[str] = []
        while True:
            try:
                line = self._reader.readline(max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                self.close()
                raise EnvironmentBroken(
                    f"{self.python} did not finish importing torch within {STARTUP_TIMEOUT:.0f}s"
                ) from None
            if line is None:
                err = _read_output(self.log_dir / "worker-stderr.log").strip().splitlines()
                self.close()
                last = err[-1] if err else (junk[-1] if junk else "no output")
                raise EnvironmentBroken(f"{self.python} exited while starting the agent: {last}")
            try:
                hello = json.loads(line)
            except ValueError:
                hello = None
            if isinstance(hello, dict) and "event" in hello:
                return hello
            junk.append(line.decode("utf-8", "replace"))

    def run(self, job: Job) -> JobResult:
        with self._lock:
            if self.proc is None or self.proc.poll() is not None:
                self.start()
            assert self.proc is not None and self.proc.stdin is not None and self._reader is not None
            self._counter += 1
            request = {
                "id": self._counter, "op": job.op, "args": dict(job.args, cwd=job.cwd),
                "output": str(job.output), "timeout": job.timeout,
            }
            started = time.monotonic()
            try:
                self.proc.stdin.write((json.dumps(request) + "\n").encode())
                self.proc.stdin.flush()
                wait = None if job.timeout is None else job.timeout + ANSWER_GRACE
                line = self._reader.readline(wait)
            except (BrokenPipeError, TimeoutError, OSError):
                line = None
            if line is None:
                return self._worker_died(job, started)
            answer = json.loads(line)
        how = (
            f"forked child (pid {answer.get('pid')}) of warm worker pid {self.worker_pid} "
            "(torch imported once in the worker)"
        )
        if job.op == "run_file":
            how += f"; the file ran as __main__ with argv {[job.args['path'], *job.args.get('argv', [])]}"
        return JobResult(
            op=job.op, status=answer.get("status", "ERROR"), exit_code=answer.get("exit_code"),
            signal=answer.get("signal"), duration=float(answer.get("duration", 0.0)),
            output=_read_output(job.output), result=answer.get("result") or {},
            command=command_line(job.literal, self.environ) if job.literal else "", how=how,
        )

    def _worker_died(self, job: Job, started: float) -> JobResult:
        code = None
        if self.proc is not None:
            try:  # EOF comes before the exit status: give the kernel a moment to report it
                code = self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
        self.close()
        self.restarts += 1
        return JobResult(
            op=job.op, status="WORKER_DIED", exit_code=code, signal=(-code if code and code < 0 else None),
            duration=time.monotonic() - started, output=_read_output(job.output),
            how=f"the warm worker died during this job (exit {code}); it is restarted for the next job",
        )

    def close(self) -> None:
        interrupt.unregister(self)
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.write(b'{"op": "shutdown"}\n')
                proc.stdin.flush()
                proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            try:  # a worker stuck in a job: SIGTERM makes it take the job's group down first
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        _kill_group(proc.pid)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def kill(self) -> None:
        """Stop now (Ctrl-C): the worker, the job it runs and everything below them."""
        self.kill_now()

    def kill_now(self) -> None:
        """SIGKILL the worker's whole process tree (from a signal handler: no waiting)."""
        proc = self.proc
        if proc is not None:
            reap.kill_tree(proc.pid)


class FreshRunner:
    """A new interpreter for every job, as contributors run it by hand today."""

    mode = "fresh"

    def __init__(self, python: str, backend_module: str, device: str, log_dir: Path,
                 allow_cpu_fallback: bool = False, environ: dict[str, str] | None = None) -> None:
        _check_python(python)
        self.python = python
        self.backend_module = backend_module
        self.device = device
        self.allow_cpu_fallback = allow_cpu_fallback
        self.log_dir = log_dir
        self.environ = dict(environ or {})
        self._live: set[int] = set()
        self._lock = threading.Lock()
        self.process_tracking = FRESH_TRACKING
        interrupt.register(self)

    def run(self, job: Job) -> JobResult:
        interrupt.check()  # after a signal nothing new starts
        job.output.parent.mkdir(parents=True, exist_ok=True)
        if job.literal is not None:
            argv = list(job.literal)
        else:
            payload = json.dumps({"op": job.op, "args": dict(job.args, cwd=job.cwd), "output": str(job.output)})
            if len(payload) > MAX_INLINE_JOB:  # beyond what one argument may carry: pass a file
                job_file = Path(str(job.output) + ".job.json")
                job_file.write_text(payload)
                payload = "@" + str(job_file)
            backend, device, *flag = _agent_args(self.backend_module, self.device, self.allow_cpu_fallback)
            argv = [self.python, *launcher(), "once", backend, device, payload, *flag]
        env = isolated_env(self.environ)
        started = time.monotonic()
        with open(job.output, "wb") as out:
            try:
                proc = subprocess.Popen(
                    argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    env=env, cwd=job.cwd, start_new_session=True,
                )
            except OSError as exc:
                raise EnvironmentBroken(f"cannot start {self.python}: {exc}") from exc
            with self._lock:
                self._live.add(proc.pid)
            timed_out = False
            try:
                proc.wait(timeout=job.timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                reap.kill_tree(proc.pid)  # its group and every descendant, in whatever group or session
                proc.wait()
            finally:
                _kill_group(proc.pid)
                with self._lock:
                    self._live.discard(proc.pid)
        duration = time.monotonic() - started
        result: dict[str, Any] = {}
        result_path = Path(str(job.output) + ".result.json")
        if result_path.exists():
            result = json.loads(result_path.read_text())
            result_path.unlink()
        rc = proc.returncode
        if timed_out:
            status, code, sig = "TIMEOUT", None, signal.SIGKILL.value
        elif rc < 0:
            status, code, sig = "CRASH", None, -rc
        else:
            status, code, sig = ("OK" if rc == 0 else "FAIL"), rc, None
        if "import_error" in result:
            err = result["import_error"]
            raise EnvironmentBroken(_import_failed(self.python, err["module"], err["detail"]))
        return JobResult(
            op=job.op, status=status, exit_code=code, signal=sig, duration=duration,
            output=_read_output(job.output), result=result, command=command_line(argv, self.environ),
            how="a fresh interpreter for this step (the literal command above)",
        )

    def close(self) -> None:
        self.kill()
        interrupt.unregister(self)

    def kill(self) -> None:
        self.kill_now()

    def kill_now(self) -> None:
        """SIGKILL every running step's process tree (from a signal handler: no waiting)."""
        for pid in tuple(self._live):  # no lock: the main thread may hold it when the signal comes
            reap.kill_tree(pid)


def make_runner(mode: str, python: str, backend_module: str, device: str, log_dir: Path,
                allow_cpu_fallback: bool = False, environ: dict[str, str] | None = None) -> Runner:
    """A runner; ``allow_cpu_fallback``: a requested device that is absent runs jobs on the cpu
    (saying so) instead of refusing them as a broken environment."""
    if mode == "warm" and not hasattr(os, "fork"):
        print("torchparity: fork is unavailable on this platform; using --fresh", file=sys.stderr)
        mode = "fresh"
    cls = WarmWorker if mode == "warm" else FreshRunner
    return cls(python, backend_module, device, log_dir, allow_cpu_fallback, environ)
