"""Docs claims: an entry per version page (and the support status it states), read with ``torchparity.docs``
from the pages at the docs commit (or its squash, or its branch's tip)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from ...docs import DocsTree, check_in_tree, folder_name, normalize_version
from ...docs.check import VersionCheck
from ...errors import UsageError
from ..records import DocsClaim, DocsStatusClaim, Verdict, contradicted, unverifiable, verified
from .facts import Facts

_PAGE_ROOT = re.compile(r"(docs/[\w./-]*?)/pytorch_\d+-\d+-\d+/")
_PATH_RUN = re.compile(r"[\w./-]+")


def page_roots(text: str) -> list[str]:
    """``_PAGE_ROOT``'s groups in ``text``, in one walk: a page path lies inside one run of path characters,
    and the first ``docs/`` of a run finds whatever a later one would (the lazy middle covers the gap)."""
    out: list[str] = []
    if "docs/" not in text or "pytorch_" not in text:
        return out
    for run in _PATH_RUN.finditer(text):
        pos = run.start()
        while (at := text.find("docs/", pos, run.end())) != -1:
            m = _PAGE_ROOT.match(text, at, run.end())
            if m is None:
                break
            out.append(m.group(1))
            pos = m.end()
    return out


class DocsTrees:
    """Native API pages extracted from git at a commit, once per (commit, folder), under one temp folder."""

    def __init__(self, f: Facts, work: Path) -> None:
        self.f = f
        self.work = work
        self._trees: dict[tuple[str, str], DocsTree | None] = {}

    def roots(self, text: str) -> list[str]:
        found = page_roots(text)
        return list(dict.fromkeys([*found, self.f.config.docs_root, "docs/zh/native_apis"]))

    def tree(self, commit: str, text: str) -> DocsTree | None:
        for root in self.roots(text):
            key = (commit, root)
            if key not in self._trees:
                dest = self.work / commit[:12]
                folder = self.f.view.extract(commit, root, dest)
                self._trees[key] = (
                    DocsTree(folder, self.f.config.docs_products)
                    if folder and folder.is_dir()
                    else None
                )
            tree = self._trees[key]
            if tree is not None and tree.versions():
                return tree
        return None


def _place(c: DocsClaim | DocsStatusClaim, f: Facts) -> tuple[str | None, str]:
    """(commit, how it was chosen) to read the pages a claim is about at."""
    view = f.view
    if c.at:
        full = view.resolve(c.at)
        if full:
            return full, f"docs commit {full[:12]}"
    if c.pr:
        squash = view.find_squash(c.pr)
        if squash:
            return squash, f"{squash[:12]} (docs PR !{c.pr}, squash-merged)"
    if c.branch and c.branch != view.target_branch:
        tip = view.resolve(c.branch)
        if tip:
            return tip, f"the tip of {c.branch} ({tip[:12]})"
        return None, f"branch {c.branch} is not in the repository"
    return view.commit, f"{view.commit[:12]}"


def _spellings(api: str) -> list[str]:
    return [api.removeprefix("torch.")] if api.startswith("torch.") else [f"torch.{api}"]


def _versions(c: DocsClaim | DocsStatusClaim, tree: DocsTree) -> tuple[list[str], list[str]]:
    """(versions to check, versions the claim names that have no folder)."""
    if not c.versions:
        return tree.versions(), []
    wanted = [normalize_version(v) for v in c.versions]
    return [v for v in wanted if tree.has_folder(v)], [v for v in wanted if not tree.has_folder(v)]


def _where(v: VersionCheck) -> str:
    return f"{v.page}:{v.line}"


#: where a backend keeps the support pages of every version when a commit has none
DOCS_BRANCHES = ("master", "main")


def _tree(
    c: DocsClaim | DocsStatusClaim, f: Facts, trees: DocsTrees, commit: str, how: str
) -> tuple[DocsTree | None, str]:
    """The pages at ``commit``; when it has none and the claim names no place, the docs branch's."""
    tree = trees.tree(commit, c.text)
    if tree is not None or c.at or c.pr or (c.branch and c.branch != f.view.target_branch):
        return tree, how
    for branch in DOCS_BRANCHES:
        tip = f.view.resolve(branch)
        if tip and tip != commit:
            tree = trees.tree(tip, c.text)
            if tree is not None:
                return tree, f"the tip of {branch} ({tip[:12]}; {commit[:12]} has no pages)"
    return None, how


