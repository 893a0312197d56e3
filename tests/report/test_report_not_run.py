"""End to end: a test file that fails at import (its backend is not installed) runs no test, and no
report says that its state was restored or that no state leaked (real torch, real git, real run)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.report.report_fixtures import make_pr_repo
from torchparity.cli import main

# the run answers the agent from a recording of the real one (the `agent` fixture, tests/fakeagent.py)

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
TEST = '''"""Checks torch.autograd.grad_mode.set_grad_enabled.clone on the backend."""

import torch
import torchparity_tests_backend_that_is_not_installed  # noqa: F401
from torch.testing._internal.common_utils import TestCase, run_tests



class TestClone(TestCase):
    def test_set_grad_enabled_clone(self):
        self.assertFalse(torch.set_grad_enabled(False).clone().mode)


if __name__ == "__main__":
    run_tests()
'''


@pytest.fixture
def stored_run(agent: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    repo = make_pr_repo(
        tmp_path / "repo", {"test/test_clone.py": TEST}, messages=("test: add clone test",)
    )
    store = str(tmp_path / "store")
    # no --isolation: as for an API with no linked state
    rc = main(
        [
            "run",
            "test/test_clone.py",
            "--repo",
            str(repo),
            "--python",
            sys.executable,
            "--store",
            store,
        ]
    )
    capsys.readouterr()
    assert rc == 1
    return ["1", "--store", store, "--repo", str(repo), "--range", "master..HEAD", "--api", API]


def test_the_model_and_checklist_say_the_leak_check_did_not_run(stored_run, capsys) -> None:
    assert main(["report", *stored_run, "--kind", "json"]) == 0
    model = json.loads(capsys.readouterr().out)
    (target,) = model["targets"]
    assert target["counts"]["total"] == 0 and target["isolation_passed"] is None
    assert (target["leak_check"], target["leak_tests_watched"]) == ("NOT_RUN", 0)
    assert (
        target["leak_check_reason"] == "test/test_clone.py: no test method ran (FAIL, exit code 1)"
    )
    (item,) = [i for i in model["checklist"]["items"] if i["id"] == "state_restored"]
    assert item["status"] == "n.a.", item["reason"]
    assert "no leak" not in item["reason"] and "NOT_RUN" in item["reason"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_pr_draft_does_not_tick_state_restored(stored_run, capsys, lang) -> None:
    assert main(["report", *stored_run, "--kind", "pr", "--lang", lang]) == 0
    pr = capsys.readouterr().out
    assert "STATE_LEAK_CHECK=NOT_RUN" in pr and "STATE_LEAK_CHECK=PASS" not in pr
    if lang == "zh":
        assert "隔离验证：未运行" in pr
        assert (
            "状态泄漏检查：未运行（`test/test_clone.py: no test method ran (FAIL, exit code 1)`）"
            in pr
        )
        assert "[x] 测试结束后全局状态恢复（隔离验证）" not in pr
        assert (
            "- [ ] 测试结束后全局状态恢复（隔离验证）（不适用：未运行隔离验证；状态泄漏检查结果为 NOT_RUN"
            in pr
        )
    else:
        assert "Isolation: not run" in pr
        assert (
            "State-leak check: not run (`test/test_clone.py: no test method ran (FAIL, exit code 1)`)."
            in pr
        )
        assert "[x] Global state is restored" not in pr


def test_the_summary_does_not_count_zero_leaks(stored_run, capsys) -> None:
    assert main(["report", *stored_run[:3], "--kind", "markdown-summary", "--lang", "en"]) == 0
    row = next(
        ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ") and "HEAD@" in ln
    )
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[9:11] == ["not run", "not run"]  # isolation, leaks
