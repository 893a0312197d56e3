"""Read a native API page (table, yes/no or conditional-comment list format) into the support model.

One pass over the lines, tracking fenced code, headings, ``<div>`` nesting and
the current field of the innermost open entry. Line numbers are 1-based and
exact, so an edit can touch only the lines it means to.
"""

from __future__ import annotations

import bisect
import itertools
import os
import re
import stat
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .model import (
    CLASS,
    FUNCTION,
    LINK_FIELD,
    LIST,
    RESTRICTION_FIELD,
    SUB_METHOD,
    SUPPORT_FIELDS,
    TABLE,
    YESNO,
    Comment,
    DivProblem,
    Entry,
    Field,
    Page,
    Products,
    ProductStatus,
    Section,
    plain,
    status_of,
)
from .versions import linked_folder_problem, md_unescape, path_order, version_of_path

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_MARKER = re.compile(r"^>\s*<font[^>]*>\s*(.*?)\s*</font>\s*$")
_FIELD = re.compile(r"^\*\*([^*]+?)\*\*\s*[：:]\s*(.*)$")
_MD_LINK = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_COMMENT = re.compile(r"<!--(.*?)-->")
_CODE_SPAN = re.compile(r"`[^`]*`")
_START = re.compile(r'^\s*npu\s*=\s*"([^"]*)"\s+id([\w-]+)\s*$')
_END = re.compile(r"^\s*end\s+id([\w-]+)\s*$")
_TABLE_RULE = re.compile(r"^:?-+:?$")
_API_NAME = re.compile(r"^[A-Za-z_][\w.]*$")
_ZW = ("&#8203;", "\u200b")
_TAGS = re.compile(r"<[^>]+>")
_COLON = re.compile(r"[：:]")


class _Builder:
    """An entry while its lines are being read."""

    __slots__ = (
        "api",
        "kind",
        "start",
        "end",
        "div_line",
        "heading",
        "parent",
        "children",
        "fields",
        "field",
        "link",
        "link_text",
        "link_line",
        "products",
        "restr",
        "restr_line",
        "table_rows",
        "yesno",
        "unclosed",
        "last_line",
        "saw_table",
        "saw_list",
    )

    def __init__(
        self, api: str, kind: str, start: int, heading: str, parent: _Builder | None = None
    ) -> None:
        self.api = api
        self.kind = kind
        self.start = start
        self.end = 0
        self.div_line: int | None = None
        self.heading = heading
        self.parent = parent
        self.children: list[_Builder] = []
        self.fields: list[Field] = []
        self.field = ""
        self.link: str | None = None
        self.link_text: str | None = None
        self.link_line: int | None = None
        self.products: list[ProductStatus] = []
        self.restr: list[str] = []
        self.restr_line: int | None = None
        self.table_rows = 0
        self.yesno: tuple[str, int] | None = None
        self.unclosed = False
        self.last_line = start
        self.saw_table = False
        self.saw_list = False


def _heading_api(title: str) -> tuple[str, bool]:
    """API name and whether the heading marks a class (``<code><i>class</i></code> torch.X``)."""
    if not any(c in title for c in "<&\\`\u200b"):  # the common case: a plain name
        tokens = title.split()
        return (tokens[-1].split("(")[0] if tokens else ""), bool(tokens) and tokens[0] == "class"
    text = title
    for zw in _ZW:
        text = text.replace(zw, "")
    is_class = "<i>class</i>" in text
    text = _TAGS.sub(" ", text).replace("\\_", "_").replace("\\", "").replace("`", " ")
    tokens = text.split()
    if tokens and tokens[0] == "class":
        is_class = True
    name = tokens[-1].split("(")[0] if tokens else ""
    return name, is_class


