"""Pages that ``torchparity.docs`` refuses to read (a NUL byte, a folder or FIFO named like a page, a version
folder linked to another version's) make the docs claims about them unverifiable, saying why; the rest of
the review goes on (before: the refusal ended the whole review, exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.review import texts
from tests.review.fixtures import BackendRepo
from torchparity.config import load_preset
from torchparity.docs import tree as tree_module
from torchparity.errors import UsageError
from torchparity.review import review_text

CFG = load_preset("torch_npu")
WHY = "pytorch_2-7-1 in native_api is a symlink to native_api, not a folder of 2.7.1's pages"


def test_a_refused_version_folder_makes_its_docs_claims_unverifiable(
    backend: BackendRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tree_module.page_files

    def page_files(folder: Path) -> list[Path]:
        if folder.name == "pytorch_2-7-1":
            raise UsageError(WHY)
        return real(folder)

    monkeypatch.setattr(tree_module, "page_files", page_files)
    review = review_text(
        texts.seed_shape(texts.truth(backend)), backend.path, CFG, merge=backend.merge
    )
    docs = [v for v in review.verdicts if v.kind in ("docs", "docs.status")]
    refused = [v for v in docs if "pytorch_2-11-0" not in v.text]
    assert len(refused) == 5 and all(v.verdict == "unverifiable" for v in refused)
    assert all(v.detail == f"the pages cannot be read: {WHY}" for v in refused), [
        v.detail for v in refused
    ]
    (other_version,) = [
        v for v in docs if "pytorch_2-11-0" in v.text
    ]  # a claim about 2.11.0 alone reads on
    assert other_version.verdict == "verified"
    others = [v for v in review.verdicts if v.kind not in ("docs", "docs.status")]
    assert any(v.verdict == "verified" for v in others)  # the other claims are checked as before
