"""The support model of native API pages: page -> sections -> entries -> product statuses."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

#: the three ways pages have written the same kind of entry
TABLE = "table"  # **支持情况**： then | 硬件 | 是否支持 | with one row per product
YESNO = "yesno"  # **是否支持**：是 / 否, one status for every product
LIST = "list"  # **产品支持情况**： then - <term>NAME</term>：STATUS lines, each in <!-- npu --> comments
FORMATS = (TABLE, YESNO, LIST)

FUNCTION = "function"
CLASS = "class"
SUB_METHOD = "sub-method"

#: field labels, in the order the writing guide wants them (rank = position)
LINK_FIELD = "原生文档"
SUPPORT_FIELDS = ("产品支持情况", "支持情况", "是否支持")
RESTRICTION_FIELD = "限制与说明"
FIELD_RANK: dict[str, int] = {LINK_FIELD: 0, **{f: 1 for f in SUPPORT_FIELDS}, RESTRICTION_FIELD: 2}

SUPPORTED = "支持"
UNSUPPORTED = "不支持"
_YES = {"✔", "✓", "√", "☑", "是", "支持", "yes", "y", "true", "supported"}
_NO = {"✘", "✗", "×", "x", "否", "不支持", "暂不支持", "no", "n", "false", "unsupported"}

_TAG = re.compile(r"<[^>]+>")
_URL = re.compile(r"https?://[^\s)\"'<>\]]+")
#: ``/docs/2.11/`` (or ``/docs/stable/``...) inside a docs URL
DOCS_SEGMENT = re.compile(r"/docs/([^/#?\s)]+)/")
_SPACE = re.compile(r"\s+")


def status_of(raw: str) -> tuple[str, bool | None]:
    """Normalised status and whether it means supported (None: not a status word).

    HTML entities are decoded first (``&#10004;`` is ✔, ``&#10008;`` is ✘).
    """
    text = html.unescape(raw).strip() if "&" in raw else raw.strip()
    low = text.lower()
    if low in _YES:
        return SUPPORTED, True
    if low in _NO:
        return UNSUPPORTED, False
    if text.startswith(("不支持", "暂不支持", "否")):
        return text, False
    if text.startswith(("支持", "是")):
        return text, True
    return text, None


def plain(text: str) -> str:
    """Text without HTML tags and with runs of blanks made one space."""
    return _SPACE.sub(" ", _TAG.sub("", text)).strip()


@dataclass(frozen=True)
class Product:
    """A product a page reports on: a code (``910b``), its name, other spellings of the name."""

    code: str
    name: str
    aliases: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "aliases": list(self.aliases)}


class Products:
    """The configured products, looked up by code or by any spelling of their name."""

    def __init__(self, products: Iterable[Any] = ()) -> None:
        self.items: tuple[Product, ...] = tuple(
            p if isinstance(p, Product) else Product(str(p.code), str(p.name), tuple(p.aliases))
            for p in products
        )
        self._by_code = {p.code: p for p in self.items}
        self._by_name: dict[str, Product] = {}
        for p in self.items:
            for spelling in (p.name, p.code, *p.aliases):
                self._by_name.setdefault(self._key(spelling), p)

    @staticmethod
    def _key(name: str) -> str:
        return _SPACE.sub("", plain(html.unescape(name) if "&" in name else name)).lower()

    def __bool__(self) -> bool:
        return bool(self.items)

    def __iter__(self) -> Iterator[Product]:
        return iter(self.items)

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(p.code for p in self.items)

    def by_code(self, code: str) -> Product | None:
        return self._by_code.get(code)

    def by_name(self, name: str) -> Product | None:
        """Exact spelling (blanks and tags ignored), else the one product whose name starts with it
        or that it starts with (``Ascend 950DT`` -> ``Ascend 950DT系列产品``)."""
        key = self._key(name)
        found = self._by_name.get(key)
        if found is None and key:
            near = {
                p.code: p
                for k, p in self._by_name.items()
                if k.startswith(key) or key.startswith(k)
            }
            found = next(iter(near.values())) if len(near) == 1 else None
            if found is not None:
                self._by_name[key] = found
        return found

    def order(self, code: str) -> int:
        codes = self.codes
        return codes.index(code) if code in codes else len(codes)


@dataclass(frozen=True)
class ProductStatus:
    """One product's support for one entry, as the page writes it."""

    #: product code (``910b``); the name as written when no configured product matches it
    code: str
    #: the product name as written on the page (``<term>`` removed)
    name: str
    #: ``支持`` / ``不支持`` (table and yes/no formats), or the list line's own words
    status: str
    #: True / False; None when the status word is not understood
    supported: bool | None
    line: int
    #: the raw status cell or text (``✔``, ``是``, ``支持``)
    raw: str = ""
    #: whether ``code`` is a configured product
    known: bool = True
    #: the <!-- npu="..." idN --> id around the line (list format), else ""
    comment_id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "status": self.status,
            "supported": self.supported,
            "line": self.line,
            "raw": self.raw,
            "known": self.known,
            "comment_id": self.comment_id,
        }


