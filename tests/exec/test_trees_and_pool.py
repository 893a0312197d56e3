"""The ref's files shipped to a node (git archive), the node's path mapping, and the local pool."""

from __future__ import annotations

import os

import pytest

from tests.conftest import git
from torchparity.collect import EnvSpec
from torchparity.exec.pool import LocalPool
from torchparity.exec.ray_node import remap
from torchparity.exec.trees import ArchiveFailed, archive, tree_key, unpack


@pytest.fixture
def repo(make_repo):
    return make_repo(
        {
            "master": {
                "test/test_a.py": "A = 1\n",
                "test/fixtures/x.json": "{}\n",
                "src/big.c": "int x;\n",
            }
        }
    )


def test_archive_carries_the_test_roots_and_skips_roots_the_ref_lacks(repo, tmp_path):
    master = git(repo, "rev-parse", "master")
    data = archive(
        repo, master, "master", ["test", "test_upstream"]
    )  # test_upstream is not at this ref
    tree = unpack(data, tmp_path / "t" / tree_key(master, ["test", "test_upstream"]))
    assert (tree / "test/test_a.py").read_text() == "A = 1\n"
    assert (tree / "test/fixtures/x.json").exists()  # a fixture beside the test comes with it
    assert not (tree / "src").exists()
    assert unpack(b"not even gzip", tree) == tree  # unpacked once: a second job reuses it
    assert tree_key(master, ["b", "a"]) == tree_key(master, ["a", "b"]) != tree_key(master, ["a"])


def test_archive_of_a_missing_blob_says_gits_words(repo):
    blob = git(repo, "rev-parse", "HEAD:test/fixtures/x.json")
    os.unlink(repo / ".git" / "objects" / blob[:2] / blob[2:])
    with pytest.raises(ArchiveFailed, match=f"git archive of test at master .*{blob}"):
        archive(repo, git(repo, "rev-parse", "master"), "master", ["test"])


def test_remap_moves_only_paths_under_the_checkout():
    job = {
        "path": "/wt/a/test/t.py",
        "argv": ["-v", "/wt/a/x"],
        "cwd": "/wt/a",
        "other": "/wt/ab/t.py",
        "n": 3,
    }
    assert remap(job, "/wt/a", "/node/tree") == {
        "path": "/node/tree/test/t.py",
        "argv": ["-v", "/node/tree/x"],
        "cwd": "/node/tree",
        "other": "/wt/ab/t.py",
        "n": 3,
    }


def test_local_pool_lends_workers_per_interpreter_round_robin(python_with_torch):
    pool = LocalPool("warm", "", workers=2)
    env_a, env_b = EnvSpec("a", python_with_torch), EnvSpec("b", python_with_torch)
    lent = [pool.runner_for(env_a, "cpu") for _ in range(4)]
    assert lent[0] is lent[2] and lent[1] is lent[3] and lent[0] is not lent[1]
    assert (
        pool.runner_for(env_b, "cpu") in lent
    )  # the same interpreter and device: the same workers
    assert pool.runner_for(env_a, "cuda") not in lent
    assert pool.started == 3  # nothing started a process yet: a warm worker starts at its first job
    pool.close()
