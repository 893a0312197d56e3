"""Add an API's entry to each version's page: in the page's own format, at its place, nothing else touched.

Every version is planned first (which page, where, which statuses, which ids);
only when all plans hold are the pages written, all of them or none
(``pagewrite.py``: staged, checked for edits made meanwhile, renamed; symlinks
written through, hard links kept). A version that already has the entry is left as is.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..records.docs import AddedEntry, DocsAddRecord
from .model import FUNCTION, LIST, SUB_METHOD, Entry, Page, Products, Section, status_of
from .pagewrite import PageEdit, write_pages
from .parse import parse_page
from .render import Status, fresh_ids, learn_style, render_entry
from .tree import DocsTree
from .versions import docs_base, docs_short, folder_name, with_version

KINDS = ("auto", FUNCTION, SUB_METHOD)


@dataclass(frozen=True)
class Change:
    """What ``add_entry`` did (or would do) to one version's page."""

    version: str
    folder: str
    #: page path relative to the docs folder, e.g. ``pytorch_2-7-1/torch.md``
    page: str
    path: str
    #: ``added`` or ``present`` (the entry was already there: nothing changed)
    action: str
    api: str
    kind: str
    format: str
    #: first and last line of the entry in the page as it is (after the change)
    start: int
    end: int
    ids: tuple[str, ...] = ()
    parent: str | None = None
    section: str = ""
    link: str = ""
    text: str = ""
    diff: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "folder": self.folder,
            "page": self.page,
            "path": self.path,
            "action": self.action,
            "api": self.api,
            "kind": self.kind,
            "format": self.format,
            "start": self.start,
            "end": self.end,
            "ids": list(self.ids),
            "parent": self.parent,
            "section": self.section,
            "link": self.link,
            "text": self.text,
        }


@dataclass(frozen=True)
class AddResult:
    api: str
    docs_dir: str
    dry_run: bool
    changes: tuple[Change, ...]

    @property
    def added(self) -> list[Change]:
        return [c for c in self.changes if c.action == "added"]

    @property
    def changed(self) -> bool:
        return bool(self.added)

    @property
    def paths(self) -> list[str]:
        return [c.path for c in self.added]

    def to_json(self) -> dict[str, Any]:
        return {
            "api": self.api,
            "docs_dir": self.docs_dir,
            "dry_run": self.dry_run,
            "changed": self.changed,
            "changes": [c.to_json() for c in self.changes],
        }

    def to_record(self) -> DocsAddRecord:
        return DocsAddRecord(
            api=self.api,
            docs_dir=self.docs_dir,
            changes=tuple(
                AddedEntry(c.version, c.folder, c.page, c.action, c.api, c.start, c.end, c.parent)
                for c in self.changes
            ),
        )


def parse_statuses(text: str, products: Iterable[Any] = ()) -> dict[str, Status]:
    """``910b=支持,A3=支持,950=不支持`` -> statuses by product code (codes checked against products)."""
    prods = products if isinstance(products, Products) else Products(products)
    out: dict[str, Status] = {}
    for part in re.split(r"[,，;]", text):
        if not part.strip():
            continue
        code, sep, word = part.partition("=")
        code, word = code.strip(), word.strip()
        if not sep or not code or not word:
            raise UsageError(
                f"--status item {part.strip()!r} is not CODE=STATUS; write e.g. 910b=支持,950=不支持"
            )
        if prods and prods.by_code(code) is None:
            hint = next((c for c in prods.codes if c.lower() == code.lower()), "")
            known = ", ".join(prods.codes)
            extra = f" (codes are case-sensitive: {hint})" if hint else ""
            raise UsageError(
                f"--status: unknown product code {code!r}{extra}; known codes: {known}"
            )
        status, supported = status_of(word)
        if supported is None:
            raise UsageError(
                f"--status {code}={word}: write 支持 or 不支持 (also ✔/✘, 是/否, yes/no)"
            )
        out[code] = Status(code, status, supported)
    if not out:
        raise UsageError("--status is empty; write e.g. 910b=支持,A3=支持,950=不支持")
    return out


def _ordered(statuses: Iterable[Status], products: Products) -> list[Status]:
    return sorted(statuses, key=lambda s: products.order(s.code))


