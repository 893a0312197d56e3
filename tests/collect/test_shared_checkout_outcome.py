"""A record stored once its shared checkout is removed: the run's outcome holds the record as stored
(over the fake runner: no interpreter starts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from torchparity.collect import CollectOptions, Collector, EnvSpec, record_from_json
from torchparity.exec.fake import answering
from torchparity.exec.runners import Job
from torchparity.store import Store

TEST = "test/test_x.py"


def _answer(job: Job) -> dict[str, Any]:
    if job.op == "probe":
        return {
            "facts": [["torch_version", "2.13.0"], ["device_type", "cpu"]],
            "device_type": "cpu",
        }
    return {
        "exit_code": 0,
        "tests": [{"id": "__main__.T.test_x", "outcome": "passed"}],
        "runner": {"kind": "unittest", "sessions": 1, "finished": 1, "tests_run": 1},
        "tests_seen": 1,
        "leaks": [],
    }


def test_the_outcome_holds_each_record_as_stored_after_the_shared_checkout_went(
    tmp_path: Path, make_repo: Any
) -> None:
    repo = make_repo({"master": {TEST: "import unittest\n"}})
    store = Store(tmp_path / "store")
    opts = CollectOptions(
        files=[TEST],
        repo=repo,
        refs=["master"],
        envs=[EnvSpec("a", "/py-a"), EnvSpec("b", "/py-b")],
        device="cpu",
    )
    with answering(_answer):
        outcome = Collector(store, opts).run(["run"])
    assert [r.label for r in outcome.records] == ["master@a", "master@b"]
    stored = {t.label: t.record_sha for t in store.targets(outcome.run_id)}
    for rec in outcome.records:
        # one checkout for both environments: the first record waited for the second to finish
        assert "shared with" in rec.checkout
        assert rec.worktree_remove_exit_code == 0 and rec.run_id == outcome.run_id
        sha = stored[rec.label]
        assert sha is not None
        assert record_from_json(store.read_json(sha)) == rec