def _status_line(
    products: Products,
    name: str,
    raw_status: str,
    ln: int,
    npu: str,
    cid: str,
    cache: dict[tuple[str, str, str], tuple[str, str, str, bool | None, bool]],
) -> ProductStatus:
    key = (name, raw_status, npu)
    hit = cache.get(key)
    if hit is None:
        status, supported = status_of(raw_status)
        found = products.by_code(npu) if npu else products.by_name(name)
        if npu:
            code, known = npu, (found is not None or not products)
        elif found is not None:
            code, known = found.code, True
        else:
            code, known = plain(name), not products
        hit = cache[key] = (code, plain(name), status, supported, known)
    code, shown, status, supported, known = hit
    return ProductStatus(code, shown, status, supported, ln, raw_status.strip(), known, cid)


def parse_page(
    text: str, path: str = "<page>", products: Iterable[Any] = (), version: str | None = None
) -> Page:
    """Parse one page. ``products`` are the configured products (code, name, aliases)."""
    prods = products if isinstance(products, Products) else Products(products)
    lines = text.split("\n")
    n = len(lines) - 1 if lines and lines[-1] == "" else len(lines)

    builders: list[_Builder] = []
    headings: list[tuple[int, str, int]] = []  # non-entry headings: (level, title, line)
    pending_headings: list[_Builder] = []  # level>=3 headings not yet known to be entries
    comments: list[Comment] = []
    problems: list[DivProblem] = []

    stack: list[tuple[_Builder | None, int]] = []  # one per open <div>: (its entry or None, line)
    owners: list[_Builder] = []  # entries with an open <div>, innermost last
    pending: _Builder | None = None  # heading/marker seen, <div> not yet
    open_comments: list[Comment] = []
    cache: dict[tuple[str, str, str], tuple[str, str, str, bool | None, bool]] = {}
    in_fence = ""

    def close_owners(why: str) -> None:
        # entries whose <div> is still open when a heading arrives: close them here
        while stack:
            if not owners:
                return
            item = stack.pop()[0]
            if item is not None:
                owners.pop()
                item.unclosed = True
                item.end = max(item.last_line, item.div_line or item.start)
                problems.append(
                    DivProblem(
                        item.div_line or item.start,
                        f"<div> of {item.api} is not closed before {why}",
                    )
                )

    def end_pending() -> None:
        nonlocal pending
        if pending is not None and pending.div_line is None:
            pending.end = max(pending.start, pending.last_line)
        pending = None

    if "\r" in text:  # CRLF pages: the model holds lines without their line ends
        lines = [x[:-1] if x.endswith("\r") else x for x in lines]
    for ln, line in enumerate(itertools.islice(lines, n), 1):
        s = line.strip()
        cur = owners[-1] if owners else pending
        if in_fence:
            if s.startswith(in_fence):
                in_fence = ""
            if cur is not None and cur.field == RESTRICTION_FIELD:
                cur.restr.append(line)
                cur.last_line = ln
            continue
        if not s:
            if cur is not None and cur.field == RESTRICTION_FIELD:
                cur.restr.append("")
            continue
        first = s[0]
        if s.startswith(("```", "~~~")):
            in_fence = s[:3]
            if cur is not None and cur.field == RESTRICTION_FIELD:
                cur.restr.append(line)
                cur.last_line = ln
            continue

        if first == "#":
            m = _HEADING.match(s)
            if m and not (owners and len(m.group(1)) >= 4):  # a #### inside an entry is its text
                level, title = len(m.group(1)), m.group(2)
                if owners:
                    close_owners(f"the heading at line {ln}")
                end_pending()
                if level >= 3:
                    api, is_class = _heading_api(title)
                    b = _Builder(api, CLASS if is_class else FUNCTION, ln, s)
                    pending = b
                    pending_headings.append(b)
                    builders.append(b)
                else:
                    title_text = plain(title)
                    for zw in _ZW:
                        title_text = title_text.replace(zw, "")
                    headings.append((level, title_text.strip(), ln))
                continue

        if first == ">" and "<font" in s and owners:
            m = _MARKER.match(s)
            if m:
                parent = owners[-1]
                if parent.parent is not None:  # a sub-method left open
                    if stack and stack[-1][0] is parent:
                        stack.pop()
                        owners.pop()
                        parent.unclosed = True
                        parent.end = parent.last_line
                        problems.append(
                            DivProblem(
                                parent.div_line or parent.start,
                                f"<div> of {parent.api} is not closed before line {ln}",
                            )
                        )
                    parent = parent.parent
                end_pending()
                parent.field = ""
                name = md_unescape(m.group(1).split("(")[0].strip())
                b = _Builder(f"{parent.api}.{name}", SUB_METHOD, ln, s, parent)
                parent.children.append(b)
                builders.append(b)
                pending = b
                continue

        if "div" in s:
            opens, closes = s.count("<div"), s.count("</div>")
            if opens or closes:
                for _ in range(opens):
                    if pending is not None and pending.div_line is None:
                        pending.div_line = ln
                        stack.append((pending, ln))
                        owners.append(pending)
                        pending = None
                    else:
                        stack.append((None, ln))
                for _ in range(closes):
                    if not stack:
                        problems.append(DivProblem(ln, "</div> closes no open <div>"))
                        continue
                    item = stack.pop()[0]
                    if item is not None:
                        owners.pop()
                        item.end = ln
                        item.field = ""
                continue

        if cur is not None:
            cur.last_line = ln

        npu, cid = "", ""
        if "<!--" in s:
            if s.startswith("<!--") and s.endswith("-->") and s.count("<!--") == 1:
                bodies, own = [s[4:-3]], True  # the usual case: the comment is the whole line
            else:
                bare = _CODE_SPAN.sub("", s) if "`" in s else s  # `<!-- -->` in code is text
                bodies, own = [m.group(1) for m in _COMMENT.finditer(bare)], False
            for body in bodies:
                ms = _START.match(body)
                if ms:
                    c = Comment("start", ms.group(2), ln, ms.group(1), own)
                    comments.append(c)
                    open_comments.append(c)
                    continue
                me = _END.match(body)
                if me:
                    cid = me.group(1)
                    comments.append(Comment("end", cid, ln, "", own))
                    for k in range(len(open_comments) - 1, -1, -1):
                        if open_comments[k].id == cid:
                            del open_comments[k:]
                            break
                    else:
                        if open_comments:
                            open_comments.pop()
            if own:
                if cur is not None and cur.field == RESTRICTION_FIELD:
                    cur.restr.append(line)
                continue
        if open_comments:
            npu, cid = open_comments[-1].npu, open_comments[-1].id

        if cur is None:
            continue

        if first == "*" and s.startswith("**"):
            mf = _FIELD.match(s)
            if mf:
                label, rest = mf.group(1).strip(), mf.group(2).strip()
                cur.fields.append(Field(label, ln, rest))
                cur.field = label
                cur.table_rows = 0
                if label == LINK_FIELD:
                    ml = _MD_LINK.search(rest)
                    if ml:
                        cur.link_text, cur.link, cur.link_line = (
                            ml.group(1).strip(),
                            ml.group(2),
                            ln,
                        )
                elif label == RESTRICTION_FIELD:
                    cur.restr_line = ln
                    cur.restr.append(rest)
                elif label == "是否支持":
                    cur.yesno = (rest, ln)
                continue

        field = cur.field
        if not field:
            continue
        if field == RESTRICTION_FIELD:
            cur.restr.append(line)
        elif field == LINK_FIELD:
            if cur.link is None:
                ml = _MD_LINK.search(s)
                if ml:
                    cur.link_text, cur.link, cur.link_line = ml.group(1).strip(), ml.group(2), ln
        elif field in SUPPORT_FIELDS:
            if first == "|":
                cells = [c.strip() for c in s.strip("|").split("|")]
                if "--" in s and all(_TABLE_RULE.match(c) for c in cells if c):
                    continue
                cur.table_rows += 1
                if cur.table_rows == 1 or len(cells) < 2:  # header row
                    continue
                cur.saw_table = True
                cur.products.append(_status_line(prods, cells[0], cells[1], ln, "", "", cache))
            elif first in "-*+" and len(s) > 1 and s[1] == " ":
                text_item = s[2:].strip()
                if "<term>" in text_item and "</term>" in text_item:
                    name = text_item[text_item.index("<term>") + 6 : text_item.index("</term>")]
                    after = text_item[text_item.index("</term>") + 7 :].lstrip()
                else:
                    sep = _COLON.search(text_item)
                    if not sep:
                        continue
                    name, after = text_item[: sep.start()], text_item[sep.start() :]
                if not after or after[0] not in "：:":
                    continue
                cur.saw_list = True
                cur.products.append(_status_line(prods, name, after[1:], ln, npu, cid, cache))

    if owners:
        close_owners("the end of the page")
    for _, opened in stack:
        problems.append(DivProblem(opened, "<div> is never closed"))
    end_pending()

    # level>=3 headings without a field or a block are sub-headings, not entries
    real = [b for b in builders if b.fields or b.div_line is not None or b.kind == SUB_METHOD]
    real_set = {id(b) for b in real}
    for b in pending_headings:
        if id(b) not in real_set:
            level = len(b.heading) - len(b.heading.lstrip("#"))
            headings.append((level, plain(b.heading.lstrip("#")), b.start))
    headings.sort(key=lambda h: h[2])
    head_lines = [h[2] for h in headings]

    def section_title(line_no: int) -> str:
        k = bisect.bisect_left(head_lines, line_no) - 1
        return headings[k][1] if k >= 0 else ""

    built: dict[int, Entry] = {}

    def freeze(b: _Builder, parent_api: str | None, section_name: str) -> Entry:
        api = b.api
        if parent_api is not None:
            api = f"{parent_api}.{b.api.rsplit('.', 1)[-1]}"
        elif not _API_NAME.match(api) and b.link_text and _API_NAME.match(b.link_text):
            api = b.link_text
        kids = tuple(freeze(c, api, section_name) for c in b.children if id(c) in real_set)
        kind = CLASS if b.kind == FUNCTION and kids else b.kind
        products = list(b.products)
        if b.yesno is not None:
            fmt = YESNO
            status, supported = status_of(b.yesno[0])
            raw_status, at = b.yesno
            products = [
                ProductStatus(p.code, p.name, status, supported, at, raw_status) for p in prods
            ] or [ProductStatus("all", "all products", status, supported, at, raw_status)]
        elif b.saw_table:
            fmt = TABLE
        elif b.saw_list:
            fmt = LIST
        else:
            labels = {f.label for f in b.fields}
            fmt = TABLE if "支持情况" in labels else LIST if "产品支持情况" in labels else ""
        restr = "\n".join(b.restr).strip() if b.restr_line is not None else ""
        entry = Entry(
            api=api,
            kind=kind,
            format=fmt,
            start=b.start,
            end=b.end or b.last_line,
            div_line=b.div_line,
            heading=b.heading,
            section=section_name,
            link=b.link,
            link_text=b.link_text,
            link_line=b.link_line,
            products=tuple(products),
            restrictions=restr,
            restrictions_line=b.restr_line,
            fields=tuple(b.fields),
            parent=parent_api,
            children=kids,
            unclosed=b.unclosed,
        )
        built[id(b)] = entry
        return entry

    top = [freeze(b, None, section_title(b.start)) for b in real if b.parent is None]
    entries = tuple(built[id(b)] for b in real if id(b) in built)

    sections: list[Section] = []
    for k, (level, title, line_no) in enumerate(headings):
        end = n
        for level2, _, line2 in headings[k + 1 :]:
            if level2 <= level:
                end = line2 - 1
                break
        nxt = headings[k + 1][2] if k + 1 < len(headings) else n + 1
        sections.append(
            Section(title, level, line_no, end, tuple(e for e in top if line_no < e.start < nxt))
        )
    if top and (not headings or top[0].start < headings[0][2]):
        first_head = headings[0][2] if headings else n + 1
        sections.insert(
            0, Section("", 0, 1, first_head - 1, tuple(e for e in top if e.start < first_head))
        )

    formats = Counter(e.format for e in entries if e.format)
    page_format = formats.most_common(1)[0][0] if formats else LIST
    return Page(
        path=path,
        text=text,
        version=version if version is not None else version_of_path(path),
        format=page_format,
        sections=tuple(sections),
        entries=entries,
        comments=tuple(comments),
        div_problems=tuple(problems),
        line_count=n,
    )


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def not_a_page(path: str | Path) -> str:
    """Why ``path`` is not a page file ("" when it is a regular file, or a symlink to one); nothing is opened."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.islink(path):
            return f"{path} is a broken symlink (to {os.readlink(path)}), not a page; remove it or point it at a page"
        return f"no such page: {path}"
    except OSError as exc:
        return f"cannot read page {path}: {exc.strerror}; check the path"
    if stat.S_ISREG(mode):
        return ""
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return f"{path} is {kind}, not a page: a page is a regular .md file; remove or rename it"


def _nul_problem(path: Path, text: str) -> str:
    at = text.find("\0")
    if at < 0:
        return ""
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    return f"{path}:{line}:{col}: the page holds a NUL byte, so it is not text; remove it (or restore the page)"


def read_page(path: str | Path, products: Iterable[Any] = (), version: str | None = None) -> Page:
    """Read and parse one page file: a regular UTF-8 file without NUL bytes (a clear error when it is not;
    a FIFO or folder is never opened)."""
    p = Path(path)
    problem = not_a_page(p)
    if problem:
        raise UsageError(problem)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read page {p}: {exc.strerror}; check the path") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{p}: not UTF-8 (byte {exc.start}); save the page as UTF-8") from exc
    if text.startswith("\ufeff"):  # a byte-order mark stays out of the model (add keeps it)
        text = text[1:]
    problem = _nul_problem(p, text)
    if problem:
        raise UsageError(problem)
    return parse_page(text, str(p), products, version)


#: pages of a version folder that list no APIs (the writing guide: overview and menu pages)
NOT_MODULE_PAGES = ("overview.md", "readme.md")


def is_module_page(path: str | Path) -> bool:
    """Whether ``path`` is a module page: ``pytorch_<X-Y-Z>/<module>.md`` (or a flattened
    ``pytorch_<X-Y-Z>_<module>.md`` copy), not ``overview.md``, ``PyTorch-*.md``, ``_*.md``
    or ``README.md``."""
    p = Path(path)
    name = p.name
    low = name.lower()
    if (
        not low.endswith(".md")
        or name.startswith("_")
        or low in NOT_MODULE_PAGES
        or low.startswith("pytorch-")
    ):
        return False
    return bool(version_of_path(p))


def page_files(folder: Path) -> list[Path]:
    """The module pages under ``folder`` (see ``is_module_page``), oldest version first, then by name.

    Bad input, one line: a version folder (``folder`` or one in it) that is a symlink to a folder of
    another name (its pages would be read as the wrong version's, see ``linked_folder_problem``), and
    a name of a module page that is not a regular file (a folder, a FIFO, a broken symlink: never
    opened, never passed by as if the page had no entry).
    """
    for sub in (folder, *(c for c in _children(folder) if c.is_symlink())):
        problem = linked_folder_problem(sub)
        if problem:
            raise UsageError(problem)
    found = []
    for p in folder.rglob("*.md"):
        if not is_module_page(p):
            continue
        problem = not_a_page(p)
        if problem:
            raise UsageError(problem)
        found.append(p)
    return sorted(found, key=path_order)


def _children(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def read_folder(
    folder: Path, products: Iterable[Any] = (), version: str | None = None
) -> list[Page]:
    prods = products if isinstance(products, Products) else Products(products)
    return [read_page(p, prods, version) for p in page_files(folder)]
