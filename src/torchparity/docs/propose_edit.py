"""The proposed new entries, written by ``docs add`` itself, as one diff; and ``--write`` through its writer.

Nothing here writes an entry: each proposed entry is added by ``add_entry`` (the code behind
``docs add API --version V --status 910b=支持,...``) into a scratch copy of the pages, one after
the other, so a later entry sees the earlier ones as ``docs add`` run in the same order would. The
diff is each changed page's text before and after; ``--write`` hands the same texts to
``pagewrite.write_pages``, which writes every page or none and refuses a page that changed since
it was read. The bytes written are the bytes ``docs add`` writes for the same entries.
"""

from __future__ import annotations

import difflib
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..gitrepo import git
from .add import Change, add_entry
from .model import SUPPORTED, UNSUPPORTED, YESNO
from .pagewrite import PageEdit, write_pages
from .parse import page_files, read_page
from .render import Status
from .tree import DocsTree
from .versions import path_order


@dataclass(frozen=True)
class EntryAsk:
    """A new entry to propose: the API as the page will name it, the version, the statuses by product code."""

    api: str
    version: str
    statuses: Mapping[str, bool]


@dataclass(frozen=True)
class PlannedEntry:
    ask: EntryAsk
    #: ``docs add``'s account of the entry (page, lines, format, ids, text); None when it was not added
    change: Change | None
    #: why it was not added ("" when it was)
    refused: str = ""

    def to_json(self) -> dict[str, Any]:
        c = self.change
        return {
            "api": self.ask.api,
            "version": self.ask.version,
            "statuses": {code: ok for code, ok in self.ask.statuses.items()},
            "added": c is not None,
            "page": c.page if c is not None else None,
            "start": c.start if c is not None else None,
            "end": c.end if c is not None else None,
            "format": c.format if c is not None else None,
            "kind": c.kind if c is not None else None,
            "parent": c.parent if c is not None else None,
            "ids": list(c.ids) if c is not None else [],
            "text": c.text if c is not None else None,
            "refused": self.refused or None,
            "docs_add": docs_add_command(self.ask),
        }


def docs_add_command(ask: EntryAsk) -> str:
    """The ``docs add`` call that writes the same entry."""
    status = ",".join(
        f"{code}={SUPPORTED if ok else UNSUPPORTED}" for code, ok in ask.statuses.items()
    )
    return f"torchparity docs add {ask.api} --version {ask.version} --status {status}"


@dataclass(frozen=True)
class PageChange:
    """One page's text before and after every proposed entry (without a byte-order mark: the writer keeps the page's)."""

    rel: str
    path: str
    before: str
    after: str

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                _keepends(self.before), _keepends(self.after), f"a/{self.rel}", f"b/{self.rel}", n=3
            )
        )


def _keepends(text: str) -> list[str]:
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _copy_pages(tree: DocsTree, scratch: Path) -> dict[str, bytes]:
    """Every version's module pages, byte for byte, at the same relative paths; their bytes by path
    (what the write is checked against: a page changed since is refused)."""
    copied: dict[str, bytes] = {}
    for version in tree.versions():
        (scratch / tree.folder(version).name).mkdir(parents=True, exist_ok=True)
        for page in page_files(tree.folder(version)):
            rel = tree.rel(page)
            target = scratch / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            data = page.read_bytes()
            target.write_bytes(data)
            copied[rel] = data
    return copied


def _text(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return text[1:] if text.startswith("\ufeff") else text


def plan_entries(
    tree: DocsTree, asks: Sequence[EntryAsk]
) -> tuple[list[PlannedEntry], list[PageChange]]:
    """Add each asked entry with ``docs add`` into a scratch copy of ``tree``, in order; the pages
    it changed, before and after. An entry ``docs add`` refuses is not added, and says why; so is
    an entry whose page writes one 是/否 for every product while the evidence covers only some."""
    planned: list[PlannedEntry] = []
    if not asks:
        return planned, []
    with tempfile.TemporaryDirectory(prefix="torchparity-propose-") as tmp:
        scratch = Path(tmp)
        copied = _copy_pages(tree, scratch)
        stree = DocsTree(scratch, tree.products)
        every = set(tree.products.codes)
        for ask in asks:
            statuses = {
                code: Status(code, SUPPORTED if ok else UNSUPPORTED, ok)
                for code, ok in ask.statuses.items()
            }
            try:
                dry = add_entry(
                    ask.api, scratch, [ask.version], statuses=statuses, dry_run=True, tree=stree
                )
                fmt = dry.changes[0].format if dry.changes else ""
                if fmt == YESNO and set(statuses) != every:
                    lacking = ", ".join(sorted(every - set(statuses)))
                    planned.append(
                        PlannedEntry(
                            ask,
                            None,
                            f"its page writes one 是/否 for every product, and no evidence decides {lacking}: "
                            "add it by hand once every product is known",
                        )
                    )
                    continue
                done = add_entry(ask.api, scratch, [ask.version], statuses=statuses, tree=stree)
            except UsageError as exc:
                planned.append(PlannedEntry(ask, None, f"docs add refuses it: {exc}"))
                continue
            added = [c for c in done.changes if c.action == "added"]
            planned.append(
                PlannedEntry(ask, added[0] if added else None, "" if added else "already present")
            )
        changed = sorted({c.page for p in planned if (c := p.change) is not None}, key=path_order)
        pages = []
        for rel in changed:
            after = read_page(scratch / rel, tree.products).text
            pages.append(PageChange(rel, str(tree.root / rel), _text(copied[rel]), after))
    return planned, pages


def unified_diff(pages: Sequence[PageChange]) -> str:
    """Every changed page's diff, paths relative to the docs folder (``git apply --directory=DOCS``
    from the repository root)."""
    return "".join(p.diff() for p in pages)


def dirty_problem(root: Path) -> str:
    """Why the pages under ``root`` may not be written ("" when they may): the folder must be in a git
    work tree with nothing changed or untracked under it, so the write is the proposal alone and
    ``git diff`` shows it."""
    inside = git(root, "rev-parse", "--is-inside-work-tree", check=False)
    if inside.returncode != 0 or inside.text.strip() != "true":
        return (
            f"{root} is not in a git work tree: --write writes only a clean, committed docs folder "
            "(so git diff shows the change and git checkout undoes it); write the diff with "
            "--diff FILE and apply it yourself"
        )
    status = git(root, "status", "--porcelain", "--untracked-files=all", "--", ".", check=False)
    lines = [line for line in status.text.splitlines() if line.strip()]
    if status.returncode != 0:
        return f"git status failed in {root}: {status.stderr.decode('utf-8', 'replace').strip()}"
    if lines:
        shown = "; ".join(line.strip() for line in lines[:3]) + (" ..." if len(lines) > 3 else "")
        return (
            f"the docs folder {root} has changes not committed ({len(lines)}: {shown}); commit or "
            "stash them first, so the write is the proposal alone"
        )
    return ""


def write(tree: DocsTree, pages: Sequence[PageChange]) -> None:
    """Write every changed page through ``docs add``'s writer (all or none), after the clean check."""
    problem = dirty_problem(tree.root)
    if problem:
        raise UsageError(f"--write: {problem}; nothing was written")
    write_pages([PageEdit(p.path, p.before, p.after) for p in pages])
    for version in tree.versions():
        tree.forget(version)


__all__ = [
    "EntryAsk",
    "PageChange",
    "PlannedEntry",
    "dirty_problem",
    "docs_add_command",
    "plan_entries",
    "unified_diff",
    "write",
]
