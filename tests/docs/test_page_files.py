"""What ``docs`` reads as a page, and as a version: a regular UTF-8 file without NUL bytes, in its own
version's folder. A folder or FIFO named like a page, a NUL byte, a version folder that is a symlink to
another folder, an API name that is no dotted name, and a read-only page (for root too) are refused with
one line (exit 2), never read as "no entry" or as another version's page, never written."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from tests.docs.docs_pages import PRODUCTS
from torchparity.cli import main
from torchparity.docs import DocsTree, add_entry, check_api, lint_paths, read_page
from torchparity.errors import UsageError

CLONE = "torch.autograd.grad_mode.set_grad_enabled.clone"
PARENT = "torch.autograd.grad_mode.set_grad_enabled"


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    cap = capsys.readouterr()
    (line,) = cap.err.strip().splitlines()
    assert cap.out == "" and line.startswith("ERROR: ")
    return line


# -- the API names `docs check` takes ----------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["", "not an api", "torch..numel", "torch.numel.", "1torch.x", "torch.numel()", " torch.numel"],
)
def test_a_name_that_is_no_api_name_is_bad_input(
    docs_dir: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: exit 1 and a MISSING row for every version (as if the API had no entry)."""
    assert main(["docs", "check", name, "--docs", str(docs_dir)]) == 2
    line = _one_error(capsys)
    assert repr(name) in line and "torch.autograd.grad_mode.set_grad_enabled.clone" in line
    assert "dotted" in line


def test_one_bad_name_among_good_ones_is_refused_before_any_is_checked(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["docs", "check", "torch.numel", "not an api", "--docs", str(docs_dir), "--json"]) == 2
    )
    assert "'not an api'" in _one_error(capsys)
    assert (
        main(
            ["docs", "add", "", "--docs", str(docs_dir), "--status", "910b=支持,A3=支持,950=不支持"]
        )
        == 2
    )
    assert "''" in _one_error(capsys)


def test_real_names_still_pass(docs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "docs",
                "check",
                "torch.numel",
                "torch.nn.Module.__init__",
                "torch_npu.npu.Event",
                "--docs",
                str(docs_dir),
                "--version",
                "2.7.1",
            ]
        )
        == 1
    )  # the last two have no entry: exit 1
    assert "torch.numel" in capsys.readouterr().out


# -- what a page is -----------------------------------------------------------------------------------


