"""batch end to end on a fixture backend repo (real git, real interpreters with torch): what is
shared across tasks, PR texts per branch, and failures that stop nothing else."""

from __future__ import annotations

import json

import pytest

from tests.batch.fixtures import PY, backend_repo, second_python, tasks_file
from torchparity.cli import main
from torchparity.records.base import open_envelope
from torchparity.records.batch import BatchTaskState
from torchparity.records.target import record_from_json
from torchparity.store import Store, read_run

# the real end-to-end tests here are marked slow; the others answer the agent from recordings of the
# real one (the `agent` fixture, tests/fakeagent.py)


@pytest.mark.slow
def test_three_apis_two_refs_two_envs_share_workers_checkouts_resolve_and_index(
    tmp_path, make_repo, capsys
):
    py2 = second_python(tmp_path / "env2")
    repo = backend_repo(make_repo, {"main": PY, "second": py2})
    tasks = tasks_file(tmp_path / "tasks.txt", ["torch.add", "torch.sub", "torch.mul"])
    out, store = tmp_path / "out", tmp_path / "store"
    rc = main(
        [
            "batch",
            str(tasks),
            "--repo",
            str(repo),
            "--out",
            str(out),
            "--store",
            str(store),
            "--jobs",
            "2",
        ]
    )
    captured = capsys.readouterr()
    assert rc == 0, captured.out + captured.err
    st = Store(store)
    batch = next(r for r in st.runs() if r.kind == "batch")
    assert (batch.status, batch.result) == ("complete", "PASS")
    # shared: one resolve job for 3 APIs, one coverage build for both refs, one checkout per ref,
    # one warm worker per environment (not one per task, nor one per stage)
    assert batch.summary["shared"] == {
        "resolve_jobs": 1,
        "coverage_builds": 1,
        "checkouts": 2,
        "runners_started": 2,
    }
    verifies = [r for r in st.runs() if r.kind == "verify"]
    assert len(verifies) == 3
    for run in verifies:
        assert {t.label: t.result for t in st.targets(run.id)} == {
            "master@main": "PASS",
            "master@second": "PASS",
            "v2.11.0@main": "PASS",
            "v2.11.0@second": "PASS",
        }
        recs = read_run(st, run.id)
        assert recs.verify is not None and recs.verify.result == "PASS"
        assert recs.coverage is not None and all(r.direct for r in recs.coverage.refs)
    # every log says the test file ran from the batch's shared checkout of its ref
    logs = [st.blobs.read(t.log_sha).decode() for r in verifies for t in st.targets(r.id)]
    assert all(f"torchparity-batch-{batch.uid}" in log for log in logs)
    doc = json.loads((out / "batch-summary.json").read_text())
    assert [(t["task"], t["result"]) for t in doc["tasks"]] == [
        ("torch.add", "PASS"),
        ("torch.sub", "PASS"),
        ("torch.mul", "PASS"),
    ]
    for t in doc["tasks"]:
        assert list(t["prs"]) == ["master", "v2.11.0"]
        for ref, path in t["prs"].items():
            other = "v2.11.0" if ref == "master" else "master"
            text = (tmp_path / path).read_text() if not path.startswith("/") else open(path).read()
            assert f"{ref}@main" in text and f"{other}@main" not in text
    md = (out / "batch-summary.md").read_text()
    assert "## PRs per target branch" in md and "### v2.11.0" in md
    assert "| `torch.mul` | master, v2.11.0 | main, second | PASS |" in md


