"""Resume an interrupted ``torchparity run``: its own command line, into the same run id.

Which process may write the run is the store's lock (``store/runlock.py``), taken by the resumed
verb before any work; the check here only says early why a run cannot be resumed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..store import Store


@dataclass(frozen=True)
class Resumption:
    """What re-running run ``run_id`` takes: its arguments (into ``store``) and the folder they were given in."""

    run_id: int
    argv: list[str]
    cwd: Path | None


def _without_store(argv: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == "--store":
            skip = True
        elif not a.startswith("--store="):
            out.append(a)
    return out


def plan_resume(store: Store, run_id: int | str, verb: str = "run") -> Resumption:
    """The resumption of run ``run_id`` by ``verb`` (run, verify, batch), or a ``UsageError`` saying why
    it cannot be resumed."""
    row = store.run(run_id)
    if row.kind != verb or not row.argv or row.argv[0] != verb:
        made = f"'torchparity {row.argv[0]}'" if row.argv else "another verb"
        raise UsageError(
            f"run {run_id} was not made by 'torchparity {verb}' (but by {made}); it cannot be resumed here"
            + (
                "; resume the batch it belongs to: torchparity batch --resume BATCH (see "
                "'torchparity runs')"
                if row.argv and row.argv[0] == "batch" and verb != "batch"
                else ""
            )
        )
    if row.status == "complete":
        raise UsageError(
            f"run {run_id} is complete; nothing to resume (see 'torchparity show {run_id}')"
        )
    if row.status == "running" and not row.orphaned:
        raise UsageError(
            f"run {run_id} is being worked on by another torchparity process: it is still running "
            f"(pid {row.summary.get('pid')}); wait for it to finish or stop it, then resume"
        )
    # the stored command line, into this store (the one the run lives in)
    argv = [*_without_store(row.argv), "--store", str(store.root)]
    cwd = row.summary.get("cwd")
    return Resumption(row.id, argv, Path(cwd) if cwd and Path(cwd).is_dir() else None)
