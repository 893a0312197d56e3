"""One checkout per commit for a batch; overlays put back; a commit git cannot check out says git's words."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import git
from torchparity.collect import EnvSpec, Target
from torchparity.collect.checkouts import SharedCheckouts, checkouts_folder, remove_leftovers
from torchparity.collect.worktree import CheckoutFailed, worktree

ENV = EnvSpec("e", "python3")


def _drop_blob(repo: Path, rel: str) -> str:
    """Delete the loose object of ``rel`` at HEAD: the repo then lacks that blob, as a clone can."""
    blob = git(repo, "rev-parse", f"HEAD:{rel}")
    os.unlink(repo / ".git" / "objects" / blob[:2] / blob[2:])
    return blob


@pytest.fixture
def repo(make_repo):
    return make_repo(
        {
            "master": {"test/test_a.py": "A = 1\n", "test/data.json": "{}\n"},
            "v2.7.1": {"test/test_b.py": "B = 1\n"},
        }
    )


def test_one_worktree_per_commit_and_overlays_put_back(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    master = git(repo, "rev-parse", "master")
    shared = SharedCheckouts("uid1")
    targets = [
        Target(
            "master",
            master,
            EnvSpec(f"e{i}", "python3"),
            overlay=(("test/test_a.py", b"A = 2\n"), ("test/new.py", b"N = 1\n")),
        )
        for i in range(3)
    ]
    paths = []
    for t in targets:
        with shared(repo, t) as wt:
            for rel, data in t.overlay:  # as the collector writes them
                (wt.path / rel).write_bytes(data)
            paths.append(wt.path)
        assert (wt.path / "test/test_a.py").read_text() == "A = 1\n"  # as committed again
        assert not (wt.path / "test/new.py").exists()
    assert len(set(paths)) == 1 and shared.made == 1
    assert str(paths[0]).startswith(str(checkouts_folder("uid1")))
    assert len(git(repo, "worktree", "list").splitlines()) == 2
    shared.close()
    assert not checkouts_folder("uid1").exists()
    assert len(git(repo, "worktree", "list").splitlines()) == 1


def test_a_missing_blob_keeps_gits_own_cause(repo):
    blob = _drop_blob(repo, "test/data.json")
    master = git(repo, "rev-parse", "master")
    with pytest.raises(CheckoutFailed) as err, worktree(repo, master, "master"):
        pass
    msg = str(err.value)
    # the cause (git's error: line) is kept, not only its last fatal: line
    assert f"unable to read sha1 file of test/data.json ({blob})" in msg
    assert "Could not reset index file" in msg
    assert err.value.note.code == "checkout_failed"
    assert len(git(repo, "worktree", "list").splitlines()) == 1  # nothing half-made left registered


def test_shared_checkout_fails_once_for_every_target_at_that_commit(repo):
    _drop_blob(repo, "test/data.json")
    master = git(repo, "rev-parse", "master")
    shared = SharedCheckouts("uid2")
    errors = []
    for env in ("a", "b"):
        with (
            pytest.raises(CheckoutFailed) as err,
            shared(repo, Target("master", master, EnvSpec(env, "python3"))),
        ):
            pass
        errors.append(err.value)
    assert errors[0] is errors[1] and shared.made == 0
    shared.close()


def test_leftovers_of_a_killed_owner_are_removed(repo):
    master = git(repo, "rev-parse", "master")
    shared = SharedCheckouts("uid3")
    shared.tree(repo, master, "master")  # then the owner is "killed": no close()
    assert checkouts_folder("uid3").exists()
    assert remove_leftovers(repo, "uid3") is True
    assert not checkouts_folder("uid3").exists()
    assert len(git(repo, "worktree", "list").splitlines()) == 1
