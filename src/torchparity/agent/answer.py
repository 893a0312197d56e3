"""The channel that carries a job's answer out of the process that ran it.

A job's results stay in its process's memory and leave it once, over ``AnswerChannel``: a pipe that
the process which started this one made for the job, whose write end the agent holds (closed on exec
and in any process forked from this one), carrying one message signed with a key made for the job. A
test cannot print into it, has no path to guess, and a copy of the process (a fork) cannot answer
for it. ``AnswerReader`` reads the pipe in the starting process as the answer comes, and
``read_answer`` takes the one message signed with the key and sent by the job's process.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import select
import sys
import time

from .protocol import Json, close_fds

#: the agent's one message: ``TPA1 <sender pid> <origin pid> <body bytes> <hmac-sha256 hex>\n<body>``
MAGIC = b"TPA1"
#: bytes of a job's key
KEY_BYTES = 32
#: most bytes kept of what comes over an answer pipe; the rest is read and dropped (a flood is no answer)
MAX_ANSWER = 1 << 30


def new_key() -> bytearray:
    """A job's key: made by the process that starts the job, never written where the job can read it."""
    return bytearray(os.urandom(KEY_BYTES))


def _mac(key: bytearray, sender: int, origin: int, body: bytes) -> bytes:
    head = b"%s %d %d %d\n" % (MAGIC, sender, origin, len(body))
    return hmac.new(bytes(key), head + body, hashlib.sha256).hexdigest().encode("ascii")


def _identity(fd: int) -> tuple[int, int] | None:
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def wipe(key: bytearray) -> None:
    """Overwrite a key held in a bytearray."""
    for i in range(len(key)):
        key[i] = 0


class AnswerChannel(object):
    """The write end of a job's answer pipe, held by the agent in the process that runs the job.

    ``send`` writes the job's answer once, signed with the job's key. The pipe is not inherited
    across exec, and it is closed in every process forked from this one before that process runs
    any code of its own: a copy of the job's process (a test that forks and lets the child finish
    the run) cannot answer for it."""

    def __init__(self, fd: int, key: bytearray) -> None:
        self._fd: int | None = fd
        self._key = bytearray(key)
        self._pid = os.getpid()
        self._identity = _identity(fd)
        try:
            os.set_inheritable(fd, False)
        except OSError:
            pass
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._forked)

    def _forked(self) -> None:
        """In a process forked from the job's: this copy cannot answer."""
        fd, self._fd = self._fd, None
        wipe(self._key)
        # the number is closed only while it is still this pipe (the test may have closed and reused it)
        if fd is not None and _identity(fd) == self._identity:
            close_fds([fd])

    def send(self, result: Json) -> bool:
        """Write ``result`` as the job's answer; False when this process may not (or already did)."""
        pid = os.getpid()
        if pid != self._pid:
            sys.stderr.write(
                "torchparity-agent: not answering from process %d, a copy (fork) of the job's "
                "process %d: only the process the agent started answers\n" % (pid, self._pid)
            )
            sys.stderr.flush()
            return False
        fd, self._fd = self._fd, None
        if fd is None:
            return False
        try:
            body = json.dumps(result, default=str).encode("utf-8")
            mac = _mac(self._key, pid, self._pid, body)
            frame = b"%s %d %d %d %s\n" % (MAGIC, pid, self._pid, len(body), mac)
            data = memoryview(frame + body)
            while data:
                try:
                    data = data[os.write(fd, data) :]
                except InterruptedError:
                    continue
        except OSError:  # nobody reads any more: the answer is lost, and the reader says so
            return False
        finally:
            wipe(self._key)
            close_fds([fd])
        return True


def open_answer_channel(option: str) -> AnswerChannel:
    """The channel of ``--answer=KEY_FD:ANSWER_FD`` (fresh interpreters): the key is read from its own
    pipe and that pipe closed, before any job code runs."""
    key_fd, answer_fd = (int(part) for part in option.split(":"))
    key = bytearray()
    try:
        while len(key) < KEY_BYTES:
            chunk = os.read(key_fd, KEY_BYTES - len(key))
            if not chunk:
                break
            key += chunk
    finally:
        os.close(key_fd)
    return AnswerChannel(answer_fd, key)


class AnswerReader(object):
    """The read end of a job's answer pipe, in the process that started the job: read as the answer
    comes (a large one must not block its writer), and whole at the end."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.chunks: list[bytes] = []
        self.size = 0
        self.eof = False
        os.set_blocking(fd, False)

    def pump(self) -> bool:
        """Read what is there now; True once every writer is gone."""
        while not self.eof:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return False
            except InterruptedError:
                continue
            if not chunk:
                self.eof = True
            elif self.size < MAX_ANSWER:
                self.chunks.append(chunk)
                self.size += len(chunk)
        return True

    def finish(self, wait: float = 2.0) -> bytes:
        """Read until every writer is gone (at most ``wait`` seconds more), close, return the bytes."""
        deadline = time.monotonic() + wait
        while not self.pump():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            select.select([self.fd], [], [], left)
        close_fds([self.fd])
        return b"".join(self.chunks)


def read_answer(
    data: bytes, key: bytearray, pid: int | None = None
) -> tuple[Json | None, list[str]]:
    """(result, problems) of what came over a job's answer pipe.

    The result is the body of the first message signed with ``key`` and sent by the process that
    started sending (``pid``, when the reader knows it: the job's forked child); ``problems`` says, in
    a sentence each, what else came: bytes that are no message, a message not signed with the key,
    one from another process, the answer more than once. None: no answer came."""
    problems: list[str] = []
    bodies: list[bytes] = []
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        parts = data[pos:end].split(b" ") if end >= 0 else []
        if (
            len(parts) != 5
            or parts[0] != MAGIC
            or not all(p.isdigit() for p in parts[1:4])
            or len(parts[4]) != 64
        ):
            problems.append(
                "the answer pipe carried %d byte(s) that are not a message of the agent's: "
                "something other than the agent wrote into it; ignored" % (len(data) - pos)
            )
            break
        sender, origin, size = int(parts[1]), int(parts[2]), int(parts[3])
        body = data[end + 1 : end + 1 + size]
        pos = end + 1 + size
        if len(body) < size:
            problems.append(
                "a message on the answer pipe was cut short (%d of %d bytes)" % (len(body), size)
            )
            break
        if not hmac.compare_digest(_mac(key, sender, origin, body), bytes(parts[4])):
            problems.append(
                "a message on the answer pipe is not signed with this job's key: something other "
                "than the agent wrote it; ignored"
            )
            continue
        if sender != origin or (pid is not None and sender != pid):
            problems.append(
                "an answer from process %d, not from the job's process %d (a copy of it made "
                "by fork?); ignored" % (sender, origin if pid is None else pid)
            )
            continue
        bodies.append(body)
    if len(bodies) > 1:
        problems.append("the agent's answer came %d times; the first is kept" % len(bodies))
    result = None
    if bodies:
        try:
            result = json.loads(bodies[0].decode("utf-8"))
        except ValueError as exc:
            problems.append("the agent's answer is not JSON (%s)" % exc)
    if result is not None and not isinstance(result, dict):
        problems.append("the agent's answer is not a JSON object")
        result = None
    return result, problems
