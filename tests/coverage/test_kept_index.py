"""The built index of a ref is kept in the store: a later call with the same inputs loads it (and the
per-file uses an earlier call built) instead of building it, and answers exactly as a fresh build."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.coverage import files
from tests.coverage import types_files as tf
from tests.coverage.conftest import RepoFactory
from torchparity.coverage import Indexer, coverage_for, static_table
from torchparity.store import Store

APIS = [
    "torch.Tensor.ndimension",
    "torch.UntypedStorage.cpu",
    "torch.optim.Optimizer.zero_grad",
    "torch.Stream.query",
    "torch.set_grad_enabled.clone",
    "torch.Tensor.cpu",
    files.API,
]


@pytest.fixture
def repo(cov_repo: RepoFactory) -> Path:
    """Helpers and bases across files, inherited tests, two refs."""
    master = {
        "test/test_tensor_forms.py": tf.TENSORS,
        "test/test_others.py": tf.OTHERS,
        "test/npu/test_across.py": tf.ACROSS,
        "test/npu/helpers.py": tf.HELPERS,
        "test/npu/common.py": tf.COMMON,
        "test/npu/base.py": tf.BASE,
        "test/test_forms.py": files.FORMS,
        "test/npu/test_grad_mode.py": files.TWO_REFS_BASE,
    }
    return cov_repo(
        {"master": master, "v2.7.1": {"test/npu/test_grad_mode.py": files.TWO_REFS_ADDED}}
    )


def _answers(report) -> list[dict]:  # type: ignore[no-untyped-def]
    return [report[a].to_json() for a in APIS]


def _fresh(repo: Path, tmp_path: Path, name: str) -> list[dict]:
    return _answers(
        coverage_for(APIS, repo, ["master", "v2.7.1"], Store(tmp_path / name), grep="fast")
    )


def test_a_kept_index_answers_as_a_fresh_build_without_reading_facts(
    repo: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "s")
    first = coverage_for(APIS, repo, ["master", "v2.7.1"], store, grep="fast")
    assert [ix.kept for ix in first.indexes] == [False, False]
    assert store.query("SELECT COUNT(*) AS n FROM coverage_file_uses")[0]["n"] > 0
    # without any blob's facts, the second call still answers: the kept index and uses are enough
    with store.transaction() as conn:
        conn.execute("DELETE FROM coverage_blob_facts")
    second = coverage_for(APIS, repo, ["master", "v2.7.1"], store, grep="fast")
    assert [ix.kept for ix in second.indexes] == [True, True]
    assert [ix.parsed for ix in second.indexes] == [0, 0]
    assert store.query("SELECT COUNT(*) AS n FROM coverage_blob_facts")[0]["n"] == 0
    assert _answers(second) == _answers(first) == _fresh(repo, tmp_path, "other")


def test_a_query_of_other_apis_reads_facts_for_the_files_not_kept_yet(
    repo: Path, tmp_path: Path
) -> None:
    """A kept index whose files' uses were never built reads those files' facts when asked."""
    store = Store(tmp_path / "s")
    coverage_for(["torch.no_grad"], repo, ["master", "v2.7.1"], store, grep="off")
    with store.transaction() as conn:
        conn.execute("DELETE FROM coverage_file_uses")
    again = coverage_for(APIS, repo, ["master", "v2.7.1"], store, grep="fast")
    assert [ix.kept for ix in again.indexes] == [True, True]
    assert _answers(again) == _fresh(repo, tmp_path, "other")


def test_another_alias_table_or_tree_is_built_again(repo: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    assert not Indexer(store, static_table()).index(repo, "master", ["test"]).kept
    assert Indexer(store, static_table()).index(repo, "master", ["test"]).kept
    assert not Indexer(store, static_table()).index(repo, "v2.7.1", ["test"]).kept  # another tree
    assert (
        not Indexer(store, static_table()).index(repo, "master", ["test/npu"]).kept
    )  # other roots
    learnt = coverage_for(
        [files.API], repo, ["master"], store, aliases={"torch_npu.x.clone": files.API}
    )
    assert not learnt.indexes[0].kept
    assert not Indexer(store, static_table(), keep=False).index(repo, "master", ["test"]).kept


def test_an_unreadable_kept_index_is_built_again(repo: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    first = _answers(coverage_for(APIS, repo, ["master", "v2.7.1"], store, grep="fast"))
    with store.transaction() as conn:
        conn.execute("UPDATE coverage_ref_index SET data=?", (b"\xc1 not msgpack",))
    again = coverage_for(APIS, repo, ["master", "v2.7.1"], store, grep="fast")
    assert [ix.kept for ix in again.indexes] == [False, False]
    assert _answers(again) == first
    assert [ix.kept for ix in coverage_for(APIS, repo, ["master", "v2.7.1"], store).indexes] == [
        True,
        True,
    ]
