"""Where an agent job runs: a warm worker (fork per job) or a fresh interpreter per job.

Both runners take the same ``Job`` and give the same ``JobResult``; the
collector does not care which ran, and the evidence log says which did.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..agent import ALLOW_CPU_FALLBACK, reap
from ..config import CONFIG_FILENAME
from ..errors import EnvironmentBroken, UsageError
from . import interrupt
from .answer_pipe import AnswerPipe
from .capture import DRAIN_SECONDS, OutputCapture, read_text, write_failed
from .ship import command_line, isolated_env, launcher

#: seconds allowed for interpreter start + import torch (+ backend) before giving up (a step's
#: timeout, when it is shorter, bounds the wait instead)
STARTUP_TIMEOUT = 300.0
#: extra seconds the controller waits beyond a job's own timeout for the worker's answer
ANSWER_GRACE = 30.0
#: longest job description put on a fresh interpreter's command line (Linux caps one argument at 128 KiB)
MAX_INLINE_JOB = 16384

#: how a fresh interpreter's descendants are tracked, as the evidence log states it
FRESH_TRACKING = (
    (
        "each step's process group, and at a timeout or an interrupt its descendants found through /proc "
        "(also those that left the group with setsid); the agent's own runs are child subreapers that kill "
        "what a job left running, and the literal command runs as the only child of a supervisor that is "
        "its child subreaper (agent/reap.py), so that a double-forked grandchild is found and killed too"
    )
    if reap.have_proc()
    else reap.TRACKING_GROUP
)

#: the supervisor of a literal command (``python -I -S reap.py -- COMMAND``): stdlib only, run by this
#: interpreter, so that nothing of the environment under test (a sitecustomize) runs in it
SUPERVISOR = str(Path(reap.__file__).resolve())


@dataclass
class Job:
    op: str
    args: dict[str, Any]
    output: Path
    timeout: float | None = None
    cwd: str | None = None
    #: for run_file in fresh mode: run the file literally (python FILE ARGS), no agent
    literal: list[str] | None = None
    #: bytes of output kept (head and tail, ``exec/capture.py``); None: ``capture.MAX_OUTPUT``; 0: all
    max_output: int | None = None
    #: variables the literal command runs without (a backend's disabled-list variable), as it says
    unset: tuple[str, ...] = ()


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


#: how a file's chosen tests ran by id, per entry (``upstream.find.entry_kind``)
_BY_ID = {
    "unittest": "the file ran as __main__ with only these test ids on its command line",
    "pytest": "pytest ran only these node ids",
    "module": "python -m unittest ran only these tests of the file's module, from its folder",
}

#: the longest timeout a step may be given (a day): beyond it a number is a typo, not a plan
MAX_TIMEOUT = 86400.0


def check_timeout(seconds: float | None, flag: str = "--timeout") -> float | None:
    """``seconds`` if it is a usable step timeout (positive, finite, at most ``MAX_TIMEOUT``); bad input else."""
    if seconds is None:
        return None
    if not (0 < seconds <= MAX_TIMEOUT):  # also refuses NaN
        raise UsageError(
            f"{flag} {seconds:g}: give the seconds a step may take, more than 0 and at most "
            f"{MAX_TIMEOUT:g} (a day), e.g. {flag} 900"
        )
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
            raise UsageError(
                f"{python} is not executable; point --python (or the env's python) at an interpreter"
            )
    else:
        import shutil

        if shutil.which(python) is None:
            raise UsageError(
                f"python interpreter {python!r} is not on PATH; give its full path (--python or the env's python)"
            )


def _read_output(path: Path, max_output: int | None = None) -> str:
    """A step's kept output (``exec/capture.py``): never more than its cap is read into memory."""
    return read_text(path, max_output)


#: free bytes below which the folder of a job that gave no answer counts as full
FULL_BELOW = 1024 * 1024


def _check_room(output: Path, answered: bool) -> None:
    """A job that gave no answer while the folder of its ``output`` (TMPDIR) has no room left: the disk is
    full (a broken environment naming the path), not the test failing. (A full disk under the output
    itself is the capture's ``check``.)"""
    if answered:
        return
    try:
        fs = os.statvfs(output.parent)
    except OSError:
        return
    if fs.f_bavail * fs.f_frsize < FULL_BELOW or (fs.f_files and not fs.f_favail):
        import errno

        raise write_failed(output, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))