def test_a_bad_api_and_a_ref_git_cannot_check_out_stop_nothing_else(
    agent, tmp_path, make_repo, capsys
):
    repo = backend_repo(make_repo, {"main": PY}, broken=True)
    tasks = tasks_file(tmp_path / "tasks.txt", ["torch.add", "torch.no_such_api_here"])
    out, store = tmp_path / "out", tmp_path / "store"
    rc = main(
        [
            "batch",
            str(tasks),
            "--repo",
            str(repo),
            "--ref",
            "master",
            "--ref",
            "v2.7.1",
            "--out",
            str(out),
            "--store",
            str(store),
        ]
    )
    captured = capsys.readouterr()
    assert rc == 2, (
        captured.out + captured.err
    )  # the unknown API is bad input; the other task still ran
    st = Store(store)
    batch = next(r for r in st.runs() if r.kind == "batch")
    assert batch.status == "complete"
    states = {}
    for kind, _key, d in st.records(batch.id):
        if kind == "batch-task":
            s = open_envelope(d, BatchTaskState)
            states[s.api] = s
    assert states["torch.no_such_api_here"].status == "failed"
    assert "unknown API 'torch.no_such_api_here'" in states["torch.no_such_api_here"].error
    add = states["torch.add"]
    assert add.status == "done" and add.result == "ERROR", add.error
    assert {t.label: t.result for t in add.targets} == {
        "master@main": "PASS",
        "v2.7.1@main": "ERROR",
    }
    # git's own cause is kept in the record, the log and the blockers, not only its last line
    (bad,) = [t for t in st.targets(add.run_id) if t.label == "v2.7.1@main"]
    log = st.blobs.read(bad.log_sha).decode()
    assert "unable to read sha1 file of test_upstream/disabled_testcases.json" in log
    assert "Could not reset index file" in log
    assert any(
        "unable to read sha1 file of test_upstream/disabled_testcases.json" in b
        for b in add.blockers
    )
    md = (out / "batch-summary.md").read_text()
    assert "NOT RUN" in md and "unable to read sha1 file" in md


def test_verify_runs_a_ref_whose_unread_blob_is_missing(agent, tmp_path, make_repo, capsys):
    """As a clone of Ascend/pytorch at v2.7.1 (test_upstream/disabled_testcases.json's blob absent): verify
    checks out only what the run reads, so both refs run, where a full checkout of v2.7.1 fails."""
    repo = backend_repo(make_repo, {"main": PY}, broken=True)
    store = tmp_path / "store"
    rc = main(
        [
            "verify",
            "torch.add",
            "--repo",
            str(repo),
            "--ref",
            "master",
            "--ref",
            "v2.7.1",
            "--out",
            str(tmp_path / "out"),
            "--store",
            str(store),
        ]
    )
    captured = capsys.readouterr()
    assert rc == 0, captured.out + captured.err
    st = Store(store)
    (run,) = st.runs()
    assert run.status == "complete"
    assert {t.label: t.result for t in st.targets(run.id)} == {
        "master@main": "PASS",
        "v2.7.1@main": "PASS",
    }


@pytest.mark.slow
def test_batch_emulate_npu_runs_the_local_pool_on_the_emulated_npu_and_says_it_is_a_dry_run(
    tmp_path, make_repo, capsys
):
    repo = backend_repo(make_repo, {"main": PY})
    tasks = tasks_file(tmp_path / "tasks.txt", ["torch.add", "torch.sub"])
    out, store = tmp_path / "out", tmp_path / "store"
    rc = main(
        [
            "batch",
            str(tasks),
            "--repo",
            str(repo),
            "--ref",
            "master",
            "--emulate",
            "npu",
            "--device",
            "npu",
            "--out",
            str(out),
            "--store",
            str(store),
            "--jobs",
            "1",
        ]
    )
    captured = capsys.readouterr()
    assert rc == 1, (
        captured.out + captured.err
    )  # every target passed, on an emulated device: a dry run
    assert "EMULATED npu on CPU" in captured.err
    st = Store(store)
    batch = next(r for r in st.runs() if r.kind == "batch")
    # one warm worker for the emulated environment serves both tasks (resolve included)
    assert (
        batch.summary["shared"]["runners_started"],
        batch.summary["shared"]["resolve_jobs"],
    ) == (1, 1)
    for run in (r for r in st.runs() if r.kind == "verify"):
        (target,) = st.targets(run.id)
        assert target.result == "PASS"
        rec = record_from_json(st.read_json(target.record_sha))
        assert rec.emulated == "npu" and rec.probe_facts["torch_npu_version"] == "0.0.0+emulated"
        # the test itself ran on the emulated device (the fixture's test asserts its result's device)
        assert rec.probe_facts["device_type"] == "npu"
    summary = json.loads((out / "batch-summary.json").read_text())
    assert [t["blockers"][0].split(":")[0] for t in summary["tasks"]] == ["EMULATED", "EMULATED"]
