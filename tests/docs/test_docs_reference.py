"""Where the tests find real pages: $TORCHPARITY_REFERENCE_DIR (either layout), else the shared folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.docs_pages import (
    REFERENCE_ENV,
    need_reference,
    reference_dir,
    reference_page,
    torch_page,
)


def test_the_env_var_names_a_native_api_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "pytorch_2-7-1" / "torch.md"
    page.parent.mkdir()
    page.write_text(torch_page("table", "2.7.1"), "utf-8")
    monkeypatch.setenv(REFERENCE_ENV, str(tmp_path))
    assert reference_dir() == tmp_path
    assert reference_page("2.7.1", "torch") == page
    assert need_reference("2.7.1", "torch", "table") == page
    assert reference_page("2.11.0", "torch-autograd") is None
    with pytest.raises(pytest.skip.Exception, match="no real torch-autograd page of 2.11.0"):
        need_reference("2.11.0", "torch-autograd")
    with pytest.raises(pytest.skip.Exception, match="table format, not list"):
        need_reference("2.7.1", "torch", "list")


def test_flattened_copies_are_found_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flat = tmp_path / "pytorch_2-11-0_torch-autograd.sample.md"
    flat.write_text(torch_page("list", "2.11.0"), "utf-8")
    monkeypatch.setenv(REFERENCE_ENV, str(tmp_path))
    assert reference_page("2.11.0", "torch-autograd") == flat


def test_an_env_var_that_is_not_a_folder_fails_loudly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REFERENCE_ENV, str(tmp_path / "nope"))
    with pytest.raises(pytest.fail.Exception, match=f"{REFERENCE_ENV}=.*nope is not a folder"):
        need_reference("2.7.1", "torch")
