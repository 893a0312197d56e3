"""Run the tasks ``jobs`` at a time; an interrupt stops them all and waits for them to unwind.

Each task's work handles its own failures (it records them), so one task that
fails never stops another. The main thread only waits (with a short timeout, so
that Ctrl-C and SIGTERM reach it at once); on an interrupt it calls
``on_interrupt`` (which cancels collectors and kills runners), waits for the
running tasks to unwind and re-raises: tasks never started stay to do, and a
resume starts them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")


def run_all(
    items: Sequence[T], work: Callable[[T], None], jobs: int, on_interrupt: Callable[[], None]
) -> None:
    pool = ThreadPoolExecutor(
        max_workers=max(1, min(jobs, len(items) or 1)), thread_name_prefix="task"
    )
    futures: list[Future[None]] = []
    try:
        futures = [pool.submit(work, item) for item in items]
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            for fut in done:
                fut.result()  # work records its own errors: what escapes is a bug, and stops the batch
    except BaseException:
        for fut in futures:
            fut.cancel()
        on_interrupt()
        pool.shutdown(wait=True)
        raise
    pool.shutdown(wait=True)


__all__ = ["run_all"]
