"""A store of a few APIs' runs over two branches and three environments, for the dashboard's tests.

Runs, oldest first (a day apart):

1. ``set_grad_enabled.clone``: master on A2 PASS, on A3 FAIL; v2.7.1 on A2 PASS.
2. ``Optimizer.zero_grad``: master on A2 and A3 PASS; v2.7.1 on A2 NONE_RAN.
3. ``nn.functional.relu`` on the emulated npu (environment ``emu``, hardware ``Atlas A2`` configured):
   master PASS (emulated), v2.7.1 MISMATCH (emulated).
4. ``Tensor.clone`` on the plain CPU environment ``local`` (no hardware): master PASS.
5. ``set_grad_enabled.clone`` again, under an alias its verify record folds: master on A3 PASS.
6. a ``run`` that names no API: left out.

``python -m tests.dashboard.dashboard_fixtures DIR`` writes this store into ``DIR/store`` (the
screenshot in docs/ is of its dashboard).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from tests.report.report_fixtures import TEST_PATH, target_record
from torchparity.collect.evidence import render_log
from torchparity.records.target import TargetRecord
from torchparity.records.task import TaskRecord
from torchparity.records.verify import VerifyRecord
from torchparity.store import Store, put, sha256_bytes

CLONE = "torch.autograd.grad_mode.set_grad_enabled.clone"
CLONE_ALIAS = "torch.set_grad_enabled.clone"
ZERO_GRAD = "torch.optim.Optimizer.zero_grad"
RELU = "torch.nn.functional.relu"
TENSOR_CLONE = "torch.Tensor.clone"
APIS = (CLONE, ZERO_GRAD, RELU, TENSOR_CLONE)

#: the first run's time; each later run is a day after the one before
T0 = 1780000000.0
DAY = 86400.0
COMMIT = "2" * 40

#: (api named by the task, canonical name of a verify record or None, [(ref, env, result)])
RUNS: tuple[tuple[str | None, str | None, tuple[tuple[str, str, str], ...]], ...] = (
    (CLONE, None, (("master", "a2", "PASS"), ("master", "a3", "FAIL"), ("v2.7.1", "a2", "PASS"))),
    (
        ZERO_GRAD,
        None,
        (("master", "a2", "PASS"), ("master", "a3", "PASS"), ("v2.7.1", "a2", "NONE_RAN")),
    ),
    (RELU, None, (("master", "emu", "PASS"), ("v2.7.1", "emu", "MISMATCH"))),
    (TENSOR_CLONE, None, (("master", "local", "PASS"),)),
    (CLONE_ALIAS, CLONE, (("master", "a3", "PASS"),)),
    (None, None, (("master", "a2", "PASS"),)),
)


def target(ref: str, env: str, result: str) -> TargetRecord:
    """A target record of the report fixtures' shape at ``ref`` in ``env`` with ``result``."""
    base = target_record(
        "a3" if env == "a3" else "a2", COMMIT, sha256_bytes(b"test"), failed=result == "FAIL"
    )
    rec = replace(base, ref=ref, label=f"{ref}@{env}", env=env, result=result)
    if env == "emu":  # the emulated npu: an Atlas A2 is configured, none was seen
        return replace(rec, emulated="npu")
    if env == "local":  # a plain CPU environment, no hardware configured
        return replace(rec, hardware="", device="cpu", probe=None)
    return rec


def add_target(store: Store, rid: int, rec: TargetRecord) -> None:
    """``rec`` as a target of run ``rid``, with the log rendered from it."""
    store.add_target(
        rid,
        label=rec.label,
        ref=rec.ref,
        env=rec.env,
        result=rec.result,
        log=render_log(rec).encode(),
        record=rec.to_json(),
    )


def fill(store: Store) -> list[int]:
    """The runs above in ``store``; returns their ids, oldest first."""
    ids = []
    for i, (api, canonical, targets) in enumerate(RUNS):
        argv = ["verify", api] if api else ["run", TEST_PATH]
        rid = store.new_run("verify" if api else "run", argv, created=T0 + i * DAY)
        if api:
            put(store, TaskRecord(api=api), rid, api)
        if canonical:
            verdict = VerifyRecord(api, canonical, canonical, "method", "python-state", "PASS")
            put(store, verdict, rid, api or "")
        for order, (ref, env, result) in enumerate(targets):
            add_target(store, rid, replace(target(ref, env, result), run_id=rid, order=order))
        worst = "FAIL" if any(r == "FAIL" for _, _, r in targets) else targets[0][2]
        store.finish_run(rid, worst, finished=T0 + i * DAY + 60)
        ids.append(rid)
    return ids


def build_store(root: Path) -> tuple[Store, list[int]]:
    store = Store(root / "store")
    return store, fill(store)


if __name__ == "__main__":
    build_store(Path(sys.argv[1]))
