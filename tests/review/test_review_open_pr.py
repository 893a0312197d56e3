"""A PR not merged yet, reviewed at its head: the branch it targets, and official tests run by id.

Found on Ascend/pytorch (seed 000's task at v2.7.1 with ``--range``): ``This PR targets v2.7.1.`` was
contradicted because an unmerged head is never in its target's history; the Chinese sentence of the same
line (``本 PR 面向目标分支 v2.7.1。``) was not read at all; and an official test run by id as
``python test/x.py CtxManagerTests.test_a -v`` was held against the whole file's count.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git
from tests.report.report_fixtures import GIT_ENV
from torchparity.config import load_preset
from torchparity.review import review_text

CFG = load_preset("torch_npu")
TESTS = """\
import unittest


class CtxManagerTests(unittest.TestCase):
    def test_a(self):
        pass

    def test_b(self):
        pass

    def test_c(self):
        pass
"""


def _repo(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "backend"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "master", env=GIT_ENV)
    (repo / "test").mkdir()
    (repo / "test/test_ctx.py").write_text(TESTS)
    git(repo, "add", "-A", env=GIT_ENV)
    git(repo, "commit", "-q", "-m", "init", env=GIT_ENV)
    git(repo, "checkout", "-q", "-b", "v2.7.1", env=GIT_ENV)
    (repo / "README.md").write_text("release\n")
    git(repo, "add", "-A", env=GIT_ENV)
    git(repo, "commit", "-q", "-m", "release", env=GIT_ENV)
    git(repo, "checkout", "-q", "-b", "pr/clone", env=GIT_ENV)
    (repo / "test/test_new.py").write_text("# new\n")
    git(repo, "add", "-A", env=GIT_ENV)
    git(repo, "commit", "-q", "-m", "[v2.7.1]test: add", env=GIT_ENV)
    return repo, git(repo, "rev-parse", "HEAD")


def _scope(text: str, repo: Path, head: str) -> list[tuple[str, str]]:
    review = review_text(text, repo, CFG, head=head)
    return [(v.verdict, v.detail) for v in review.verdicts if v.kind == "scope"]


def test_an_open_pr_built_on_its_target_branch_targets_it(tmp_path: Path) -> None:
    repo, head = _repo(tmp_path)
    for text in (
        "# 【分支范围】\n\n本 PR 面向目标分支 v2.7.1。\n",
        "# Branch scope\n\nThis PR targets v2.7.1.\n",
    ):
        ((verdict, detail),) = _scope(text, repo, "pr/clone")
        assert verdict == "verified" and "built on v2.7.1" in detail, (text, detail)
    # master is in the head's history too, but a branch the head is not built on stays contradicted
    git(repo, "checkout", "-q", "master", env=GIT_ENV)
    (repo / "other.txt").write_text("later\n")
    git(repo, "add", "-A", env=GIT_ENV)
    git(repo, "commit", "-q", "-m", "later on master", env=GIT_ENV)
    ((verdict, _),) = _scope("本 PR 面向目标分支 master。\n", repo, head)
    assert verdict == "contradicted"


def test_a_unittest_run_of_class_dot_test_ids_is_a_selection(tmp_path: Path) -> None:
    repo, head = _repo(tmp_path)
    text = (
        "# 【功能验证】\n\n```bash\npython test/test_ctx.py CtxManagerTests.test_a CtxManagerTests.test_b -v\n```\n\n"
        "```\ntest_a (__main__.CtxManagerTests.test_a) ... ok\ntest_b (__main__.CtxManagerTests.test_b) ... ok\n\n"
        "----------------------------------------------------------------------\nRan 2 tests in 0.001s\n\nOK\n```\n"
    )
    review = review_text(text, repo, CFG, head=head)
    bad = [(v.kind, v.text, v.detail) for v in review.verdicts if v.verdict == "contradicted"]
    assert bad == []
    assert any(v.kind == "test.defined" and v.verdict == "verified" for v in review.verdicts)


def test_a_log_line_that_mentions_pytest_is_no_command() -> None:
    """``RESULTS_FROM=... a pytest plugin`` above an isolation probe's output was read as its command."""
    from torchparity.review import parse_text

    text = (
        "```text\nRESULTS_FROM=the test runner's result API (a pytest plugin), sent over the pipe\n"
        "test_a (test_ctx.CtxManagerTests.test_a) ... ok\n\n"
        "----------------------------------------------------------------------\nRan 1 test in 0.001s\n\nOK\n"
        "COMMAND=python test/test_ctx.py -v\n```\n"
    )
    (run,) = parse_text(text).runs
    assert run.command == "" and run.ran == 1