#: where a job's answer was once written (``<output>.result.json``): the agent answers over a pipe now, so a
#: file there was written by the test (it guessed the path from its output, argv or cwd), and is not read
OLD_ANSWER_SUFFIXES = (".result.json", ".result.json.tmp")
#: jobs whose results are read key by key (a verdict, outcomes): what went wrong with their answer is kept
#: in the result (``answer_problems``) even when no answer came; other jobs' results stay empty then
KEEP_ANSWER_PROBLEMS = ("run_file", "upstream_run", "isolation")


def _stray_answer_files(outputs: Sequence[Path]) -> list[str]:
    """A sentence for each file at the place answers were once written (each is removed, never read)."""
    problems: list[str] = []
    for output in dict.fromkeys(outputs):
        for suffix in OLD_ANSWER_SUFFIXES:
            path = Path(str(output) + suffix)
            if not (path.exists() or path.is_symlink()):
                continue
            problems.append(
                f"{path.name} was written during this step, but it is not the agent's answer (the "
                "agent answers over a pipe it holds, never through a file): something in the test "
                "wrote it; ignored"
            )
            try:
                path.unlink()
            except OSError:
                pass
    return problems


def _with_problems(op: str, result: dict[str, Any], problems: Sequence[str]) -> dict[str, Any]:
    """``result`` with what went wrong with its answer (``answer_problems``: never a pass)."""
    if not problems or not (result or op in KEEP_ANSWER_PROBLEMS):
        return result
    return dict(result, answer_problems=[*result.get("answer_problems", []), *problems])


def _answer_line(
    reader: _LineReader, wait: float | None, token: str
) -> tuple[bytes | None, list[str]]:
    """The worker's answer to the request carrying ``token`` (None: none came in time, or the channel
    ended), and a sentence for each line before it that is not that answer: a line something else wrote
    into the channel (a job's descendant through ``/proc/<pid>/fd``) is never taken for the job's answer."""
    deadline = None if wait is None else time.monotonic() + wait
    strays: list[str] = []
    while True:
        line = reader.readline(None if deadline is None else max(0.0, deadline - time.monotonic()))
        if line is None:
            return None, strays
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and answer.get("token") == token:
            return line, strays
        strays.append(
            f"the worker's channel carried a line ({len(line)} bytes) that is not its answer to this "
            "job (no token, or another job's): something other than the worker wrote it; ignored"
        )


def _fifo_capture(job: Job) -> OutputCapture | None:
    """The capture of a warm job's output (None where its folder holds no named pipe)."""
    try:
        job.output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_failed(job.output.parent, exc) from exc
    return OutputCapture.fifo_for(job.output, job.max_output)


def _finish(capture: OutputCapture | None) -> None:
    """The job ended: the capture writes what it kept (at once when stopping on a signal)."""
    if capture is not None:
        capture.finish(0.0 if interrupt.stopping() else DRAIN_SECONDS)


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


def _import_failed(
    python: str, module: str, detail: str, environ: dict[str, str] | None = None
) -> str:
    """One line for an environment that cannot import torch or the configured backend module."""
    emulated = "emulated" in (environ or {}).get("PYTHONPATH", "")
    if emulated and ("_acc" in detail or "backend extension" in detail):
        # torch itself imported; torchparity's emulated backend could not load into it
        return (
            f"{python}: the emulated backend cannot load into this torch ({detail}); it needs torch's "
            "Python PrivateUse1 hooks (torch._C._acc; tested with torch 2.13.0): choose an environment "
            "with a newer torch, or run on the real backend without --emulate"
        )
    fix = f"install {module} in that environment or choose another --python"
    if module != "torch":
        fix += f' (or run without it: backend_module = "" in {CONFIG_FILENAME}, where the preset asks for it)'
    return f"{python}: import {module} failed ({detail}); {fix}"


def _agent_args(backend_module: str, device: str, allow_cpu_fallback: bool) -> list[str]:
    return [backend_module or "", device] + ([ALLOW_CPU_FALLBACK] if allow_cpu_fallback else [])


#: what a warm worker imports before it forks, unless told otherwise: torch's test framework and the
#: compiler its ``TestCase.run`` imports in every test (the agent's ``preload.py`` says when it may)
DEFAULT_PRELOAD = ("torch.testing._internal.common_utils", "torch._dynamo")