@dataclass(frozen=True)
class Field:
    """A ``**label**：`` line of an entry."""

    label: str
    line: int
    #: what follows the colon on the same line
    rest: str


@dataclass(frozen=True)
class Entry:
    """One API entry: a heading (``### api``) or a sub-method marker and its ``<div>`` block."""

    api: str
    kind: str
    format: str
    #: the heading or ``> <font>name()</font>`` marker line (1-based)
    start: int
    #: the line of the ``</div>`` that closes the entry's block (1-based, inclusive)
    end: int
    #: the line of the ``<div ...>`` that opens the block (None when the page has none)
    div_line: int | None
    heading: str
    section: str
    link: str | None = None
    link_text: str | None = None
    link_line: int | None = None
    products: tuple[ProductStatus, ...] = ()
    restrictions: str = ""
    restrictions_line: int | None = None
    fields: tuple[Field, ...] = ()
    #: the api of the class entry this sub-method belongs to
    parent: str | None = None
    children: tuple[Entry, ...] = ()
    #: the block was not closed before the next entry or the end of the page
    unclosed: bool = False

    def status(self, code: str) -> ProductStatus | None:
        return next((p for p in self.products if p.code == code), None)

    @property
    def name(self) -> str:
        """The last component of the API name (``clone`` for ``...set_grad_enabled.clone``)."""
        return self.api.rsplit(".", 1)[-1]

    def to_json(self) -> dict[str, Any]:
        return {
            "api": self.api,
            "kind": self.kind,
            "format": self.format,
            "start": self.start,
            "end": self.end,
            "section": self.section,
            "link": self.link,
            "parent": self.parent,
            "products": [p.to_json() for p in self.products],
            "restrictions": self.restrictions,
            "children": [c.api for c in self.children],
        }


@dataclass(frozen=True)
class Section:
    """A category heading (``## Tensors``) and the top-level entries under it."""

    title: str
    level: int
    line: int
    #: last line of the section (before the next heading of the same or a higher level)
    end: int
    entries: tuple[Entry, ...] = ()


@dataclass(frozen=True)
class Comment:
    """A conditional comment: ``<!-- npu="910b" id7 -->`` (start) or ``<!-- end id7 -->`` (end)."""

    kind: str  # "start" | "end"
    id: str
    line: int
    #: product code of a start comment
    npu: str = ""
    #: the comment is the whole line (the guide's rule)
    own_line: bool = True


@dataclass(frozen=True)
class Link:
    """A URL to upstream docs on the page (any line, not only entries)."""

    url: str
    line: int
    #: the ``X.Y`` of ``/docs/X.Y/`` (or ``stable``...), "" when the URL has none
    docs_version: str


@dataclass(frozen=True)
class DivProblem:
    line: int
    message: str


@dataclass(frozen=True)
class Page:
    """A parsed page; ``text`` is the page exactly as read, lines are 1-based."""

    path: str
    text: str
    #: version from the folder (``pytorch_2-7-1`` -> ``2.7.1``), "" when unknown
    version: str
    format: str
    sections: tuple[Section, ...]
    #: every entry in document order, sub-methods included
    entries: tuple[Entry, ...]
    comments: tuple[Comment, ...] = ()
    div_problems: tuple[DivProblem, ...] = ()
    line_count: int = 0
    _index: dict[str, Entry] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for e in self.entries:
            self._index.setdefault(e.api, e)

    def find(self, api: str) -> Entry | None:
        return self._index.get(api)

    def entries_named(self, api: str) -> list[Entry]:
        return [e for e in self.entries if e.api == api]

    @cached_property
    def links(self) -> tuple[Link, ...]:
        """Every upstream-docs URL (one with ``/docs/<segment>/``) outside code fences."""
        out: list[Link] = []
        fence = ""
        for ln, line in enumerate(self.text.split("\n"), 1):
            s = line.strip()
            if fence:
                fence = "" if s.startswith(fence) else fence
                continue
            if s.startswith(("```", "~~~")):
                fence = s[:3]
                continue
            if "://" in s:
                for m in _URL.finditer(s):
                    seg = DOCS_SEGMENT.search(m.group(0))
                    if seg:
                        out.append(Link(m.group(0), ln, seg.group(1)))
        return tuple(out)

    @property
    def ids(self) -> set[str]:
        return {c.id for c in self.comments}

    def section_of(self, title: str) -> Section | None:
        return next((s for s in self.sections if s.title == title), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "version": self.version,
            "format": self.format,
            "sections": [
                {"title": s.title, "line": s.line, "entries": [e.to_json() for e in s.entries]}
                for s in self.sections
            ],
        }
