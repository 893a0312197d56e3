"""Write a new entry the way its page already writes entries (table, yes/no or conditional-comment list)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..errors import UsageError
from .model import (
    LINK_FIELD,
    LIST,
    RESTRICTION_FIELD,
    SUB_METHOD,
    SUPPORT_FIELDS,
    TABLE,
    YESNO,
    Page,
    Products,
)

DEFAULT_DIV = '<div style="margin-left: 2em">'
DEFAULT_MARKER = '> <font size="3">{name}()</font>'
DEFAULT_TABLE_HEAD = ("| 硬件 | 是否支持 |", "| ---- | :----: |")
DEFAULT_LABEL = {TABLE: "支持情况", LIST: "产品支持情况", YESNO: "是否支持"}
_MARKER_NAME = re.compile(r"(<font[^>]*>\s*)(.*?)(\s*</font>)")


@dataclass(frozen=True)
class Status:
    """A product status to write: code, the words for it, whether it means supported."""

    code: str
    status: str
    supported: bool


@dataclass(frozen=True)
class Style:
    """How one page writes entries, learned from its existing entries."""

    format: str
    support_label: str
    div_open: str = DEFAULT_DIV
    marker: str = DEFAULT_MARKER
    table_head: tuple[str, str] = DEFAULT_TABLE_HEAD
    yes: str = "✔"
    no: str = "✘"
    #: product code -> the name cell / list label exactly as the page writes it (``<term>...</term>``)
    names: dict[str, str] = field(default_factory=dict)
    #: list entries wrap each product line in <!-- npu --> comments
    comments: bool = True
    eol: str = "\n"


def _line(page_lines: list[str], n: int) -> str:
    raw = page_lines[n - 1] if 0 < n <= len(page_lines) else ""
    return raw[:-1] if raw.endswith("\r") else raw


def learn_style(page: Page, products: Products, fmt: str | None = None) -> Style:
    """The page's own way of writing entries (format ``fmt`` if given, else the page's)."""
    lines = page.text.split("\n")
    fmt = fmt or page.format
    same = [e for e in page.entries if e.format == fmt] or list(page.entries)
    labels = Counter(f.label for e in same for f in e.fields if f.label in SUPPORT_FIELDS)
    label = labels.most_common(1)[0][0] if labels else DEFAULT_LABEL[fmt]
    if fmt in DEFAULT_LABEL and label not in (DEFAULT_LABEL[fmt], "支持情况", "产品支持情况"):
        label = DEFAULT_LABEL[fmt]
    if fmt == YESNO:
        label = "是否支持"
    divs = Counter(_line(lines, e.div_line).strip() for e in page.entries if e.div_line)
    div_open = divs.most_common(1)[0][0] if divs else DEFAULT_DIV
    marker = DEFAULT_MARKER
    for e in page.entries:
        if e.kind == SUB_METHOD:
            m = _MARKER_NAME.search(_line(lines, e.start))
            if m:
                text = _line(lines, e.start).strip()
                marker = text[: m.start(2)] + "{name}()" + text[m.end(2) :]
                break
    head = DEFAULT_TABLE_HEAD
    names: dict[str, str] = {}
    yes_raw: Counter[str] = Counter()
    no_raw: Counter[str] = Counter()
    with_comments = 0
    total_list = 0
    for e in same:
        for k, p in enumerate(e.products):
            text = _line(lines, p.line).strip()
            if e.format == TABLE and fmt == TABLE:
                cells = [c.strip() for c in text.strip("|").split("|")]
                names.setdefault(p.code, cells[0])
                (yes_raw if p.supported else no_raw)[p.raw] += 1
                if k == 0 and head is DEFAULT_TABLE_HEAD:
                    h1, h2 = _line(lines, p.line - 2).strip(), _line(lines, p.line - 1).strip()
                    if h1.startswith("|") and h2.startswith("|"):
                        head = (h1, h2)
            elif e.format == LIST and fmt == LIST:
                total_list += 1
                with_comments += bool(p.comment_id)
                item = text[2:].strip() if text[:1] in "-*+" else text
                cut = item.find("</term>")
                if cut >= 0:
                    names.setdefault(p.code, item[: cut + len("</term>")])
    for product in products:
        names.setdefault(product.code, f"<term>{product.name}</term>")
    crlf = page.text.count("\r\n")
    eol = "\r\n" if crlf and crlf * 2 >= page.text.count("\n") else "\n"
    return Style(
        format=fmt,
        support_label=label,
        div_open=div_open,
        marker=marker,
        table_head=head,
        yes=yes_raw.most_common(1)[0][0] if yes_raw else "✔",
        no=no_raw.most_common(1)[0][0] if no_raw else "✘",
        names=names,
        comments=(with_comments * 2 >= total_list) if total_list else True,
        eol=eol,
    )


def render_entry(
    style: Style,
    api: str,
    kind: str,
    link: str,
    statuses: list[Status],
    restrictions: list[str],
    ids: list[str],
    where: str = "",
) -> list[str]:
    """The lines of a new entry (no line ends), heading or sub-method marker first, ``</div>`` last."""
    if kind == SUB_METHOD:
        head = style.marker.replace("{name}", api.rsplit(".", 1)[-1])
    else:
        head = f"### {api}"
    out = [head, "", style.div_open, "", f"**{LINK_FIELD}**：[{api}]({link})", ""]
    if style.format == YESNO:
        verdicts = {s.supported for s in statuses}
        if len(verdicts) != 1:
            shown = ", ".join(f"{s.code}={s.status}" for s in statuses)
            raise UsageError(
                f"{where or 'the page'} writes one 是/否 status for all products, but the statuses "
                f"differ ({shown}); add this entry by hand or give statuses that agree"
            )
        out += [f"**{style.support_label}**：{'是' if verdicts.pop() else '否'}", ""]
    elif style.format == TABLE:
        out += [f"**{style.support_label}**：", "", *style.table_head]
        for s in statuses:
            out.append(
                f"| {style.names.get(s.code, s.code)} | {style.yes if s.supported else style.no} |"
            )
        out.append("")
    else:
        out += [f"**{style.support_label}**：", ""]
        for s, cid in zip(statuses, ids, strict=False):
            line = f"- {style.names.get(s.code, s.code)}：{s.status}"
            if style.comments:
                out += [f'<!-- npu="{s.code}" id{cid} -->', line, f"<!-- end id{cid} -->"]
            else:
                out.append(line)
        out.append("")
    items = [r.strip() for r in restrictions if r.strip()]
    if len(items) == 1:
        out += [f"**{RESTRICTION_FIELD}**： {items[0]}", ""]
    elif items:
        out += [f"**{RESTRICTION_FIELD}**：", "", *(f"- {r}" for r in items), ""]
    out.append("</div>")
    return [line.rstrip() for line in out]


def fresh_ids(page: Page, count: int) -> list[str]:
    """``count`` numeric ids no comment in the page uses (after the highest one in use)."""
    used = page.ids
    top = max((int(i) for i in used if i.isdigit()), default=0)
    out: list[str] = []
    n = top
    while len(out) < count:
        n += 1
        if str(n) not in used:
            out.append(str(n))
    return out