def check_docs_claim(c: DocsClaim, f: Facts, trees: DocsTrees) -> Verdict:
    commit, how = (f.view.resolve(c.at), f"baseline {c.at[:12]}") if not c.present else _place(c, f)
    if commit is None:
        return unverifiable(
            c,
            "docs",
            f"no pages to read: {how}"
            if c.present
            else f"the docs baseline {c.at[:12]} is not in the repository",
        )
    tree, how = _tree(c, f, trees, commit, how)
    if tree is None:
        return unverifiable(c, "docs", f"no native API pages at {how}")
    versions, absent = _versions(c, tree)
    if not versions:
        return unverifiable(
            c, "docs", f"no {', '.join(folder_name(v) for v in absent)} folder at {how}"
        )
    unread = [v for v in versions if not any(p.entries for p in tree.pages(v))]
    if unread:
        return unverifiable(
            c,
            "docs",
            f"the pages of {', '.join(folder_name(v) for v in unread)} at {how} are in a "
            "format torchparity.docs does not read (no entry parsed)",
        )
    result = check_in_tree(tree, c.api, versions, _spellings(c.api))
    missing = [v for v in result.versions if not v.present]
    present = [v for v in result.versions if v.present]
    if c.present:
        if missing:
            hint = f"; {missing[0].hint}" if missing[0].hint else ""
            return contradicted(
                c,
                "docs",
                f"no entry for {c.api} in {', '.join(v.folder for v in missing)} at {how}{hint}",
            )
        return verified(
            c,
            "docs",
            f"{c.api} has an entry in {len(present)} version(s) at {how}: "
            + ", ".join(_where(v) for v in present[:4]),
        )
    if present:
        return contradicted(
            c,
            "docs",
            f"{c.api} already has an entry at {how}: " + ", ".join(_where(v) for v in present[:4]),
        )
    return verified(
        c,
        "docs",
        f"no entry for {c.api} at {how}" + (f" ({missing[0].hint})" if missing[0].hint else ""),
    )


def check_status_claim(c: DocsStatusClaim, f: Facts, trees: DocsTrees) -> Verdict:
    commit, how = _place(c, f)
    if commit is None:
        return unverifiable(c, "docs.status", f"no pages to read: {how}")
    tree, how = _tree(c, f, trees, commit, how)
    if tree is None:
        return unverifiable(c, "docs.status", f"no native API pages at {how}")
    versions, _ = _versions(c, tree)
    versions = [v for v in versions if any(p.entries for p in tree.pages(v))]
    if not versions:
        return unverifiable(c, "docs.status", f"no pages torchparity.docs reads at {how}")
    result = check_in_tree(tree, c.api, versions, _spellings(c.api))
    wrong, right, unknown = [], [], []
    for v in result.versions:
        status = next((p for p in v.products if p.code == c.product), None)
        if not v.present or status is None or status.supported is None:
            unknown.append(v.folder)
        elif status.supported == c.supported:
            right.append(f"{v.folder}: {status.status}")
        else:
            wrong.append(f"{v.folder} ({_where(v)}): {status.status}")
    if wrong:
        return contradicted(c, "docs.status", f"the pages at {how} say {'; '.join(wrong)}")
    if right:
        return verified(c, "docs.status", f"{len(right)} version(s) at {how} say so ({right[0]})")
    return unverifiable(c, "docs.status", f"no entry for {c.api} stating {c.product} at {how}")


_C = TypeVar("_C", DocsClaim, DocsStatusClaim)


def check_docs(f: Facts, work: Path) -> Iterator[Verdict]:
    trees = DocsTrees(f, work)
    done: dict[object, Verdict] = {}

    def once(c: _C, check: Callable[[_C, Facts, DocsTrees], Verdict]) -> Verdict:
        """The verdict of a claim the text repeats (same API, versions, place) is found once."""
        key = (dataclasses.replace(c, line=0, text=""), tuple(trees.roots(c.text)))
        if key not in done:
            try:
                done[key] = check(c, f, trees)
            except (
                UsageError
            ) as exc:  # pages torchparity.docs refuses (a NUL byte, a FIFO, a linked version)
                kind = "docs.status" if isinstance(c, DocsStatusClaim) else "docs"
                done[key] = unverifiable(c, kind, f"the pages cannot be read: {exc}")
        return dataclasses.replace(done[key], text=c.text, line=c.line)

    for c in f.claims.docs:
        yield once(c, check_docs_claim)
    for s in f.claims.docs_status:
        yield once(s, check_status_claim)