def _statuses_of(entry: Entry, where: str) -> list[Status]:
    out = []
    for p in entry.products:
        if p.supported is None:
            raise UsageError(
                f"{where}: status {p.raw!r} of {p.name} in {entry.api} is not 支持/不支持; "
                "pass --status instead of --like"
            )
        out.append(Status(p.code, p.status, p.supported))
    if not out:
        raise UsageError(f"{where}: {entry.api} has no product statuses to copy; pass --status")
    return out


def _keepends(text: str) -> list[str]:
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def _skip_blank(lines: list[str], pos: int, n: int) -> int:
    return pos + 1 if pos < n and not lines[pos].strip() else pos


def _splice(text: str, pos: int, block: list[str], eol: str) -> tuple[str, int]:
    """``text`` with ``block`` inserted before 0-based line ``pos`` (blank lines added around as needed).

    Returns the new text and the 1-based line of the block's first line.
    """
    parts = text.split("\n")
    final_nl = text.endswith("\n")
    n = len(parts) - 1 if final_nl else len(parts)
    cr = "\r" if eol == "\r\n" else ""

    def blank(k: int) -> bool:
        return not parts[k].rstrip("\r").strip()

    new = list(block)
    lead = pos > 0 and not blank(pos - 1)
    if lead:
        new.insert(0, "")
    if pos < n and not blank(pos):
        new.append("")
    new = [line + cr for line in new]
    if pos >= n and not final_nl and n > 0:
        merged = (
            parts + new + [""]
        )  # the old last line gets its line end; the new text ends with one
    else:
        merged = parts[:pos] + new + parts[pos:]
    return "\n".join(merged), pos + 1 + int(lead)


def _nearest(page: Page, api: str) -> Entry | None:
    """The last top-level entry on ``page`` sharing the longest dotted prefix (>= 2 parts) with ``api``."""
    best: tuple[int, Entry | None] = (2, None)
    for e in page.entries:
        if e.parent is None:
            score = len(_common(api, e.api))
            if score >= best[0]:
                best = (score, e)
    return best[1]


def _common(a: str, b: str) -> list[str]:
    out = []
    for x, y in zip(a.split("."), b.split("."), strict=False):
        if x != y:
            break
        out.append(x)
    return out


def _headed_members(pages: Iterable[Page], parent_api: str) -> bool:
    """Whether any of ``pages`` lists ``parent_api.X`` as top-level entries (headings of their own)."""
    prefix = parent_api + "."
    return any(
        e.parent is None and e.api.startswith(prefix) for page in pages for e in page.entries
    )


@dataclass(frozen=True)
class _Plan:
    version: str
    page: Page
    change: Change
    new_text: str


