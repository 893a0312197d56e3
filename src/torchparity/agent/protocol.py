"""JSON lines on a private file descriptor.

At start the agent keeps a duplicate of its original stdout for answers and
points fd 1 at stderr, so whatever torch, the backend or a test prints can
never corrupt the channel.
"""

import json
import os
import sys


class Channel(object):
    def __init__(self, read_fd, write_fd):
        self._in = os.fdopen(read_fd, "r", encoding="utf-8", errors="replace")
        self._out = os.fdopen(write_fd, "w", encoding="utf-8", buffering=1)

    @classmethod
    def from_stdio(cls):
        """Take stdin/stdout for the protocol; the process's fd 1 becomes stderr."""
        sys.stdout.flush()
        answer_fd = os.dup(1)
        os.dup2(2, 1)
        return cls(os.dup(0), answer_fd)

    def send(self, message):
        self._out.write(json.dumps(message, sort_keys=True, default=str) + "\n")
        self._out.flush()

    def recv(self):
        line = self._in.readline()
        if not line:
            return None
        return json.loads(line)
