"""A PR names where the docs pages were read (issue 35).

Seen on Ascend/pytorch: 已检查 Native API 资料（/tmp/real/ascend/docs/zh/api/native_api） named a folder of
the clone's working tree at master while the PR targeted v2.7.1, where no such folder exists; no commit was
named. The docs record now keeps the folder relative to its repository, the branch and commit of the
working tree it was read from, and whether the folder had changes not committed there.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, write
from tests.report.report_fixtures import DOCS_CHECK, build_fixture
from torchparity.records import DocsCheckRecord
from torchparity.report import build_report, render
from torchparity.store import read_run
from torchparity.verify.pipeline import _read_where


def test_the_docs_record_says_where_the_pages_were_read(make_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = make_repo({"master": {"docs/zh/api/native_api/pytorch_2-7-1/torch.md": "# torch\n"}})
    rec = DocsCheckRecord.from_json(DOCS_CHECK)
    where = _read_where(rec, repo / "docs/zh/api/native_api")
    head = git(repo, "rev-parse", "HEAD")
    assert (where.repo_path, where.branch, where.commit, where.modified) == (
        "docs/zh/api/native_api",
        "master",
        head,
        False,
    )
    write(repo / "docs/zh/api/native_api/pytorch_2-7-1/torch.md", "# torch\nedited\n")
    assert _read_where(rec, repo / "docs/zh/api/native_api").modified is True
    outside = tmp_path / "pages"
    outside.mkdir()
    assert _read_where(rec, outside) == rec


def test_the_pr_names_the_branch_and_commit_the_pages_were_read_at(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path)
    runs = [read_run(fx.store, r) for r in fx.runs]
    dc = runs[0].docs_check
    assert dc is not None
    runs[0] = runs[0].__class__(
        **{
            **runs[0].__dict__,
            "docs_check": dc.replace(
                repo_path="docs/zh/api/native_api",
                branch="master",
                commit="9e73e708a" + "0" * 31,
                modified=True,
            ),
        }
    )
    model = build_report(runs)
    zh, en = render(model, "pr", "zh"), render(model, "pr", "en")
    assert (
        "（`docs/zh/api/native_api`，读自 master 9e73e708a000 的工作区，其中有未提交的修改）" in zh
    )
    assert (
        "(`docs/zh/api/native_api`, read from the working tree at master 9e73e708a000, with changes not committed)"
        in en
    )
