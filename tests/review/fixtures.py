"""A backend repository with a squash-merged PR and a squash-merged docs PR, built with real git.

::

    master   c0 (tests, docs pages without clone, gitlink OLD) ─── DS (docs PR !202, squash: clone entries)
    v2.7.1   c0 ── B (baseline) ── M (PR !101, squash of S: test_set_grad_enabled_clone, gitlink NEW)
    v2.9.0 / v2.10.0 at c0

The source commit S and the docs commit D are squashed away (their branches
deleted, the objects pruned): the repository does not have them, as a real
squash-merging forge does not.
"""

from __future__ import annotations

import hashlib
import textwrap
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import git
from tests.docs.docs_pages import torch_page

SUB_OLD = "1" * 40
SUB_NEW = "2" * 40
SUB_PATH = "third_party/op-plugin"
TEST_FILE = "test/npu/test_grad.py"
DOCS = "docs/zh/api/native_api"
API = "torch.autograd.grad_mode.set_grad_enabled.clone"

TEST_BEFORE = """\
import torch
from torch_npu.testing.testcase import TestCase, run_tests


class TestGrad(TestCase):
    def test_enable_grad(self):
        self.assertTrue(True)

    def test_no_grad(self):
        self.assertTrue(True)
"""
TEST_CLONE = """
    def test_set_grad_enabled_clone(self):
        ctx = torch.set_grad_enabled(False)
        self.assertIsNot(ctx, ctx.clone())
"""
TEST_MAIN = """

if __name__ == "__main__":
    run_tests()
"""
GENERATED = """\
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase, run_tests


class TestOps(TestCase):
    def test_add(self, device):
        pass


instantiate_device_type_tests(TestOps, globals())

if __name__ == "__main__":
    run_tests()
"""


def _write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def _docs(repo: Path, with_clone: bool) -> None:
    for version, fmt in (("2.7.1", "table"), ("2.11.0", "list")):
        _write(
            repo,
            f"{DOCS}/pytorch_{version.replace('.', '-')}/torch.md",
            torch_page(fmt, version, with_clone=with_clone),
        )


def _gitlink(repo: Path, sha: str) -> None:
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sha},{SUB_PATH}")


@dataclass(frozen=True)
class BackendRepo:
    path: Path
    c0: str
    base: str  # B: v2.7.1 before the PR
    source: str  # S: the PR's commit (squashed away)
    merge: str  # M: the squash commit on v2.7.1
    docs_base: str  # master before the docs PR
    docs_commit: str  # D (squashed away)
    docs_merge: str  # DS: the docs PR's squash on master
    file_sha256: str  # of TEST_FILE at M
    old_file_sha256: str  # of TEST_FILE before the PR


def build(root: Path) -> BackendRepo:
    repo = root / "backend"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "master")
    _write(repo, TEST_FILE, TEST_BEFORE + TEST_MAIN)
    _write(repo, "test/npu/test_generated.py", GENERATED)
    _docs(repo, with_clone=False)
    git(repo, "add", "-A")
    _gitlink(repo, SUB_OLD)
    git(repo, "commit", "-qm", "initial")
    c0 = git(repo, "rev-parse", "HEAD")
    for branch in ("v2.7.1", "v2.9.0", "v2.10.0"):
        git(repo, "branch", branch)
    git(repo, "checkout", "-q", "v2.7.1")
    _write(repo, "README.md", "v2.7.1 line\n")
    git(repo, "add", "README.md")  # not -A: that would drop the gitlink, which has no folder here
    git(repo, "commit", "-qm", "v2.7.1: readme")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "pr/clone-v2.7.1")
    _write(repo, TEST_FILE, TEST_BEFORE + TEST_CLONE + TEST_MAIN)
    git(repo, "add", TEST_FILE)
    _gitlink(repo, SUB_NEW)
    git(repo, "commit", "-qm", "test: add clone coverage for set_grad_enabled")
    source = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "v2.7.1")
    git(repo, "merge", "-q", "--squash", "pr/clone-v2.7.1")
    git(
        repo,
        "commit",
        "-qm",
        textwrap.dedent("""\
        [v2.7.1] test: add clone coverage for set_grad_enabled

        # message auto-generated for no-merge-commit merge:
        !101 merge pr/clone-v2.7.1 into v2.7.1
        """),
    )
    merge = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "master")
    docs_base = c0
    git(repo, "checkout", "-q", "-b", "docs/clone")
    _docs(repo, with_clone=True)
    git(repo, "add", DOCS)
    git(repo, "commit", "-qm", "docs: add support status for set_grad_enabled.clone")
    docs_commit = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "master")
    git(repo, "merge", "-q", "--squash", "docs/clone")
    git(repo, "commit", "-qm", "docs: add support status\n\n!202 merge docs/clone into master\n")
    docs_merge = git(repo, "rev-parse", "HEAD")
    git(repo, "branch", "-q", "-D", "pr/clone-v2.7.1", "docs/clone")
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")
    return BackendRepo(
        path=repo,
        c0=c0,
        base=base,
        source=source,
        merge=merge,
        docs_base=docs_base,
        docs_commit=docs_commit,
        docs_merge=docs_merge,
        file_sha256=hashlib.sha256((TEST_BEFORE + TEST_CLONE + TEST_MAIN).encode()).hexdigest(),
        old_file_sha256=hashlib.sha256((TEST_BEFORE + TEST_MAIN).encode()).hexdigest(),
    )
