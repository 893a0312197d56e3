"""Sparse checkouts from git objects, and one checkout per ref shared by its targets (real git, no torch)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import git
from torchparity.collect.ref_checkouts import RefCheckouts
from torchparity.collect.sparse import CheckoutError, write_checkout
from torchparity.gitrepo import resolve_commit

FILES = {
    "test/npu/test_a.py": "import helper\nfrom .. import nothing\nimport torch\n",
    "test/npu/helper.py": "from sub import deep\n",
    "test/npu/sub/__init__.py": "",
    "test/npu/sub/deep.py": "x = 1\n",
    "test/data/table.json": "{}\n",
    "tools/gen.py": "print(1)\n",
    "torch_npu/__init__.py": "raise ImportError('the repo copy is never imported by a test run')\n",
    "docs/zh/page.md": "# page\n",
    "big/blob.bin": "x" * 5000,
}


def _repo(make_repo) -> tuple[Path, str]:
    repo = make_repo({"master": FILES})
    (repo / "test" / "npu" / "run.sh").write_text("#!/bin/sh\n")
    (repo / "test" / "npu" / "run.sh").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "exec")
    return repo, resolve_commit(repo, "master")


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_whole_roots_the_test_files_and_what_they_import(tmp_path, make_repo):
    """The escape hatch (``whole_roots``, the ``roots`` kind): the roots whole, as before issue 34."""
    repo, commit = _repo(make_repo)
    report = write_checkout(
        repo, commit, tmp_path / "co", ["test/npu"], ["test/npu/test_a.py"], whole_roots=True
    )
    assert _files(tmp_path / "co") == {
        "test/npu/test_a.py",
        "test/npu/helper.py",
        "test/npu/sub/__init__.py",
        "test/npu/sub/deep.py",
        "test/npu/run.sh",
    }
    assert report.files == 5 and "no git worktree" in report.describe()
    assert (tmp_path / "co" / "test" / "npu" / "run.sh").stat().st_mode & 0o111  # the mode is kept
    # bytes as committed
    assert (tmp_path / "co" / "test/npu/sub/deep.py").read_bytes() == FILES[
        "test/npu/sub/deep.py"
    ].encode()


def test_a_module_the_test_imports_outside_the_roots_is_written(tmp_path, make_repo):
    repo, commit = _repo(make_repo)
    files = dict(
        FILES,
        **{
            "test/npu/test_b.py": "from . import helper\nimport shared_helpers\n",
            "test/npu/shared_helpers.py": "from .. import data\n",
        },
    )
    repo = make_repo({"master": files}, name="repo2")
    commit = resolve_commit(repo, "master")
    report = write_checkout(repo, commit, tmp_path / "co", ["test/data"], ["test/npu/test_b.py"])
    assert _files(tmp_path / "co") == {
        "test/data/table.json",
        "test/npu/test_b.py",
        "test/npu/helper.py",
        "test/npu/shared_helpers.py",
        "test/npu/sub/__init__.py",
        "test/npu/sub/deep.py",
    }
    assert report.imported == [
        "test/npu/helper.py",
        "test/npu/shared_helpers.py",
        "test/npu/sub/__init__.py",
        "test/npu/sub/deep.py",
    ]
    assert "torch_npu/__init__.py" not in _files(tmp_path / "co")  # not on python FILE's path


def test_a_missing_blob_elsewhere_is_left_out_and_named(tmp_path, make_repo):
    repo, commit = _repo(make_repo)
    blob = git(repo, "rev-parse", f"{commit}:test/data/table.json").strip()
    (
        repo / ".git" / "objects" / blob[:2] / blob[2:]
    ).unlink()  # the object is gone, the tree names it
    with pytest.raises(Exception):  # noqa: B017 - what a full checkout does today
        git(repo, "worktree", "add", "--detach", str(tmp_path / "wt"), commit)
    report = write_checkout(
        repo, commit, tmp_path / "co", ["test"], ["test/npu/test_a.py"], whole_roots=True
    )
    assert "test/data/table.json" not in _files(tmp_path / "co")
    assert report.left_out == {"test/data/table.json": f"git has no object {blob[:12]}"}
    assert "left out: test/data/table.json" in report.describe()
    with pytest.raises(CheckoutError, match="missing blob"):
        write_checkout(repo, commit, tmp_path / "co2", ["test/npu"], ["test/data/table.json"])


def test_a_huge_blob_is_left_out_unless_the_run_names_it(tmp_path, make_repo):
    repo, commit = _repo(make_repo)
    report = write_checkout(repo, commit, tmp_path / "co", ["big"], [], max_blob=1000)
    assert report.left_out == {"big/blob.bin": "0 MB, over the 0 MB limit"}
    write_checkout(repo, commit, tmp_path / "co2", ["big"], ["big/blob.bin"], max_blob=1000)
    assert (tmp_path / "co2" / "big" / "blob.bin").stat().st_size == 5000


def test_an_overlay_lands_on_top(tmp_path, make_repo):
    repo, commit = _repo(make_repo)
    write_checkout(
        repo,
        commit,
        tmp_path / "co",
        ["test/npu"],
        ["test/npu/test_new.py"],
        overlay=[("test/npu/test_new.py", b"import helper\n")],
    )
    assert (tmp_path / "co" / "test/npu/test_new.py").read_bytes() == b"import helper\n"
    with pytest.raises(CheckoutError, match="not in the tree"):
        write_checkout(repo, commit, tmp_path / "co2", ["test/npu"], ["test/npu/absent.py"])


@dataclass(frozen=True)
class _T:
    label: str
    ref: str
    commit: str
    overlay: tuple[tuple[str, bytes], ...] = ()


def test_one_checkout_per_ref_shared_and_removed_after_its_last_target(tmp_path, make_repo):
    repo = make_repo({"master": FILES, "v2": dict(FILES, **{"test/npu/test_a.py": "x = 2\n"})})
    master, v2 = resolve_commit(repo, "master"), resolve_commit(repo, "v2")
    targets = [
        _T("master@a", "master", master),
        _T("master@b", "master", master),
        _T("v2@a", "v2", v2),
    ]
    co = RefCheckouts(repo, ["test"])
    co.prepare(targets, lambda t: ["test/npu/test_a.py"])
    told: list[tuple[str, int]] = []
    with co(repo, targets[0]) as first:
        with co(repo, targets[1]) as second:
            assert first.path == second.path and first.path.is_dir()
            assert "shared with master@b" in first.description
        assert (
            second.remove_exit_code is None and first.path.exists()
        )  # the other target still runs
        co.when_removed(second.key, lambda code: told.append(("b", code)))
    assert first.remove_exit_code == 0 and not first.path.exists()
    assert told == [("b", 0)]
    co.when_removed(first.key, lambda code: told.append(("late", code)))  # already gone: at once
    assert told[-1] == ("late", 0)
    with co(repo, targets[2]) as third:
        assert (third.path / "test/npu/test_a.py").read_text() == "x = 2\n"
    assert co.made == 2
    co.close()
    assert not any(Path(str(third.path)).parent.glob("*"))


def test_close_removes_what_no_target_released(tmp_path, make_repo):
    repo, commit = _repo(make_repo)
    co = RefCheckouts(repo, ["test"])
    targets = [_T("m@a", "master", commit), _T("m@b", "master", commit)]
    co.prepare(targets, lambda t: ["test/npu/test_a.py"])
    told: list[int] = []
    with co(repo, targets[0]) as only:
        path = only.path
    co.when_removed(only.key, told.append)
    assert path.exists() and not told  # m@b never ran (an interrupt)
    co.close()
    assert not path.exists() and told == [0]


def test_a_failed_checkout_fails_each_of_its_targets_with_the_reason(tmp_path, make_repo):
    repo, commit = _repo(make_repo)
    co = RefCheckouts(repo, ["test"])
    bad = _T("m@a", "master", commit)
    co.prepare([bad], lambda t: ["test/npu/absent.py"])
    with pytest.raises(CheckoutError, match="absent.py is not in the tree"):
        with co(repo, bad):
            pass
    co.close()


def test_worktree_kind_is_a_git_worktree_shared_the_same_way(tmp_path, make_repo):
    repo, commit = _repo(make_repo)
    co = RefCheckouts(repo, kind="worktree")
    targets = [_T("m@a", "master", commit), _T("m@b", "master", commit)]
    co.prepare(targets, lambda t: [])
    seen = []

    def use(t: _T) -> None:
        with co(repo, t) as c:
            seen.append(c)
            assert (c.path / "tools" / "gen.py").exists()  # the whole tree

    threads = [threading.Thread(target=use, args=(t,)) for t in targets]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert co.made == 1 and {c.remove_exit_code for c in seen} == {None, 0}
    assert git(repo, "worktree", "list").count("\n") == 0  # only the main checkout: removed
    co.close()