class _Planner:
    def __init__(
        self,
        tree: DocsTree,
        api: str,
        like: str | None,
        statuses: Mapping[str, Status] | None,
        restrictions: list[str],
        kind: str,
        section: str | None,
        link: str | None,
    ) -> None:
        self.tree, self.api, self.like, self.statuses = tree, api, like, statuses
        self.restrictions, self.kind, self.section, self.link = restrictions, kind, section, link

    def plan(self, version: str) -> _Plan | Change:
        tree, api, folder = self.tree, self.api, folder_name(version)
        if not tree.has_folder(version):
            raise UsageError(
                f"no folder {folder} in {tree.root}; create the version folder first "
                f"or leave {version} out of --version"
            )
        found = tree.find(api, version)
        if found is not None:
            page, e = found
            return Change(
                version,
                folder,
                tree.rel(page),
                page.path,
                "present",
                api,
                e.kind,
                e.format,
                e.start,
                e.end,
                parent=e.parent,
                section=e.section,
                link=e.link or "",
            )
        like_hit = None
        if self.like:
            like_hit = tree.find(self.like, version)
            if like_hit is None:
                raise UsageError(
                    f"--like {self.like}: no entry in {folder}; add it first or pass --status"
                )
        parent_api = api.rsplit(".", 1)[0] if "." in api else ""
        parent_hit = tree.find(parent_api, version) if parent_api else None
        kind = self._kind(parent_hit, folder)
        if (
            kind == FUNCTION
            and parent_hit is None
            and self.kind == "auto"
            and self._member_elsewhere(version)
        ):
            raise UsageError(
                f"the parent entry {parent_api} is not on any page of {version}; add it first, "
                "or pass --kind function --section S to add it as a top-level entry"
            )
        if kind == SUB_METHOD:
            assert parent_hit is not None
            page, parent = parent_hit
        else:
            page, parent = self._function_page(version, like_hit), None
        where = f"{tree.rel(page)}"
        if page.div_problems:
            first = page.div_problems[0]
            raise UsageError(
                f"{page.path}:{first.line}: {first.message}; fix the page first "
                f"(torchparity docs lint {page.path}) and run again"
            )
        statuses = (
            _statuses_of(like_hit[1], where) if like_hit else list((self.statuses or {}).values())
        )
        statuses = _ordered(statuses, tree.products)
        fmt = (parent.format if parent is not None and parent.format else "") or page.format
        style = learn_style(page, tree.products, fmt)
        ids = fresh_ids(page, len(statuses)) if style.format == LIST and style.comments else []
        link = self._link(page, parent, version)
        block = render_entry(style, api, kind, link, statuses, self.restrictions, ids, where)
        lines = [line.rstrip("\r") for line in page.text.split("\n")]
        n = page.line_count
        section_name = ""
        if parent is not None:
            if parent.children:
                pos = _skip_blank(lines, parent.children[-1].end, n)
            else:
                pos = parent.end - 1  # before the parent's closing </div>
            section_name = parent.section
        else:
            pos, section_name = self._function_pos(page, like_hit, lines, n)
        new_text, start = _splice(page.text, pos, block, style.eol)
        end = start + len(block) - 1
        self._verify(new_text, page, start, statuses, kind)
        diff = "".join(
            difflib.unified_diff(
                _keepends(page.text),
                _keepends(new_text),
                f"a/{tree.rel(page)}",
                f"b/{tree.rel(page)}",
                n=3,
            )
        )
        change = Change(
            version,
            folder,
            tree.rel(page),
            page.path,
            "added",
            api,
            kind,
            style.format,
            start,
            end,
            tuple(ids),
            parent.api if parent else None,
            section_name,
            link,
            "\n".join(block) + "\n",
            diff,
        )
        return _Plan(version, page, change, new_text)

    def _kind(self, parent_hit: tuple[Page, Entry] | None, folder: str) -> str:
        if self.kind == FUNCTION:
            return FUNCTION
        if self.kind == SUB_METHOD:
            if parent_hit is None:
                parent_api = self.api.rsplit(".", 1)[0]
                raise UsageError(
                    f"--kind sub-method: {parent_api} has no entry in {folder} to nest "
                    f"{self.api} in; add the class entry first"
                )
            return SUB_METHOD
        if parent_hit is None:
            return FUNCTION
        page, parent = parent_hit
        if parent.parent is not None:  # a sub-method's sub-method is not a thing pages have
            return FUNCTION
        if parent.children:
            return SUB_METHOD
        # the page lists parent.X as headings of their own: follow it
        return FUNCTION if _headed_members([page], parent.api) else SUB_METHOD

    def _member_elsewhere(self, version: str) -> bool:
        """Whether the API (its parent missing in ``version``) is a member of a class entry:
        it is a sub-method in another version, or its parent has an entry there whose members
        are not headings of their own, or the parent is named like a class (``CapWords``)."""
        tree, api = self.tree, self.api
        parent_api = api.rsplit(".", 1)[0]
        if _headed_members(tree.pages(version), parent_api):
            return False  # this version lists parent.X as headings of their own: follow it
        others = [v for v in tree.versions() if v != version]
        for v in others:
            hit = tree.find(api, v)
            if hit is not None:
                return hit[1].kind == SUB_METHOD
        for v in others:
            hit = tree.find(parent_api, v)
            if hit is not None and hit[1].parent is None:
                return bool(hit[1].children) or not _headed_members([hit[0]], parent_api)
        last = parent_api.rsplit(".", 1)[-1]
        return "." in parent_api and last[:1].isupper() and any(c.islower() for c in last)

    def _function_page(self, version: str, like_hit: tuple[Page, Entry] | None) -> Page:
        if like_hit is not None:
            return like_hit[0]
        tree = self.tree
        best: tuple[int, Page | None] = (1, None)
        for page in tree.pages(version):
            for e in page.entries:
                score = len(_common(self.api, e.api))
                if score > best[0]:
                    best = (score, page)
        if best[1] is not None and best[0] >= len(self.api.split(".")) - 1:
            return best[1]
        module_page = tree.module_page(self.api, version)
        if module_page is not None:
            return module_page
        if best[1] is not None:
            return best[1]
        raise UsageError(
            f"no page for {self.api} in {folder_name(version)}: none holds its parent or module; "
            "pass --like ENTRY (an API on the page it belongs to)"
        )

    def _function_pos(
        self, page: Page, like_hit: tuple[Page, Entry] | None, lines: list[str], n: int
    ) -> tuple[int, str]:
        sections = [s for s in page.sections if s.level > 0 or s.entries]
        chosen: Section | None = None
        if self.section is not None:
            chosen = page.section_of(self.section)
            if chosen is None:
                names = ", ".join(repr(s.title) for s in page.sections if s.title) or "none"
                raise UsageError(
                    f"--section {self.section!r}: no such heading in {page.path}; its sections: {names}"
                )
        elif like_hit is not None:
            like = like_hit[1]
            top = like if like.parent is None else page.find(like.parent)
            chosen = next((s for s in sections if any(x is top for x in s.entries)), None)
        if chosen is None and self.section is None:
            near = _nearest(page, self.api)
            if near is not None:
                chosen = next((s for s in sections if any(x is near for x in s.entries)), None)
        if chosen is None and self.section is None:
            with_entries = [s for s in sections if s.entries]
            chosen = with_entries[-1] if with_entries else (sections[-1] if sections else None)
        if chosen is None:
            return n, ""
        if not chosen.entries:
            return _skip_blank(lines, chosen.line, n), chosen.title
        after = chosen.entries[-1]
        best = 1
        for e in chosen.entries:  # after the last close relative in the section, else at its end
            score = len(_common(self.api, e.api))
            if score >= best and score >= 2:
                best, after = score, e
        return _skip_blank(lines, after.end, n), chosen.title

    def _link(self, page: Page, parent: Entry | None, version: str) -> str:
        if self.link:
            return self.link
        if parent is not None and parent.link:
            return with_version(parent.link.partition("#")[0], version) + "#" + self.api
        base = docs_base([link.url for link in page.links])
        return f"{base}{docs_short(version)}/generated/{self.api}.html"

    def _verify(
        self, new_text: str, page: Page, start: int, statuses: list[Status], kind: str
    ) -> None:
        again = parse_page(new_text, page.path, self.tree.products, page.version)
        got = next((e for e in again.entries if e.api == self.api and e.start == start), None)
        want = {(s.code, s.supported) for s in statuses}
        have = {(p.code, p.supported) for p in got.products} if got else set()
        if got is None or got.kind != kind or (want != have and got.format != "yesno"):
            raise UsageError(
                f"the entry for {self.api} would not read back as written in {page.path} near line {start}; "
                f"nothing was changed: check the page with torchparity docs lint {page.path} "
                "(if it is clean, please report this with --debug)"
            )