def test_a_folder_named_like_a_page_is_not_read_as_no_entry(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the folder was passed by and the check said MISSING (exit 1)."""
    (docs_dir / "pytorch_2-7-1" / "torch-fft.md").mkdir()
    assert (
        main(["docs", "check", "torch.fft.fft", "--docs", str(docs_dir), "--version", "2.7.1"]) == 2
    )
    line = _one_error(capsys)
    assert "pytorch_2-7-1/torch-fft.md" in line and "is a folder, not a page" in line
    with pytest.raises(UsageError, match="is a folder, not a page"):
        lint_paths([docs_dir], PRODUCTS)


def _no_hang(fn: object, fifo: Path, *args: object) -> BaseException | None:
    """``fn(fifo, *args)`` in a thread; a call that blocks opening the FIFO fails the test instead of hanging."""
    caught: list[BaseException | None] = [None]

    def go() -> None:
        try:
            fn(fifo, *args)  # type: ignore[operator]
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            caught[0] = exc

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(10)
    if t.is_alive():
        os.close(
            os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        )  # a writer comes and goes: the reader sees EOF
        t.join(10)
        pytest.fail("reading the page opened the FIFO and blocked until a writer came")
    return caught[0]


def test_a_fifo_named_like_a_page_is_refused_without_opening_it(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = docs_dir / "pytorch_2-7-1" / "torch-fft.md"
    os.mkfifo(fifo)
    assert (
        main(["docs", "check", "torch.fft.fft", "--docs", str(docs_dir), "--version", "2.7.1"]) == 2
    )
    line = _one_error(capsys)
    assert "pytorch_2-7-1/torch-fft.md" in line and "is a FIFO, not a page" in line
    # named directly (lint, read_page): refused, never opened (opening a FIFO blocks until a writer comes)
    exc = _no_hang(read_page, fifo, PRODUCTS)
    assert isinstance(exc, UsageError) and "is a FIFO, not a page" in str(exc)
    assert main(["docs", "lint", str(fifo)]) == 2
    assert "is a FIFO, not a page" in _one_error(capsys)


def test_a_broken_symlink_named_like_a_page_is_refused(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.symlink("gone.md", docs_dir / "pytorch_2-7-1" / "torch-fft.md")
    assert (
        main(["docs", "check", "torch.fft.fft", "--docs", str(docs_dir), "--version", "2.7.1"]) == 2
    )
    line = _one_error(capsys)
    assert "torch-fft.md" in line and "symlink" in line


def test_a_nul_byte_in_a_page_is_refused_with_its_line_and_column(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the NUL byte was read as part of the text (the check passed, exit 0)."""
    page = docs_dir / "pytorch_2-7-1" / "torch.md"
    lines = page.read_text("utf-8").split("\n")
    no = next(i for i, t in enumerate(lines) if "torch.numel" in t)
    col = lines[no].index("numel") + 1
    lines[no] = lines[no].replace("numel", "nu\x00mel", 1)
    page.write_text("\n".join(lines), "utf-8")
    assert (
        main(["docs", "check", "torch.numel", "--docs", str(docs_dir), "--version", "2.7.1"]) == 2
    )
    line = _one_error(capsys)
    assert f"{page}:{no + 1}:{col + 2}" in line and "NUL" in line
    assert main(["docs", "lint", str(page)]) == 2
    assert "NUL" in _one_error(capsys)
    with pytest.raises(UsageError, match="NUL"):
        read_page(page, PRODUCTS)


# -- what a version folder is ---------------------------------------------------------------------------


def test_a_version_folder_linked_to_the_docs_folder_is_not_read_as_that_version(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: ``pytorch_2-9-0 -> ../native_api``. Before: 2.9.0 was answered from 2.7.1's page."""
    shutil.rmtree(docs_dir / "pytorch_2-9-0")
    os.symlink(f"../{docs_dir.name}", docs_dir / "pytorch_2-9-0")
    for args in (["--version", "2.9.0"], []):
        assert main(["docs", "check", "torch.numel", "--docs", str(docs_dir), *args]) == 2
        line = _one_error(capsys)
        assert "pytorch_2-9-0" in line and "symlink" in line and "2.9.0" in line
    with pytest.raises(UsageError, match="symlink"):
        DocsTree(docs_dir, PRODUCTS).pages("2.9.0")
    with pytest.raises(UsageError, match="symlink"):
        lint_paths([docs_dir / "pytorch_2-9-0"], PRODUCTS)
    assert main(["docs", "matrix", "--docs", str(docs_dir)]) == 2
    assert "pytorch_2-9-0" in _one_error(capsys)


def test_a_version_folder_linked_to_another_version_is_refused(docs_dir: Path) -> None:
    shutil.rmtree(docs_dir / "pytorch_2-9-0")
    os.symlink("pytorch_2-7-1", docs_dir / "pytorch_2-9-0")
    with pytest.raises(UsageError, match=r"pytorch_2-9-0 .*symlink to .*pytorch_2-7-1"):
        check_api("torch.numel", docs_dir, ["2.9.0"], PRODUCTS)
    with pytest.raises(UsageError, match="symlink"):
        add_entry(CLONE, docs_dir, ["2.9.0"], like=PARENT, products=PRODUCTS, dry_run=True)
    with pytest.raises(UsageError, match="symlink"):
        lint_paths([docs_dir], PRODUCTS)


def test_a_version_folder_linked_to_its_own_copy_is_read(docs_dir: Path, tmp_path: Path) -> None:
    """A link to a folder of the same version's name (docs kept elsewhere) is that version's pages."""
    elsewhere = tmp_path / "elsewhere" / "pytorch_2-9-0"
    elsewhere.parent.mkdir()
    shutil.move(str(docs_dir / "pytorch_2-9-0"), elsewhere)
    os.symlink(elsewhere, docs_dir / "pytorch_2-9-0")
    result = check_api("torch.numel", docs_dir, ["2.9.0"], PRODUCTS)
    assert result.ok and result.versions[0].page == "pytorch_2-9-0/torch.md"


# -- a read-only page, for root too ------------------------------------------------------------------------


def test_a_page_without_write_permission_is_not_rewritten_even_by_root(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """chmod 444: root may write anyway (``os.access`` says yes); the mode says the page is not to be written.
    Before: as root, the page was replaced (keeping its 444 mode)."""
    page = docs_dir / "pytorch_2-7-1" / "torch.md"
    os.chmod(page, 0o444)
    before = page.read_bytes()
    assert (
        main(
            ["docs", "add", CLONE, "--docs", str(docs_dir), "--like", PARENT, "--version", "2.7.1"]
        )
        == 2
    )
    line = _one_error(capsys)
    assert f"cannot write {page}" in line and "read-only" in line and "no page was changed" in line
    assert page.read_bytes() == before and oct(page.stat().st_mode & 0o777) == "0o444"
    assert [
        p.name for p in page.parent.iterdir() if p.name.startswith(".")
    ] == []  # no temporary file left
    os.chmod(page, 0o644)
    assert (
        main(
            ["docs", "add", CLONE, "--docs", str(docs_dir), "--like", PARENT, "--version", "2.7.1"]
        )
        == 0
    )
