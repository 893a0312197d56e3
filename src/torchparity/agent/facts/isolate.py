"""Run a function in a forked child, so that what it does to this interpreter stays there.

A measured call may leave global state changed (``torch._enable_functionalization``
left on broke every API measured after it in one agent), crash the interpreter
(a C++ ``terminate`` on an argument of the wrong type), or hang. ``in_child``
runs ``fn`` in a fork: in a scratch folder the parent makes and removes, with one
thread, its result back through a pipe, and the child's exit status or signal
reported when no result came. ``run_isolated`` does that where forking is safe
and runs ``fn`` here otherwise (a real device runtime started in this process
does not survive a fork).

Standard library only (and torch, imported lazily): this runs in the
environment under test.
"""

from __future__ import annotations

import os
import pickle
import select
import shutil
import signal
import sys
import tempfile
import time
from typing import Any, Callable, Mapping, Sequence, TypeVar, cast

from .schema_common import Measured

T = TypeVar("T")
#: a kind of facts (``schema.py``): every one is ``total=False``, so a failure's record is one too
F = TypeVar("F", bound=Measured)

#: how long a child may run, by default
TIMEOUT = 60.0


class ChildFailed(Exception):
    """The child gave no result: it raised, crashed, was killed by a signal or ran out of time."""

    def __init__(self, message: str, status: str = "", raised: bool = False) -> None:
        Exception.__init__(self, message)
        self.status = status
        #: the function raised in the child (its error came back); not a crash, a signal or a timeout
        self.raised = raised


def fork_safe(device_type: str = "") -> bool:
    """Whether a fork of this process can run torch: no real device runtime has been started here
    (CUDA's, another known backend's or the device type's own, unless its backend only emulates the
    device)."""
    if not hasattr(os, "fork"):
        return False
    torch = sys.modules.get("torch")
    if torch is None:
        return True
    names = ["cuda", "xpu", "npu", "mlu", "musa"]
    if device_type and device_type not in names + ["cpu", "meta"]:
        names.append(device_type)
    for name in names:
        mod = getattr(torch, name, None)
        started = getattr(mod, "is_initialized", None)
        if not callable(started):
            continue
        backend = sys.modules.get("torch_" + name)
        if backend is not None and getattr(backend, "__emulated__", None):
            continue  # an emulation runs on the CPU
        try:
            if started():
                return False
        except Exception:
            return False
    return True


def _status_text(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        return "killed by signal %s" % name
    if os.WIFEXITED(status):
        return "exit status %d" % os.WEXITSTATUS(status)
    return "status %d" % status


def _child(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    write_fd: int,
    folder: str,
) -> None:
    code = 0
    try:
        os.chdir(folder)
        torch = sys.modules.get("torch")
        if torch is not None:
            try:
                torch.set_num_threads(1)
            except Exception:
                pass
        try:
            payload: tuple[bool, Any] = (True, fn(*args, **kwargs))
        except BaseException as exc:  # the parent learns what it raised
            payload = (False, "%s: %s" % (type(exc).__name__, exc))
            code = 1
        try:
            data = pickle.dumps(payload, protocol=2)
        except Exception as exc:
            data = pickle.dumps((False, "the result cannot be sent back: %s" % exc), protocol=2)
            code = 1
        view = memoryview(data)
        while view:
            n = os.write(write_fd, view[:65536])
            view = view[n:]
    except BaseException:
        code = 2
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)


def in_child(
    fn: Callable[..., T],
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    timeout: float = TIMEOUT,
) -> T:
    """``fn(*args, **kwargs)`` in a forked child; its result, or ``ChildFailed`` saying why none came."""
    folder = tempfile.mkdtemp(prefix="torchparity-child-")
    try:
        read_fd, write_fd = os.pipe()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    try:
        pid = os.fork()
    except BaseException:
        os.close(read_fd)
        os.close(write_fd)
        shutil.rmtree(folder, ignore_errors=True)
        raise
    if pid == 0:
        os.close(read_fd)
        _child(fn, args, kwargs or {}, write_fd, folder)
    os.close(write_fd)
    chunks = []
    deadline = time.monotonic() + timeout
    timed_out = False
    finished = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(read_fd, 65536)
            if not chunk:
                finished = True
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        if not finished:  # timed out, or this loop was interrupted: the child must not outlive it
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _, status = os.waitpid(pid, 0)
        shutil.rmtree(folder, ignore_errors=True)
    if timed_out:
        raise ChildFailed("did not finish within %.0f s" % timeout, "timeout")
    data = b"".join(chunks)
    if not data:
        raise ChildFailed(
            "ended without a result (%s)" % _status_text(status), _status_text(status)
        )
    try:
        ok, value = pickle.loads(data)
    except Exception:
        raise ChildFailed(
            "sent back a result that cannot be read (%s)" % _status_text(status),
            _status_text(status),
        ) from None
    if not ok:
        raise ChildFailed(str(value), _status_text(status), raised=True)
    return value


def run_isolated(
    fn: Callable[..., T],
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    device_type: str = "",
    timeout: float = TIMEOUT,
) -> T:
    """``in_child`` where forking is safe (``fork_safe``), else ``fn`` run here."""
    if not fork_safe(device_type):
        return fn(*args, **(kwargs or {}))
    return in_child(fn, args, kwargs, timeout)


def _as_json(fn: Callable[..., Any], args: Sequence[Any]) -> Any:
    """``fn(*args)`` as the agent's protocol sends it: plain JSON data, what JSON cannot hold as its text."""
    import json

    return json.loads(json.dumps(fn(*args), default=str))


def isolated_facts(
    what: str,
    fn: Callable[..., F],
    args: Sequence[Any] = (),
    device_type: str = "",
    timeout: float = 300.0,
) -> F:
    """A facts function run isolated (as ``run_isolated`` does), its result as the protocol would send
    it; where its child gives no result, the record of why (``{"problem", "found": False}``) as a
    failed measurement gives."""
    if not fork_safe(device_type):
        return fn(*args)
    try:
        return in_child(_as_json, (fn, args), timeout=timeout)
    except ChildFailed as exc:
        failed: Measured = {
            "problem": "measuring the %s facts failed: the call %s" % (what, exc),
            "found": False,
        }
        return cast(F, failed)