def add_entry(
    api: str,
    docs_dir: str | Path,
    versions: Iterable[str] | None = None,
    *,
    like: str | None = None,
    statuses: Mapping[str, Status] | str | None = None,
    restrictions: Iterable[str] = (),
    products: Iterable[Any] = (),
    kind: str = "auto",
    section: str | None = None,
    link: str | None = None,
    dry_run: bool = False,
    root_hint: str = "",
    tree: DocsTree | None = None,
) -> AddResult:
    """Add ``api``'s entry to every version (all found if None) that lacks it.

    Exactly one of ``like`` (copy that entry's statuses, per version) and
    ``statuses`` (``{"910b": Status(...)}`` or the ``910b=支持,...`` text) is needed.
    """
    tree = tree or DocsTree(docs_dir, products, root_hint)
    if kind not in KINDS:
        raise UsageError(f"--kind {kind!r}: use one of {', '.join(KINDS)}")
    if (like is None) == (statuses is None):
        raise UsageError(
            "pass exactly one of --like PARENT (copy its statuses) and --status 910b=支持,..."
        )
    if like == api:
        raise UsageError(f"--like {like} is the API being added; name an existing entry")
    if isinstance(statuses, str):
        statuses = parse_statuses(statuses, tree.products)
    planner = _Planner(
        tree, api, like, statuses, [r for r in restrictions if r.strip()], kind, section, link
    )
    plans: list[_Plan] = []
    changes: list[Change] = []
    for version in tree.pick_versions(versions):
        got = planner.plan(version)
        if isinstance(got, _Plan):
            plans.append(got)
            changes.append(got.change)
        else:
            changes.append(got)
    if not dry_run:
        write_pages([PageEdit(plan.page.path, plan.page.text, plan.new_text) for plan in plans])
        for plan in plans:
            tree.forget(plan.version)
    return AddResult(api=api, docs_dir=str(tree.root), dry_run=dry_run, changes=tuple(changes))