def default_lanes() -> int:
    """Lanes per warm worker when the owner does not say: one per core, at most 4."""
    return max(1, min(4, os.cpu_count() or 1))


@dataclass
class _Lane:
    """One channel to a lane of the worker (the worker's own stdin/stdout when it has one lane)."""

    pid: int
    write: Any
    reader: _LineReader
    alive: bool = True


class WarmWorker:
    """One interpreter per environment; torch (and the preloads) imported once; a forked child per job.

    ``lanes`` > 1: the worker forks that many lanes (``agent/lanes.py``) and up to ``lanes`` jobs
    run at once, each on a lane of its own. ``warm()`` starts the interpreter in the background, so
    that its imports overlap with whatever the owner does before the first job.
    """

    mode = "warm"

    def __init__(
        self,
        python: str,
        backend_module: str,
        device: str,
        log_dir: Path,
        allow_cpu_fallback: bool = False,
        environ: dict[str, str] | None = None,
        *,
        preload: Sequence[str] | None = None,
        lanes: int = 1,
    ) -> None:
        _check_python(python)
        self.python = python
        self.backend_module = backend_module
        self.device = device
        self.allow_cpu_fallback = allow_cpu_fallback
        self.log_dir = log_dir
        #: variables set on top of the isolated environment (an emulated backend's PYTHONPATH)
        self.environ = dict(environ or {})
        self.preload = tuple(DEFAULT_PRELOAD if preload is None else preload)
        self.lanes = max(1, int(lanes))
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self.startup_seconds = 0.0
        self.worker_pid = 0
        self._reader: _LineReader | None = None
        self._counter = 0
        self._lock = threading.Condition()
        self._control = (
            threading.Lock()
        )  # the worker's own channel (lanes > 1: questions about lanes)
        self._idle: list[_Lane] = []
        self._all: list[_Lane] = []
        self._starting: threading.Thread | None = None
        self._start_error: BaseException | None = None
        #: the step timeout bounding the start under way (None: ``STARTUP_TIMEOUT``), and whether a step
        #: gave up waiting for it (``_start_overdue``)
        self._start_within: float | None = None
        self._overdue = False
        #: how the processes a test starts are found and killed (the worker says, at start)
        self.process_tracking = ""
        #: what the worker imported before forking, as it reported it (module, status, seconds, why)
        self.preloaded: list[dict[str, Any]] = []
        #: preloads left out because importing them initialised the device (the fork would break)
        self.preload_dropped: list[str] = []

    @property
    def argv(self) -> list[str]:
        return [
            self.python,
            *launcher(),
            "serve",
            *_agent_args(self.backend_module, self.device, self.allow_cpu_fallback),
        ]

    def _argv(self, lane_fds: list[tuple[int, int]]) -> list[str]:
        extra = []
        if self.preload:
            extra.append("--preload=" + ",".join(self.preload))
        if lane_fds:
            extra.append("--lanes=" + ",".join(f"{r}:{w}" for r, w in lane_fds))
        return [*self.argv, *extra]

    # -- starting ------------------------------------------------------------------------------
    def warm(self) -> None:
        """Start the worker in the background (its imports overlap with the owner's own work)."""
        with self._lock:
            if self.proc is not None or self._starting is not None:
                return
            thread = threading.Thread(
                target=self._start_in_background, name="warm-worker", daemon=True
            )
            self._starting = thread
        thread.start()

    def _start_in_background(self) -> None:
        with self._lock:
            try:
                if self.proc is None:
                    self._start_locked()
            except BaseException as exc:  # given to the first job that asks
                self._start_error = exc
            finally:
                self._starting = None
                self._lock.notify_all()

    def start(self) -> None:
        with self._lock:
            self._start_locked()

    def _start_locked(self, within: float | None = None) -> None:
        """Start the worker; ``within``: a step's timeout, which bounds the wait when shorter than
        ``STARTUP_TIMEOUT``."""
        while True:
            hello = self._launch(within)
            bad = [e["module"] for e in self.preloaded if e.get("initialised")]
            if not bad:
                break
            # that import initialised the device: a child forked now could not use it
            self._close_locked()
            self.preload_dropped += bad
            self.preload = tuple(m for m in self.preload if m not in bad)
        self.worker_pid = int(hello["pid"])
        self.process_tracking = str(hello.get("process_tracking") or "")

    def _launch(self, within: float | None = None) -> dict[str, Any]:
        interrupt.check()  # after a signal nothing new starts
        self.log_dir.mkdir(parents=True, exist_ok=True)
        stderr = open(self.log_dir / "worker-stderr.log", "ab")
        started = time.monotonic()
        ours: list[int] = []
        theirs: list[tuple[int, int]] = []
        if self.lanes > 1:
            for _ in range(self.lanes):
                req_r, req_w = os.pipe()
                ans_r, ans_w = os.pipe()
                theirs.append((req_r, ans_w))
                ours += [req_w, ans_r]
        try:
            self.proc = subprocess.Popen(
                self._argv(theirs),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=isolated_env(self.environ),
                start_new_session=True,
                pass_fds=[fd for pair in theirs for fd in pair],
            )
        except OSError as exc:
            for fd in ours:
                os.close(fd)
            raise EnvironmentBroken(f"cannot start {self.python}: {exc}") from exc
        finally:
            stderr.close()
            for pair in theirs:
                for fd in pair:
                    os.close(fd)
        interrupt.register(self)
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self._reader = _LineReader(self.proc.stdout.fileno())
        deadline = time.monotonic() + (
            STARTUP_TIMEOUT if within is None else min(STARTUP_TIMEOUT, within)
        )
        if self._overdue:  # the step that waited for this start gave up before it began
            self._close_locked()
            raise EnvironmentBroken(self._not_started())
        self._start_within = within
        try:
            hello = self._hello(self._reader, deadline)
        except BaseException:
            for fd in ours:
                os.close(fd)
            raise
        if hello.get("event") == "import_error":
            for fd in ours:
                os.close(fd)
            self._close_locked()
            raise EnvironmentBroken(
                _import_failed(self.python, hello["module"], hello["detail"], self.environ)
            )
        self.preloaded = [dict(e) for e in hello.get("preload") or []]
        if any(e.get("initialised") for e in self.preloaded):
            for fd in ours:
                os.close(fd)
            return hello
        lanes: list[_Lane] = []
        if self.lanes > 1:
            for i in range(self.lanes):
                write = os.fdopen(ours[2 * i], "wb")
                reader = _LineReader(ours[2 * i + 1])
                lanes.append(_Lane(0, write, reader))
            for lane in lanes:
                ready = self._hello(lane.reader, deadline)
                lane.pid = int(ready.get("pid") or 0)
        else:
            lanes.append(_Lane(int(hello["pid"]), self.proc.stdin, self._reader))
        self._all, self._idle = list(lanes), list(lanes)
        self.startup_seconds = time.monotonic() - started
        return hello

    def _hello(self, reader: _LineReader, deadline: float) -> dict[str, Any]:
        """The agent's first answer. Lines printed before it (a sitecustomize, a .pth) are skipped."""
        junk: list[str] = []
        while True:
            try:
                line = reader.readline(max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                self._close_locked()
                raise EnvironmentBroken(self._not_started()) from None
            if line is None and self._overdue:  # killed by ``_start_overdue``
                self._close_locked()
                raise EnvironmentBroken(self._not_started())
            if line is None:
                err = _read_output(self.log_dir / "worker-stderr.log").strip().splitlines()
                self._close_locked()
                last = err[-1] if err else (junk[-1] if junk else "no output")
                raise EnvironmentBroken(f"{self.python} exited while starting the agent: {last}")
            try:
                hello = json.loads(line)
            except ValueError:
                hello = None
            if isinstance(hello, dict) and "event" in hello:
                return hello
            junk.append(line.decode("utf-8", "replace"))

    # -- running -------------------------------------------------------------------------------
    def _take(self, within: float | None = None) -> _Lane:
        """A free lane (the worker started first when it is not running); ``within``: the step's timeout,
        which bounds the wait for a worker that is starting, here or in the background."""
        deadline = None if within is None else time.monotonic() + within
        timer = None
        if within is not None and within < STARTUP_TIMEOUT and self._starting is not None:
            # the background start holds the lock while the interpreter imports: stop it at the deadline
            timer = threading.Timer(within, self._start_overdue, args=(within,))
            timer.daemon = True
            timer.start()
        try:
            return self._take_locked(deadline)
        finally:
            if timer is not None:
                timer.cancel()
                self._overdue = False

    def _start_overdue(self, within: float) -> None:
        """The step's timeout passed while the worker was still starting: kill the start (its thread then
        gives the error to the job waiting for it)."""
        if self._starting is None:
            return
        self._start_within = within
        self._overdue = True
        self.kill_now()

    def _not_started(self) -> str:
        within = self._start_within
        if within is not None and within < STARTUP_TIMEOUT:
            return (
                f"{self.python} did not start within {within:g} s (the step's timeout): the interpreter's "
                "start and import torch (and the backend) took longer; give a longer --timeout, or look "
                "at what that interpreter runs at start (a sitecustomize, a .pth file)"
            )
        return f"{self.python} did not finish importing torch within {STARTUP_TIMEOUT:.0f}s"

    def _take_locked(self, deadline: float | None) -> _Lane:
        with self._lock:
            while True:
                if self._starting is not None:
                    self._lock.wait()
                    continue
                if self._start_error is not None:
                    exc, self._start_error = self._start_error, None
                    raise exc
                if self.proc is None or (not self._all and self.proc.poll() is not None):
                    self._close_locked()
                    left = None if deadline is None else max(0.0, deadline - time.monotonic())
                    self._start_locked(left)
                if self._idle:
                    return self._idle.pop()
                if not any(lane.alive for lane in self._all):
                    # every lane died: a new worker for the next job
                    self._close_locked()
                    continue
                self._lock.wait()

    def _give_back(self, lane: _Lane) -> None:
        with self._lock:
            if lane.alive and lane in self._all:
                self._idle.append(lane)
            self._lock.notify_all()

    def run(self, job: Job) -> JobResult:
        lane = self._take(job.timeout)
        capture: OutputCapture | None = None
        try:
            with self._lock:
                self._counter += 1
                number = self._counter
            # the child writes a named pipe, read here within the job's cap (exec/capture.py)
            capture = _fifo_capture(job)
            output = (
                capture.fifo if capture is not None and capture.fifo is not None else job.output
            )
            # the worker echoes the token: a line without it is not the answer to this request
            token = secrets.token_hex(16)
            request = {
                "id": number,
                "op": job.op,
                "args": dict(job.args, cwd=job.cwd),
                "output": str(output),
                "timeout": job.timeout,
                "token": token,
            }
            started = time.monotonic()
            strays: list[str] = []
            try:
                lane.write.write((json.dumps(request) + "\n").encode())
                lane.write.flush()
                wait = None if job.timeout is None else job.timeout + ANSWER_GRACE
                line, strays = _answer_line(lane.reader, wait, token)
            except (BrokenPipeError, TimeoutError, OSError, ValueError):
                line = None
            if line is None:
                _finish(capture)
                died = self._lane_died(lane, job, started)
                if capture is not None:
                    capture.check()
                return died
            answer = json.loads(line)
        finally:
            self._give_back(lane)
            _finish(capture)
        if capture is not None:
            capture.check()  # a full disk: the output could not be kept
        problems = [
            *strays,
            *answer.get("answer_problems", []),
            *_stray_answer_files([output, job.output]),
        ]
        _check_room(job.output, "result" in answer)
        via = f" of lane pid {lane.pid}" if self.lanes > 1 else ""
        how = (
            f"forked child (pid {answer.get('pid')}){via} of warm worker pid {self.worker_pid} "
            "(torch imported once in the worker"
        )
        preloaded = [e["module"] for e in self.preloaded if e.get("status") == "imported"]
        if preloaded:
            how += "; imported before the fork: " + ", ".join(preloaded)
        if self.preload_dropped:
            how += "; not preloaded, as importing it initialised the device: " + ", ".join(
                self.preload_dropped
            )
        how += ")"
        if job.op == "run_file":
            if job.args.get("entry"):  # chosen tests, by id, the way the command above runs them
                how += f"; {_BY_ID.get(str(job.args['entry']), 'the chosen tests ran by id')}: " + (
                    ", ".join(str(x) for x in job.args.get("selectors") or [])
                )
            else:
                how += f"; the file ran as __main__ with argv {[job.args['path'], *job.args.get('argv', [])]}"
        return JobResult(
            op=job.op,
            status=answer.get("status", "ERROR"),
            exit_code=answer.get("exit_code"),
            signal=answer.get("signal"),
            duration=float(answer.get("duration", 0.0)),
            output=_read_output(job.output, job.max_output),
            result=_with_problems(job.op, answer.get("result") or {}, problems),
            command=command_line(job.literal, self.environ, job.unset) if job.literal else "",
            how=how,
        )

    def _lane_died(self, lane: _Lane, job: Job, started: float) -> JobResult:
        code = None
        with self._lock:
            lane.alive = False
            proc = self.proc
            last = not any(other.alive for other in self._all)
        if self.lanes > 1 and proc is not None:
            ended = self._ask_worker({"op": "lane_status", "pid": lane.pid})
            if ended.get("signal"):
                code = -int(ended["signal"])
            elif ended.get("exit_code") is not None:
                code = int(ended["exit_code"])
        if last and proc is not None:
            if self.lanes == 1:
                try:  # EOF comes before the exit status: give the kernel a moment to report it
                    code = proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    code = None
            with self._lock:
                if self.proc is proc:
                    self._close_locked()
                    self.restarts += 1
        if self.lanes == 1:
            what = f"the warm worker died during this job (exit {code}); it is restarted for the next job"
        else:
            what = (
                f"lane pid {lane.pid} of warm worker pid {self.worker_pid} died during this job (exit {code}); "
                + (
                    "the worker is restarted for the next job"
                    if last
                    else "the next jobs run in its other lanes"
                )
            )
        return JobResult(
            op=job.op,
            status="WORKER_DIED",
            exit_code=code,
            signal=(-code if code and code < 0 else None),
            duration=time.monotonic() - started,
            output=_read_output(job.output, job.max_output),
            how=what,
        )

    def _ask_worker(self, message: dict[str, Any]) -> dict[str, Any]:
        """A question to the worker itself (not a lane): its answer, or {} when it does not answer."""
        with self._control:
            proc, reader = self.proc, self._reader
            if proc is None or proc.stdin is None or reader is None:
                return {}
            try:
                proc.stdin.write((json.dumps(message) + "\n").encode())
                proc.stdin.flush()
                line = reader.readline(ANSWER_GRACE)
            except (OSError, TimeoutError, ValueError):
                return {}
        try:
            answer = json.loads(line) if line else {}
        except ValueError:
            return {}
        return answer if isinstance(answer, dict) else {}

    # -- stopping ------------------------------------------------------------------------------
    def close(self) -> None:
        if self._starting is not None:  # still importing in the background: no need to wait for it
            self.kill_now()
        with self._lock:
            self._start_error = None
            self._close_locked()

    def _close_locked(self) -> None:
        interrupt.unregister(self)
        proc, self.proc = self.proc, None
        lanes, self._all, self._idle = self._all, [], []
        for lane in lanes:
            lane.alive = False
            if lane.write is not (proc.stdin if proc is not None else None):
                try:  # a lane sees its channel end and stops
                    lane.write.close()
                except OSError:
                    pass
                try:
                    os.close(lane.reader.fd)
                except OSError:
                    pass
        if proc is None:
            return
        try:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.write(b'{"op": "shutdown"}\n')
                proc.stdin.flush()
                proc.wait(timeout=5 + (5 if len(lanes) > 1 else 0))
        except (OSError, subprocess.TimeoutExpired, ValueError):
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
        reap.kill_tree(proc.pid)  # a lane's job still running (its own group) goes too
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

    def __init__(
        self,
        python: str,
        backend_module: str,
        device: str,
        log_dir: Path,
        allow_cpu_fallback: bool = False,
        environ: dict[str, str] | None = None,
    ) -> None:
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
        try:
            job.output.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise write_failed(job.output.parent, exc) from exc
        if job.literal is not None:
            argv = list(job.literal)
            # its only parent is a supervisor that is its child subreaper: what it double-forks stays below
            launch = [sys.executable, "-I", "-S", SUPERVISOR, "--", *argv]
        else:
            payload = json.dumps(
                {"op": job.op, "args": dict(job.args, cwd=job.cwd), "output": str(job.output)}
            )
            if len(payload) > MAX_INLINE_JOB:  # beyond what one argument may carry: pass a file
                job_file = Path(str(job.output) + ".job.json")
                try:
                    job_file.write_text(payload)
                except OSError as exc:
                    raise write_failed(job_file, exc) from exc
                payload = "@" + str(job_file)
            backend, device, *flag = _agent_args(
                self.backend_module, self.device, self.allow_cpu_fallback
            )
            argv = launch = [self.python, *launcher(), "once", backend, device, payload, *flag]
        env = isolated_env(self.environ, job.unset if job.literal is not None else ())
        started = time.monotonic()
        # the agent's answer comes back over a pipe of its own, with a key made here (answer_pipe.py)
        answer = AnswerPipe() if job.literal is None else None
        # stdout and stderr go to a pipe, kept within the job's cap (exec/capture.py)
        try:
            capture, out = OutputCapture.pipe(job.output, job.max_output)
        except BaseException:
            if answer is not None:
                answer.abandon()
            raise
        answered: dict[str, Any] | None = None
        problems: list[str] = []
        try:
            try:
                proc = subprocess.Popen(
                    launch + ([answer.argument()] if answer is not None else []),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    env=env,
                    cwd=job.cwd,
                    start_new_session=True,
                    pass_fds=answer.child_fds() if answer is not None else (),
                )
            except OSError as exc:
                if answer is not None:
                    answer.abandon()
                    answer = None
                raise EnvironmentBroken(f"cannot start {self.python}: {exc}") from exc
            finally:
                os.close(out)
            if answer is not None:
                answer.started()
            with self._lock:
                self._live.add(proc.pid)
            timed_out = False
            try:
                proc.wait(timeout=job.timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                reap.kill_tree(
                    proc.pid
                )  # its group and every descendant, in whatever group or session
                proc.wait()
            finally:
                _kill_group(proc.pid)
                with self._lock:
                    self._live.discard(proc.pid)
        finally:
            _finish(capture)
            if (
                answer is not None
            ):  # the interpreter is gone: its answer, once, signed with the job's key
                answered, problems = answer.finish()
        duration = time.monotonic() - started
        capture.check()  # a full disk: the output could not be kept
        problems += _stray_answer_files([job.output])
        if job.literal is None:
            _check_room(job.output, answered is not None)
        result = _with_problems(job.op, answered or {}, problems)
        rc = proc.returncode
        if timed_out:
            status, code, sig = "TIMEOUT", None, signal.SIGKILL.value
        elif rc < 0:
            status, code, sig = "CRASH", None, -rc
        else:
            status, code, sig = ("OK" if rc == 0 else "FAIL"), rc, None
        if "import_error" in result:
            err = result["import_error"]
            raise EnvironmentBroken(
                _import_failed(self.python, err["module"], err["detail"], self.environ)
            )
        return JobResult(
            op=job.op,
            status=status,
            exit_code=code,
            signal=sig,
            duration=duration,
            output=_read_output(job.output, job.max_output),
            result=result,
            command=command_line(argv, self.environ, job.unset if job.literal else ()),
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


def make_runner(
    mode: str,
    python: str,
    backend_module: str,
    device: str,
    log_dir: Path,
    allow_cpu_fallback: bool = False,
    environ: dict[str, str] | None = None,
    *,
    preload: Sequence[str] | None = None,
    lanes: int = 1,
) -> Runner:
    """A runner; ``allow_cpu_fallback``: a requested device that is absent runs jobs on the cpu
    (saying so) instead of refusing them as a broken environment. ``preload`` and ``lanes`` are the
    warm worker's (``WarmWorker``); fresh interpreters import what each step imports, as the seed did."""
    from .fake import installed_runner

    def real() -> Runner:
        return _make_real_runner(
            mode,
            python,
            backend_module,
            device,
            log_dir,
            allow_cpu_fallback,
            environ,
            preload=preload,
            lanes=lanes,
        )

    # tests: the agent answered by a handler in this process, or a real runner wrapped (exec/fake.py)
    return installed_runner(python, backend_module, device, log_dir, real) or real()


def _make_real_runner(
    mode: str,
    python: str,
    backend_module: str,
    device: str,
    log_dir: Path,
    allow_cpu_fallback: bool,
    environ: dict[str, str] | None,
    *,
    preload: Sequence[str] | None,
    lanes: int,
) -> Runner:
    if mode == "warm" and not hasattr(os, "fork"):
        print("torchparity: fork is unavailable on this platform; using --fresh", file=sys.stderr)
        mode = "fresh"
    if mode == "warm":
        return WarmWorker(
            python,
            backend_module,
            device,
            log_dir,
            allow_cpu_fallback,
            environ,
            preload=preload,
            lanes=lanes,
        )
    return FreshRunner(python, backend_module, device, log_dir, allow_cpu_fallback, environ)
