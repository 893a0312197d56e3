"""A count given on the command line that is below zero is bad input: ``runs --limit -1`` (which SQLite
would read as "no limit") and ``run --jobs -3`` (which ran with one job) exit 2 with one line, before
any work."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import git
from tests.store.evidence import fill
from torchparity.cli import main
from torchparity.exec.fake import answering
from torchparity.exec.runners import Job


@pytest.fixture
def store_contents():
    return fill


def test_runs_with_a_negative_limit_is_refused(store, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "--limit", "-1", "--store", str(store.root)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--limit -1" in err, err
    assert main(["runs", "--limit", "1", "--json", "--store", str(store.root)]) == 0
    assert '"id": 2' in capsys.readouterr().out


def test_run_with_negative_jobs_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "test_x.py").write_text("import unittest\n")
    asked: list[str] = []

    def handler(job: Job) -> dict[str, object]:
        asked.append(job.op)
        return {"exit_code": 0}

    with answering(handler):
        code = main(["run", "test_x.py", "--python", sys.executable, "--jobs", "-3"])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert err.count("\n") == 0 and "--jobs -3" in err, err
    assert asked == [] and not (tmp_path / ".torchparity").exists()


def test_coverage_with_negative_jobs_is_refused(tmp_path, capsys):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty")
    assert main(["coverage", "torch.add", "--repo", str(repo), "--jobs", "-3"]) == 2
    err = capsys.readouterr().err
    assert "--jobs -3: give a positive number" in err and len(err.strip().splitlines()) == 1
