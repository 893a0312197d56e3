"""The runs ``docs propose`` reads: verify and run runs as they are, a batch run as the runs of its tasks.

Every run is read with ``store.read_run`` (checked against its seal; tampered evidence is exit 3),
and each of its targets becomes ``Evidence`` for the API the run is about (its task record's API,
else its resolve record's canonical name).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import UsageError
from ..records.base import open_envelope
from ..records.batch import BatchTaskState
from ..records.resolve import Resolution
from ..store import Store, read_run
from .model import Products
from .propose_evidence import Evidence, evidence_of


@dataclass(frozen=True)
class RunEvidence:
    """One run's targets as evidence for its API."""

    uid: str
    id: int
    kind: str
    #: the API the run is about (None: the run names none)
    api: str | None
    #: resolve's answer in the run (its docs names, whether the API is public), None when not resolved
    resolution: Resolution | None
    evidence: tuple[Evidence, ...]
    #: the batch run this run is a task of ("" when named directly)
    batch: str = ""


def _batch_runs(store: Store, batch_id: int) -> tuple[list[int], list[str]]:
    """The run ids of a batch's tasks (the newest state of each), and a note per task without one."""
    states: dict[int, BatchTaskState] = {}
    for kind, _key, doc in store.records(batch_id):
        if kind == BatchTaskState.KIND:
            state = open_envelope(doc, BatchTaskState)
            states[state.index] = state
    ids, notes = [], []
    for index in sorted(states):
        st = states[index]
        if st.run_id is None:
            why = f": {st.error}" if st.error else ""
            notes.append(f"batch task {index} ({st.api}) has no run ({st.status}{why})")
        else:
            ids.append(st.run_id)
    return ids, notes


def read_runs(
    store: Store, names: Iterable[str], products: Products, stand_in: Iterable[str] = ()
) -> tuple[list[RunEvidence], list[str]]:
    """The runs named (ids or uids), a batch expanded into its tasks' runs, each once; and notes
    (a batch task without a run, a run without targets). ``stand_in``: CPU environments declared to
    stand for their configured hardware."""
    standing = frozenset(stand_in)
    out: list[RunEvidence] = []
    notes: list[str] = []
    seen: set[int] = set()

    def add(run_id: int | str, batch: str = "") -> None:
        records = read_run(store, run_id)
        info = records.run
        if info.id in seen:
            return
        seen.add(info.id)
        if info.kind == "batch":
            ids, said = _batch_runs(store, info.id)
            notes.extend(said)
            if not ids and not said:
                notes.append(f"batch run {info.id} holds no task yet")
            for rid in ids:
                add(rid, info.uid)
            return
        resolution = records.resolve.resolution if records.resolve is not None else None
        api = (records.task.api if records.task is not None else None) or (
            resolution.canonical if resolution is not None else None
        )
        if not records.targets:
            notes.append(f"run {info.id} ({info.kind}) holds no target: no test result to read")
        evidence = tuple(
            evidence_of(
                t.record,
                api=api or "",
                run_uid=info.uid,
                run_id=info.id,
                log_sha256=t.log_sha256,
                products=products,
                stand_in=standing,
            )
            for t in records.targets
        )
        out.append(RunEvidence(info.uid, info.id, info.kind, api, resolution, evidence, batch))

    for name in names:
        if not str(name).strip():
            raise UsageError("RUN is empty; name a run by its id or uid (see 'torchparity runs')")
        add(name)
    return out, notes


__all__ = ["RunEvidence", "read_runs"]
