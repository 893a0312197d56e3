"""The per-ref index: git objects only, facts cached per blob in the store, bad files skipped."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.coverage import files
from tests.coverage.conftest import RepoFactory, git
from torchparity.coverage import Indexer, coverage_for, static_table
from torchparity.coverage.extract import VERSION
from torchparity.coverage.index import BlobCache, extract_all
from torchparity.errors import UsageError
from torchparity.store import Store


def _many(n: int) -> dict[str, str]:
    return {
        f"test/pkg{i % 3}/test_m{i}.py": f"import torch\n\ndef test_{i}():\n    torch.zeros({i})\n"
        for i in range(n)
    }


def test_a_second_branch_parses_only_its_new_blobs(cov_repo: RepoFactory, tmp_path: Path) -> None:
    master = _many(30)
    repo = cov_repo(
        {
            "master": master,
            "v2.7.1": {
                "test/pkg0/test_m0.py": "import torch\n\ndef test_new():\n    torch.ones(1)\n",
                "test/test_added.py": "def test_added():\n    pass\n",
            },
        }
    )
    store = Store(tmp_path / "store")
    first = Indexer(store, static_table(), keep=False).index(repo, "master", ["test"])
    assert (first.parsed, first.cached, len(first.files)) == (30, 0, 30)
    second = Indexer(store, static_table(), keep=False).index(repo, "v2.7.1", ["test"])
    assert (second.parsed, second.cached, len(second.files)) == (2, 29, 31)
    # a new run (new Indexer, same store) parses nothing
    again = Indexer(store, static_table(), keep=False).index(repo, "master", ["test"])
    assert (again.parsed, again.cached) == (0, 30)
    assert BlobCache(store).count() == 32
    # one Indexer across refs reuses what it built in memory
    ix = Indexer(store, static_table(), keep=False)
    ix.index(repo, "master", ["test"])
    both = ix.index(repo, "v2.7.1", ["test"])
    assert (both.parsed, both.cached) == (0, 2)


def test_facts_of_another_extractor_version_are_made_again(
    cov_repo: RepoFactory, tmp_path: Path
) -> None:
    repo = cov_repo({"master": {"test/test_a.py": "def test_a():\n    pass\n"}})
    store = Store(tmp_path / "store")
    Indexer(store, static_table(), keep=False).index(repo, "master", ["test"])
    with store.transaction() as conn:
        conn.execute("UPDATE coverage_blob_facts SET version=?", (VERSION - 1,))
    again = Indexer(store, static_table(), keep=False).index(repo, "master", ["test"])
    assert (again.parsed, again.cached) == (1, 0)
    row = store.query("SELECT version, facts FROM coverage_blob_facts")[0]
    assert row["version"] == VERSION and json.loads(row["facts"])["f"][0][0] == "test_a"


def test_the_process_pool_gives_what_one_process_gives() -> None:
    blobs = {
        f"{i:040x}": f"import torch as t\ndef test_{i}():\n    t.no_grad().clone()\n".encode()
        for i in range(40)
    }
    assert extract_all(blobs, jobs=2) == extract_all(blobs, jobs=1)


def test_only_git_objects_are_read(cov_repo: RepoFactory, tmp_path: Path) -> None:
    """The working tree is never looked at: a bare clone and a dirty checkout index the same."""
    repo = cov_repo({"master": {"test/test_forms.py": files.FORMS}})
    (repo / "test" / "test_forms.py").write_text("garbage that does not parse (")
    (repo / "test" / "test_untracked.py").write_text("def test_x():\n    pass\n")
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    store = Store(tmp_path / "store")
    a = Indexer(store, static_table(), keep=False).index(repo, "master", ["test"])
    b = Indexer(store, static_table(), keep=False).index(bare, "master", ["test"])
    assert a.files == b.files and a.skipped == [] and a.tests == b.tests == 12


def test_bad_files_are_skipped_counted_and_named(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo(
        {
            "master": {
                "test/test_ok.py": "import torch\n\ndef test_ok():\n    torch.no_grad().clone()\n",
                "test/test_syntax.py": "def test_broken(:\n    pass\n",
                "test/test_latin.py": b"def test_x():\n    s = '\xe9t\xe9'\n",
                "test/data/blob.py": b"\x00\x01\x02binary",
            }
        }
    )
    report = coverage_for(["torch.no_grad.clone"], repo, None, Store(tmp_path / "s"), grep="off")
    ref = report.to_json()[0]["refs"][0]
    skipped = {s["path"]: s["why"] for s in ref["skipped_files"]}
    assert set(skipped) == {"test/test_syntax.py", "test/test_latin.py", "test/data/blob.py"}
    assert skipped["test/test_syntax.py"].startswith("syntax error at line 1")
    assert skipped["test/test_latin.py"].startswith("not UTF-8 text (byte 0xe9")
    assert [h["test"] for h in ref["direct"]] == ["test/test_ok.py::test_ok"]
    assert ref["files"] == 4


def test_test_roots_limit_what_is_indexed(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo(
        {
            "master": {
                "test/test_a.py": "def test_a():\n    pass\n",
                "tests/unit/test_b.py": "def test_b():\n    pass\n",
                "src/mod.py": "def test_not_a_test_root():\n    pass\n",
            }
        }
    )
    ix = Indexer(Store(tmp_path / "s"), static_table())
    assert [p for p, _ in ix.index(repo, "master", ["test"]).files] == ["test/test_a.py"]
    assert [p for p, _ in ix.index(repo, "master", ["./tests/unit/", "test"]).files] == [
        "test/test_a.py",
        "tests/unit/test_b.py",
    ]
    with pytest.raises(UsageError, match="not inside the repository"):
        ix.index(repo, "master", ["../elsewhere"])


def test_unknown_ref_and_not_a_repo_are_usage_errors(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo({"master": {"test/test_a.py": "def test_a():\n    pass\n"}})
    ix = Indexer(Store(tmp_path / "s"), static_table())
    with pytest.raises(UsageError, match="unknown ref 'v9.9.9'"):
        ix.index(repo, "v9.9.9", ["test"])
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(UsageError, match="is not a git repository"):
        ix.index(plain, "HEAD", ["test"])
    with pytest.raises(UsageError, match="repository folder not found"):
        ix.index(tmp_path / "missing", "HEAD", ["test"])
    assert git(repo, "status", "--porcelain") == ""
