"""One checkout per ref, shared by its environments, and a missing blob elsewhere in the repo (real runs)."""

from __future__ import annotations

import site
import venv

import pytest

from tests.collect import files
from tests.collect.test_collector import _keys, _logs, _records, _run
from tests.conftest import git

pytestmark = pytest.mark.slow

TEST = "test/npu/test_grad.py"


@pytest.fixture(scope="module")
def second_python(tmp_path_factory) -> str:
    """A second environment: a new venv that sees this interpreter's torch through a .pth file."""
    home = tmp_path_factory.mktemp("env2")
    venv.EnvBuilder(with_pip=False).create(home / "venv")
    purelib = next((home / "venv" / "lib").glob("python*/site-packages"))
    (purelib / "torchparity_tests.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return str(home / "venv" / "bin" / "python")


def test_two_environments_share_one_checkout_and_each_log_states_its_removal(
    tmp_path, make_repo, python_with_torch, second_python
):
    repo = make_repo({"master": {TEST: files.SEED_LIKE, "tools/big.txt": "x\n"}})
    assert (
        _run(
            tmp_path,
            TEST,
            "--repo",
            str(repo),
            "--ref",
            "master",
            "--python",
            python_with_torch,
            "--python",
            second_python,
        )
        == 0
    )
    logs = _logs(tmp_path)
    assert len(logs) == 2
    paths = set()
    for label, log in logs.items():
        keys = _keys(log)
        other = next(k for k in logs if k != label)
        assert keys["CHECKOUT"].endswith(f"shared with {other}, removed after the last of them")
        assert "written from git objects" in keys["CHECKOUT"]
        assert keys["master_WORKTREE_REMOVE_EXIT_CODE"] == "0"  # stored after the removal, for both
        paths.add(keys["TEST_FILE"])
    assert len(paths) == 1  # the same files for both environments
    assert git(repo, "worktree", "list").count("\n") == 0
    for rec in _records(tmp_path).values():
        assert rec["worktree_remove_exit_code"] == 0 and rec["result"] == "PASS"


def test_a_missing_blob_outside_what_the_run_reads_does_not_matter(
    tmp_path, make_repo, python_with_torch
):
    repo = make_repo(
        {"master": {TEST: files.SEED_LIKE, "test_upstream/disabled_testcases.json": "{}\n"}}
    )
    blob = git(repo, "rev-parse", "master:test_upstream/disabled_testcases.json").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    assert _run(tmp_path, TEST, "--repo", str(repo), "--python", python_with_torch) == 0
    (log,) = _logs(tmp_path).values()
    assert _keys(log)["RESULT"] == "PASS"
    # and where the run does read it, the target says so (an environment error, not a crash)
    assert (
        _run(
            tmp_path,
            "test_upstream/disabled_testcases.json",
            TEST,
            "--repo",
            str(repo),
            "--python",
            python_with_torch,
        )
        == 3
    )
    (rec,) = _records(tmp_path, 2).values()
    assert rec["result"] == "ERROR"
    assert any("missing blob" in str(n["args"].get("detail", "")) for n in rec["notes"])
