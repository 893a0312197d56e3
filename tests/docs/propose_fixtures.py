"""A store of runs for ``docs propose``: targets written the way the report fixtures write them.

Each target is ``tests.report.report_fixtures.target_record`` (a probe that saw a real ``npu``
device, no emulation: the report model's ``hardware_matches`` is true) with its verdict, its torch
release and its environment's hardware set here; ``emulated`` and ``cpu`` give the two kinds of
evidence that never propose a cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.report.report_fixtures import target_record
from torchparity.collect.evidence import render_log
from torchparity.records.batch import BatchPlan, BatchTask, BatchTaskState
from torchparity.records.target import ApiTest, TargetRecord
from torchparity.records.task import TaskRecord
from torchparity.store import Store, put

HARDWARE = {"a2": "Atlas A2", "a3": "Atlas A3", "a5": "Ascend 950"}


@dataclass(frozen=True)
class T:
    """One target to store: its environment, verdict and torch release, and how it ran."""

    env: str
    result: str = "PASS"
    torch: str = "2.7.1"
    emulated: bool = False
    #: the probe saw the CPU (an environment labelled with hardware it does not have)
    cpu: bool = False
    hardware: str | None = None


def record(t: T, api: str) -> TargetRecord:
    failed = t.result == "FAIL"
    rec = target_record(t.env if t.env in HARDWARE else "a2", "c" * 40, "d" * 64, failed=failed)
    assert rec.probe is not None
    facts = [
        [k, f"{t.torch}+cpu" if k == "torch_version" else v] for k, v in rec.probe.result["facts"]
    ]
    if t.emulated:
        facts.append(["torch_npu_emulated", "cpu"])
    if t.cpu:
        facts = [[k, "cpu" if k == "device_type" else v] for k, v in facts]
    rec.probe.result = dict(rec.probe.result, facts=facts)
    tid = f"test/npu/test_api.py::TestApi::test_{api.rsplit('.', 1)[-1]}"
    status = {"PASS": "passed", "FAIL": "failed"}.get(t.result, "skipped")
    return rec.replace(
        env=t.env,
        label=f"v{t.torch}@{t.env}",
        ref=f"v{t.torch}",
        hardware=HARDWARE.get(t.env, "") if t.hardware is None else t.hardware,
        result=t.result,
        torch_version=f"{t.torch}+cpu",
        emulated="npu" if t.emulated else rec.emulated,
        device="cpu" if t.cpu else rec.device,
        api_tests=[
            ApiTest(tid, "test/npu/test_api.py", tid if status != "skipped" else "", status)
        ],
    )


def add_run(store: Store, api: str | None, targets: list[T], kind: str = "verify") -> int:
    rid = store.new_run(kind, [kind, api or "-"])
    if api is not None:
        put(store, TaskRecord(api=api), rid, api)
    results = []
    for t in targets:
        rec = record(t, api or "torch.x")
        rec = rec.replace(run_id=rid)
        store.add_target(
            rid,
            label=rec.label,
            ref=rec.ref,
            env=rec.env,
            result=rec.result,
            log=render_log(rec).encode(),
            record=rec.to_json(),
        )
        results.append(rec.result)
    store.finish_run(rid, "FAIL" if "FAIL" in results else "PASS")
    return rid


def add_batch(store: Store, runs: dict[str, int]) -> int:
    """A batch run whose tasks are the runs given (API -> run id)."""
    rid = store.new_run("batch", ["batch", "tasks.txt"])
    tasks = tuple(
        BatchTask(i, api, TaskRecord(api=None), source=f"tasks.txt:{i}")
        for i, api in enumerate(runs, 1)
    )
    put(store, BatchPlan(tasks, "tasks.txt", "text"), rid, "tasks.txt")
    for i, (api, run_id) in enumerate(runs.items(), 1):
        state = BatchTaskState(i, api, "done", run_id, store.run(run_id).uid, "PASS")
        put(store, state, rid, api)
    store.finish_run(rid, "PASS")
    return rid


def new_store(root: Path) -> Store:
    return Store(root / "store")
