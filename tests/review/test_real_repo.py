"""Real merged PR descriptions of a clone of Ascend/pytorch (its merge bot's squash commits carry them).

Skipped unless ``TORCHPARITY_BACKEND_REPO`` names such a clone. Nothing of its text
is kept: the commits are named by id, the texts read from them at test time.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from torchparity.config import load_preset
from torchparity.gitrepo import git
from torchparity.review import review_text
from torchparity.review.records import VERDICTS
from torchparity.review.repo import bot_squash_commits

REPO = os.environ.get("TORCHPARITY_BACKEND_REPO", "")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not REPO, reason="set TORCHPARITY_BACKEND_REPO to a clone of Ascend/pytorch"
    ),
]
CFG = load_preset("torch_npu")

#: squash commits whose description has a claim the repository contradicts: (commit, kind, detail piece)
KNOWN = [
    ("a0c10ef68ad7", "test.qualifier", "`test.npu.test_tensor_ndimension`"),
    ("d8272acd6115", "test.defined", "no test test_new_requester_after_erase_inherits_zero"),
    ("67f1ca1ad098", "test.defined", "no test test_to_folder_module_is_importable"),
    ("30ddf0c27cee", "submodule", "at b64eba7c8abe501cd216f94feddfe12b5c6e2192"),
    ("b2933bc8bc31", "docs", "no entry for torch.Tensor.module_load"),
]


def _review(commit: str):  # type: ignore[no-untyped-def]
    body = git(Path(REPO), "log", "-1", "--format=%B", commit).text
    return review_text(body, REPO, CFG, merge=commit, source=commit)


def test_thirty_api_consistency_descriptions_review_without_a_crash() -> None:
    picked = bot_squash_commits(REPO)[:30]
    assert len(picked) == 30
    claims = 0
    for commit, body in picked:
        review = review_text(body, REPO, CFG, merge=commit, source=commit)
        assert review.commit == commit and review.mode == "merge"
        assert all(v.verdict in VERDICTS and v.detail for v in review.verdicts)
        claims += len(review.verdicts)
    assert claims > 100


@pytest.mark.parametrize("commit, kind, detail", KNOWN)
def test_known_contradictions_are_flagged(commit: str, kind: str, detail: str) -> None:
    if git(Path(REPO), "cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode:
        pytest.skip(f"{commit} is not in this clone")
    review = _review(commit)
    assert any(
        v.kind == kind and v.verdict == "contradicted" and detail in v.detail
        for v in review.verdicts
    ), [(v.kind, v.verdict, v.detail) for v in review.verdicts if v.verdict != "verified"]


def test_the_merged_pr_of_seed_000_verifies() -> None:
    commit = "4fc368051f1f"
    if git(Path(REPO), "cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode:
        pytest.skip(f"{commit} is not in this clone")
    review = _review(commit)
    assert review.ok, [(v.kind, v.text, v.detail) for v in review.contradicted]
    assert any(v.kind == "sha256" and v.verdict == "verified" for v in review.verdicts)
