"""Which runs ``run --resume`` takes, and the command line it re-runs (a real store)."""

from __future__ import annotations

import pytest

from torchparity.collect.resume import plan_resume
from torchparity.errors import UsageError


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path, monkeypatch):
    """Each test starts in its tmp_path (a run records the folder it was started from)."""
    monkeypatch.chdir(tmp_path)


def test_an_interrupted_run_is_re_run_into_this_store_from_its_folder(store, tmp_path):
    argv = [
        "run",
        "t.py",
        "--store",
        "elsewhere",
        "--python",
        "py",
        "--store=also-elsewhere",
        "--ref",
        "a",
    ]
    run_id = store.new_run("run", argv)
    store.finish_run(run_id, "INCOMPLETE", status="incomplete")
    plan = plan_resume(store, run_id)
    assert plan.run_id == run_id
    assert plan.argv == ["run", "t.py", "--python", "py", "--ref", "a", "--store", str(store.root)]
    assert plan.cwd == tmp_path


def test_a_folder_that_is_gone_resumes_from_here(store, tmp_path, monkeypatch):
    sub = tmp_path / "gone"
    sub.mkdir()
    monkeypatch.chdir(sub)
    run_id = store.new_run("run", ["run", "t.py"])
    store.finish_run(run_id, "INCOMPLETE", status="incomplete")
    monkeypatch.chdir(tmp_path)
    sub.rmdir()
    assert plan_resume(store, run_id).cwd is None


@pytest.mark.parametrize(
    ("kind", "argv", "status", "message"),
    [
        ("verify", ["verify", "torch.add"], "incomplete", "was not made by 'torchparity run'"),
        ("run", ["run", "t.py"], "complete", "is complete; nothing to resume"),
        ("run", ["run", "t.py"], "running", "is still running (pid "),  # this process: alive
    ],
)
def test_runs_that_cannot_be_resumed_say_why(store, kind, argv, status, message):
    run_id = store.new_run(kind, argv)
    if status != "running":
        store.finish_run(run_id, "PASS" if status == "complete" else "INCOMPLETE", status=status)
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        plan_resume(store, run_id)
