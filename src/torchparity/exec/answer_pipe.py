"""The controller's side of a fresh interpreter's answer channel (the agent's is ``agent/answer.py``).

The job's key goes over a pipe of its own that the agent reads and closes before the job runs; the
answer pipe is read by a thread while the interpreter runs, so that a large answer never blocks its
writer. The interpreter gets ``argument()`` and ``child_fds()``.
"""

from __future__ import annotations

import os
import select
import threading
from typing import Any

from ..agent.answer import AnswerReader, new_key, read_answer
from ..agent.protocol import close_fds


class AnswerPipe:
    """A fresh interpreter's answer channel, seen from the process that starts the interpreter."""

    def __init__(self) -> None:
        self.key = new_key()
        key_r, key_w = os.pipe()
        try:
            os.write(key_w, bytes(self.key))
        finally:
            os.close(key_w)
        self.answer_r, self.answer_w = os.pipe()
        self.key_r = key_r
        self.reader: AnswerReader | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def child_fds(self) -> tuple[int, int]:
        return (self.key_r, self.answer_w)

    def argument(self) -> str:
        return f"--answer={self.key_r}:{self.answer_w}"

    def started(self) -> None:
        """The interpreter started: close its ends here and read the answer as it comes."""
        close_fds(self.child_fds())
        self.reader = reader = AnswerReader(self.answer_r)
        self._thread = threading.Thread(
            target=self._read, args=(reader,), name="answer-reader", daemon=True
        )
        self._thread.start()

    def abandon(self) -> None:
        """The interpreter did not start."""
        close_fds(self.child_fds())
        os.close(self.answer_r)

    def _read(self, reader: AnswerReader) -> None:
        while not reader.pump() and not self._stop.is_set():
            select.select([reader.fd], [], [], 0.2)

    def finish(self, wait: float = 2.0) -> tuple[dict[str, Any] | None, list[str]]:
        """(result, problems): the agent's answer once the interpreter ended (``read_answer``)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(wait + 5.0)
            if self._thread.is_alive():  # never closes a descriptor a thread still reads
                return None, ["the answer pipe could not be read to its end"]
        data = self.reader.finish(wait) if self.reader is not None else b""
        return read_answer(data, self.key)
