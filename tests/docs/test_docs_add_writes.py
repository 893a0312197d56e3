"""``docs add`` writes all versions' pages or none, exactly: through symlinks, keeping hard links,
refusing a page changed since it was read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.docs.docs_pages import PRODUCTS
from tests.docs.test_docs_add import CLONE, PARENT, page_of
from tests.fsfaults import cli_calls
from torchparity.cli import main
from torchparity.docs import DocsTree, add_entry, read_page
from torchparity.errors import UsageError

THREE = ["2.7.1", "2.9.0", "2.11.0"]  # the versions that lack CLONE; 2.11.0 is written third


def _snapshot(docs: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(docs)): p.read_bytes() for p in sorted(docs.rglob("*")) if p.is_file()
    }


def _has_clone(page: Path) -> bool:
    return read_page(page, PRODUCTS).find(CLONE) is not None


def test_one_unwritable_page_of_three_leaves_all_three_byte_identical(docs_dir: Path) -> None:
    """The third version's folder is read-only (a read-only bind mount, or chmod for a non-root user)."""
    before = _snapshot(docs_dir)
    third = page_of(docs_dir, "2.11.0").parent
    (got,), _ = cli_calls(
        [
            [
                "docs",
                "add",
                CLONE,
                "--docs",
                str(docs_dir),
                "--like",
                PARENT,
                *[a for v in THREE for a in ("--version", v)],
            ]
        ],
        readonly=[third],
    )
    assert got["rc"] == 2, got
    err = got["err"].strip()
    assert err.count("\n") == 0 and err.startswith(
        f"ERROR: cannot write {page_of(docs_dir, '2.11.0')}: "
    )
    assert "no page was changed" in err
    assert _snapshot(docs_dir) == before  # the first two untouched too, and no temporary file left
    assert (
        main(["docs", "add", CLONE, "--docs", str(docs_dir), "--like", PARENT]) == 0
    )  # writable again: all go
    assert all(_has_clone(page_of(docs_dir, v)) for v in THREE)


def test_a_failure_while_renaming_puts_back_the_pages_already_written(
    docs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault injected into the third rename (staging went fine): the first two are rolled back."""
    before = _snapshot(docs_dir)
    real_replace, calls = os.replace, []

    def third_fails(src: str, dst: str) -> None:
        if str(src).endswith(".tmp"):
            calls.append(dst)
            if len(calls) == 3:
                raise OSError(5, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", third_fails)
    with pytest.raises(
        UsageError, match=r"torch.md: Input/output error; the pages written before it were put back"
    ):
        add_entry(CLONE, docs_dir, THREE, like=PARENT, products=PRODUCTS)
    assert len(calls) == 3
    assert _snapshot(docs_dir) == before


def test_a_symlinked_page_is_written_through_and_stays_a_symlink(
    docs_dir: Path, tmp_path: Path
) -> None:
    page = page_of(docs_dir, "2.7.1")
    shared = tmp_path / "shared" / "torch.md"
    shared.parent.mkdir()
    page.rename(shared)
    page.symlink_to(os.path.relpath(shared, page.parent))
    link_text = os.readlink(page)
    assert (
        main(
            ["docs", "add", CLONE, "--docs", str(docs_dir), "--like", PARENT, "--version", "2.7.1"]
        )
        == 0
    )
    assert page.is_symlink() and os.readlink(page) == link_text
    assert _has_clone(shared)
    assert sorted(p.name for p in shared.parent.iterdir()) == ["torch.md"]


def test_a_dangling_symlink_page_is_refused(docs_dir: Path, tmp_path: Path) -> None:
    page = page_of(docs_dir, "2.7.1")
    tree = DocsTree(docs_dir, PRODUCTS)
    tree.pages("2.7.1")
    page.unlink()
    page.symlink_to(tmp_path / "gone.md")
    with pytest.raises(UsageError, match="is a symlink to .*gone.md, which does not exist"):
        add_entry(CLONE, docs_dir, ["2.7.1"], like=PARENT, products=PRODUCTS, tree=tree)


def test_a_hard_linked_page_keeps_its_links(docs_dir: Path, tmp_path: Path) -> None:
    page = page_of(docs_dir, "2.9.0")
    mirror = tmp_path / "mirror.md"
    os.link(page, mirror)
    ino = page.stat().st_ino
    assert (
        main(
            ["docs", "add", CLONE, "--docs", str(docs_dir), "--like", PARENT, "--version", "2.9.0"]
        )
        == 0
    )
    assert page.stat().st_ino == mirror.stat().st_ino == ino and page.stat().st_nlink == 2
    assert mirror.read_bytes() == page.read_bytes() and _has_clone(mirror)
    assert sorted(p.name for p in page.parent.iterdir()) == ["torch.md"]


def test_two_versions_linked_to_one_file_are_refused(docs_dir: Path) -> None:
    a, b = page_of(docs_dir, "2.7.1"), page_of(docs_dir, "2.9.0")
    b.unlink()
    b.symlink_to(a)
    before = _snapshot(docs_dir)
    with pytest.raises(UsageError, match="is the same file as .*pytorch_2-7-1/torch.md"):
        add_entry(CLONE, docs_dir, ["2.7.1", "2.9.0"], like=PARENT, products=PRODUCTS)
    assert _snapshot(docs_dir) == before


def test_a_page_changed_since_it_was_read_is_refused_and_nothing_written(docs_dir: Path) -> None:
    tree = DocsTree(docs_dir, PRODUCTS)
    for v in THREE:
        tree.pages(v)  # read (as the planner does) ...
    edited = page_of(docs_dir, "2.11.0")
    edited.write_bytes(
        edited.read_bytes() + b"\nAn edit made by someone else meanwhile.\n"
    )  # ... then edited
    before = _snapshot(docs_dir)
    with pytest.raises(
        UsageError, match=r"pytorch_2-11-0/torch.md changed since it was read; no page was changed"
    ):
        add_entry(CLONE, docs_dir, THREE, like=PARENT, products=PRODUCTS, tree=tree)
    assert _snapshot(docs_dir) == before


def test_a_read_only_page_is_refused_not_replaced(docs_dir: Path) -> None:
    """A page the user made read-only is not renamed over (the folder would allow it)."""
    page = page_of(docs_dir, "2.7.1")
    before = _snapshot(docs_dir)
    (got,), _ = cli_calls(
        [["docs", "add", CLONE, "--docs", str(docs_dir), "--like", PARENT, "--version", "2.7.1"]],
        readonly=[page],
    )
    assert (
        got["rc"] == 2 and "cannot write" in got["err"] and "no page was changed" in got["err"]
    ), got
    assert _snapshot(docs_dir) == before


def test_a_byte_order_mark_and_the_mode_are_kept(docs_dir: Path) -> None:
    page = page_of(docs_dir, "2.7.1")
    page.write_bytes(b"\xef\xbb\xbf" + page.read_bytes())
    os.chmod(page, 0o604)
    add_entry(CLONE, docs_dir, ["2.7.1"], like=PARENT, products=PRODUCTS)
    assert page.read_bytes().startswith(b"\xef\xbb\xbf") and _has_clone(page)
    assert oct(page.stat().st_mode & 0o777) == "0o604"
