"""JSON lines on a private file descriptor.

At start the agent keeps a duplicate of its original stdout for answers and points fd 1 at stderr,
so whatever torch, the backend or a test prints can never corrupt the channel.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict, Iterable

#: a JSON object as the protocol carries it: a job, its arguments, an answer
Json = Dict[str, Any]
#: torch and the backend module: imported at run time, untyped here
TorchModule = Any


def close_fds(fds: Iterable[int | None]) -> None:
    """Close each of ``fds`` (one that is None or already closed is left)."""
    for fd in fds:
        try:
            if fd is not None:
                os.close(fd)
        except OSError:
            pass


class Channel(object):
    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._in = os.fdopen(read_fd, "r", encoding="utf-8", errors="replace")
        self._out = os.fdopen(write_fd, "w", encoding="utf-8", buffering=1)

    @classmethod
    def from_stdio(cls) -> Channel:
        """Take stdin/stdout for the protocol; the process's fd 1 becomes stderr."""
        sys.stdout.flush()
        answer_fd = os.dup(1)
        os.dup2(2, 1)
        return cls(os.dup(0), answer_fd)

    def fds(self) -> list[int]:
        """The channel's two descriptors (closed in a process that must not use them)."""
        return [self._in.fileno(), self._out.fileno()]

    def send(self, message: Json) -> None:
        self._out.write(json.dumps(message, sort_keys=True, default=str) + "\n")
        self._out.flush()

    def recv(self) -> Json | None:
        line = self._in.readline()
        if not line:
            return None
        return json.loads(line)
