"""A sparse checkout writes what the run reads, not its test roots whole; a blob read for one ref is
not read from git again for another (real git, no torch)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import git
from torchparity.collect import sparse
from torchparity.collect.ref_checkouts import KIND_VARIABLE, RefCheckouts
from torchparity.collect.sparse import BlobCache, write_checkout
from torchparity.errors import UsageError
from torchparity.gitrepo import resolve_commit

TEST = "test/npu/test_a.py"
FILES = {
    TEST: (
        "import os\nimport helper\nfrom jit_utils import check\n"
        "HERE = os.path.dirname(__file__)\n"
        "W = os.path.join(HERE, 'base_data/w.bin')\n"
        "D = os.path.join(os.path.dirname(HERE), 'deprecated.json')\n"
        "class TestA:\n    def test_x(self):\n        self.assertExpected('x')\n"
    ),
    "test/npu/helper.py": "VALUE = 1\n",
    "test/npu/test_b.py": "import other_helper\n",  # a sibling test file: not this run's
    "test/npu/other_helper.py": "X = 2\n",
    "test/npu/base_data/w.bin": "weights\n",
    "test/npu/big_data/blob.bin": "unrelated\n",
    "test/npu/expect/TestA.test_x.expect": "x",
    "test/npu/expect/TestB.test_y.expect": "y",
    "test/npu/__init__.py": "",
    "test/conftest.py": "import fixtures_helper\n",
    "test/fixtures_helper.py": "",
    "test/jit_utils.py": "def check(): pass\n",
    "test/deprecated.json": "[]\n",
    "test/other/test_c.py": "",
    "test/other/conftest.py": "",
    "torch_npu/__init__.py": "raise ImportError('the repo copy is never imported by a test run')\n",
}
#: what the run of TEST reads
SELECTED = {
    TEST,
    "test/npu/helper.py",  # imported from the file's folder
    "test/jit_utils.py",  # imported from its test root (a test that puts the root on sys.path)
    "test/npu/base_data/w.bin",  # a data file named by a path relative to the file's folder
    "test/deprecated.json",  # ... and by a name relative to the folder above
    "test/npu/expect/TestA.test_x.expect",  # assertExpected of its class
    "test/npu/__init__.py",  # on the path from the test root: as CI runs the file
    "test/conftest.py",
    "test/fixtures_helper.py",  # imported by the conftest.py
}


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _blobs(repo: Path, ref: str, paths: set[str]) -> set[str]:
    return {git(repo, "rev-parse", f"{ref}:{p}").strip() for p in paths}


@pytest.mark.parametrize("roots", [["test"], []], ids=["run", "verify"])
def test_a_checkout_of_one_file_holds_it_what_it_imports_and_needs_not_its_siblings(
    tmp_path, make_repo, roots
):
    """``run`` names the test root (the file's top folder); ``verify`` names none: the top folder."""
    repo = make_repo({"master": FILES})
    report = write_checkout(repo, resolve_commit(repo, "master"), tmp_path / "co", roots, [TEST])
    assert _files(tmp_path / "co") == SELECTED
    assert report.whole == () and report.files == len(SELECTED)
    assert report.imported == ["test/fixtures_helper.py", "test/jit_utils.py", "test/npu/helper.py"]
    assert "test/npu/test_b.py" not in report.describe()
    assert "the test files and what they import and need" in report.describe()
    assert (tmp_path / "co" / "test/npu/base_data/w.bin").read_text() == "weights\n"


def test_the_roots_kind_still_writes_the_root_whole(tmp_path, make_repo):
    repo = make_repo({"master": FILES})
    report = write_checkout(
        repo, resolve_commit(repo, "master"), tmp_path / "co", ["test"], [TEST], whole_roots=True
    )
    assert _files(tmp_path / "co") == {p for p in FILES if p.startswith("test/")}
    assert report.whole == ("test",) and "test whole" in report.describe()


def test_a_missing_data_blob_is_left_out_and_named_and_the_run_goes_on(tmp_path, make_repo):
    repo = make_repo({"master": FILES})
    commit = resolve_commit(repo, "master")
    blob = git(repo, "rev-parse", f"{commit}:test/deprecated.json").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    report = write_checkout(repo, commit, tmp_path / "co", ["test"], [TEST])
    assert _files(tmp_path / "co") == SELECTED - {"test/deprecated.json"}
    assert report.left_out == {"test/deprecated.json": f"git has no object {blob[:12]}"}


def test_an_overlays_imports_are_read_from_its_own_bytes(tmp_path, make_repo):
    repo = make_repo({"master": FILES})
    write_checkout(
        repo,
        resolve_commit(repo, "master"),
        tmp_path / "co",
        ["test"],
        ["test/npu/test_new.py"],
        overlay=[("test/npu/test_new.py", b"import other_helper\n")],
    )
    assert _files(tmp_path / "co") == {
        "test/npu/test_new.py",
        "test/npu/other_helper.py",
        "test/npu/__init__.py",
        "test/conftest.py",
        "test/fixtures_helper.py",
    }


class _Counting:
    """Every blob asked of git, by the stream and by the one-at-a-time reader."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.asked: list[str] = []
        stream, reader = sparse.stream_blobs, sparse.BlobReader
        counting = self

        def stream_blobs(repo, blobs):
            counting.asked.extend(blobs)
            return stream(repo, blobs)

        class Reader(reader):  # type: ignore[misc,valid-type]
            def read(self, blob: str) -> bytes | None:
                counting.asked.append(blob)
                return super().read(blob)

        monkeypatch.setattr(sparse, "stream_blobs", stream_blobs)
        monkeypatch.setattr(sparse, "BlobReader", Reader)


def test_a_second_refs_checkout_does_not_read_the_same_blobs_again(
    tmp_path, make_repo, monkeypatch
):
    changed = "class TestA:\n    pass\nimport helper\n"
    repo = make_repo({"master": FILES, "v2": {TEST: changed}})
    master, v2 = resolve_commit(repo, "master"), resolve_commit(repo, "v2")
    counting = _Counting(monkeypatch)
    cache = BlobCache()
    first = write_checkout(repo, master, tmp_path / "a", ["test"], [TEST], cache=cache)
    assert first.reused == 0 and len(set(counting.asked)) == len(counting.asked)
    counting.asked.clear()
    second = write_checkout(repo, v2, tmp_path / "b", ["test"], [TEST], cache=cache)
    # only the test file changed: it alone is read; its helper, the conftest.py, ... come from memory
    assert counting.asked == [git(repo, "rev-parse", f"{v2}:{TEST}").strip()]
    assert second.reused == second.files - 1 > 0
    assert "from another checkout's read of the same blob" in second.describe()
    assert (tmp_path / "b" / TEST).read_text() == changed
    assert (tmp_path / "b" / "test/npu/helper.py").read_text() == "VALUE = 1\n"
    assert cache.read_from_git == len(_blobs(repo, "master", SELECTED)) + 1


@dataclass(frozen=True)
class _T:
    label: str
    ref: str
    commit: str
    overlay: tuple[tuple[str, bytes], ...] = ()


def test_the_checkouts_of_one_collect_share_their_blobs(tmp_path, make_repo, monkeypatch):
    repo = make_repo({"master": FILES, "v2": {"test/npu/helper.py": "VALUE = 2\n"}})
    targets = [_T("master@a", "master", resolve_commit(repo, "master"))]
    targets.append(_T("v2@a", "v2", resolve_commit(repo, "v2")))
    counting = _Counting(monkeypatch)
    co = RefCheckouts(repo, ["test"])
    co.prepare(targets, lambda t: [TEST])
    for t in targets:
        with co(repo, t) as c:
            assert _files(c.path) == SELECTED
    co.close()
    # made side by side (two makers): a blob the other is reading is waited for, not read again
    assert co.made == 2 and sorted(counting.asked) == sorted(
        _blobs(repo, "master", SELECTED) | _blobs(repo, "v2", {"test/npu/helper.py"})
    )


def test_the_variable_picks_the_kind_where_the_caller_left_the_default(
    tmp_path, make_repo, monkeypatch
):
    repo = make_repo({"master": FILES})
    monkeypatch.setenv(KIND_VARIABLE, "roots")
    co = RefCheckouts(repo, ["test"])
    assert co.kind == "roots"
    target = _T("master@a", "master", resolve_commit(repo, "master"))
    co.prepare([target], lambda t: [TEST])
    with co(repo, target) as c:
        assert "test/npu/test_b.py" in _files(c.path)
    co.close()
    assert RefCheckouts(repo, kind="worktree").kind == "worktree"  # a kind asked for stays
    monkeypatch.setenv(KIND_VARIABLE, "whole")
    with pytest.raises(UsageError, match=f"{KIND_VARIABLE}='whole': one of sparse, roots"):
        RefCheckouts(repo)
