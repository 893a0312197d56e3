"""The writing guide's checkable rules over native API pages, with a baseline for pages that predate them."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..fsutil import atomic_write
from .model import (
    CLASS,
    FIELD_RANK,
    LINK_FIELD,
    RESTRICTION_FIELD,
    SUPPORT_FIELDS,
    Comment,
    Page,
    Products,
)
from .parse import not_a_page, page_files, read_page
from .versions import docs_short, link_api_problem

#: rule id -> what it checks (README lists the same)
RULES: dict[str, str] = {
    "comment-own-line": "a conditional comment (<!-- npu=... idN --> / <!-- end idN -->) shares its line with text",
    "comment-pair": "a start comment is not closed by an end comment with the same id, or an end has no start",
    "id-duplicate": "a start-comment id is used more than once in the file",
    "field-order": "fields out of order or repeated (原生文档, 产品支持情况, optional 限制与说明)",
    "field-missing": "an entry lacks its 原生文档 link or its support field",
    "restriction-empty": "限制与说明 is empty or a placeholder (无, -): omit the field instead",
    "link-version": "a docs link's /docs/X.Y/ does not match the page's pytorch_X-Y-Z folder",
    "link-api": "an entry's 原生文档 link does not point at its API (page or #anchor)",
    "div-balance": "<div> containers not balanced, or an entry without its <div> block",
    "product-unknown": "a product code or name that the configured products do not know",
    "status-unknown": "a support status that is neither supported nor unsupported (✔/✘, 支持/不支持, 是/否)",
}

#: what a restrictions field holds when it means "nothing"
PLACEHOLDERS = {"", "无", "-", "—", "--", "暂无", "N/A", "n/a", "NA", "/", "无限制"}
_VERSIONISH = re.compile(r"^(\d+\.\d+|stable|main|master|latest|nightly)$")
_LINE_REF = re.compile(r"line \d+")


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    rule: str
    message: str

    @property
    def key(self) -> str:
        """The message without line numbers: stable when lines above it move."""
        return _LINE_REF.sub("line N", self.message)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule} {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "rule": self.rule, "message": self.message}


def _comment_findings(path: str, comments: Iterable[Comment], products: Products) -> list[Finding]:
    out: list[Finding] = []
    opened: list[Comment] = []
    seen: dict[str, int] = {}
    for c in comments:
        text = f'<!-- npu="{c.npu}" id{c.id} -->' if c.kind == "start" else f"<!-- end id{c.id} -->"
        if not c.own_line:
            out.append(
                Finding(
                    path,
                    c.line,
                    "comment-own-line",
                    f"{text} must stand on its own line (no inline filtering)",
                )
            )
        if c.kind == "start":
            if c.id in seen:
                out.append(
                    Finding(
                        path,
                        c.line,
                        "id-duplicate",
                        f"id{c.id} is already used at line {seen[c.id]}; pick an unused id",
                    )
                )
            else:
                seen[c.id] = c.line
            if products and c.npu not in products.codes:
                known = ", ".join(products.codes)
                out.append(
                    Finding(
                        path,
                        c.line,
                        "product-unknown",
                        f'npu="{c.npu}" is not a known product code ({known})',
                    )
                )
            if opened:
                prev = opened.pop()
                out.append(
                    Finding(
                        path,
                        prev.line,
                        "comment-pair",
                        f"id{prev.id} is not closed before the next start comment at line {c.line}",
                    )
                )
            opened.append(c)
            continue
        if opened and opened[-1].id == c.id:
            opened.pop()
        elif opened:
            prev = opened.pop()
            out.append(
                Finding(
                    path,
                    c.line,
                    "comment-pair",
                    f"<!-- end id{c.id} --> closes id{prev.id} (line {prev.line}); use the same id",
                )
            )
        else:
            out.append(
                Finding(path, c.line, "comment-pair", f"<!-- end id{c.id} --> has no start comment")
            )
    for c in opened:
        out.append(
            Finding(
                path, c.line, "comment-pair", f"id{c.id} is never closed by <!-- end id{c.id} -->"
            )
        )
    return out


def lint_page(
    page: Page, products: Iterable[Any] = (), shown_path: str | None = None
) -> list[Finding]:
    """Every rule over one parsed page, sorted by line."""
    prods = products if isinstance(products, Products) else Products(products)
    path = shown_path or page.path
    out = _comment_findings(path, page.comments, prods)

    for prob in page.div_problems:
        out.append(Finding(path, prob.line, "div-balance", prob.message))

    if page.version:
        want = docs_short(page.version)
        for link in page.links:
            if _VERSIONISH.match(link.docs_version) and link.docs_version != want:
                out.append(
                    Finding(
                        path,
                        link.line,
                        "link-version",
                        f"link is for /docs/{link.docs_version}/ but the page is "
                        f"{page.version}: use /docs/{want}/",
                    )
                )

    for e in page.entries:
        container = e.kind == CLASS and e.children and not e.fields
        if e.div_line is None and not e.unclosed:
            out.append(
                Finding(
                    path,
                    e.start,
                    "div-balance",
                    f'{e.api} has no <div style="margin-left: 2em"> block',
                )
            )
        labels = [f.label for f in e.fields]
        if not container:
            if LINK_FIELD not in labels:
                out.append(
                    Finding(path, e.start, "field-missing", f"{e.api} has no **原生文档** field")
                )
            if not any(lab in SUPPORT_FIELDS for lab in labels):
                out.append(
                    Finding(
                        path,
                        e.start,
                        "field-missing",
                        f"{e.api} has no product support field (**产品支持情况**)",
                    )
                )
        best, best_label = -1, ""
        for f in e.fields:
            rank = FIELD_RANK.get(f.label)
            if rank is None:
                continue
            if rank <= best:
                what = "repeats" if rank == best else f"comes after **{best_label}**"
                out.append(
                    Finding(
                        path,
                        f.line,
                        "field-order",
                        f"**{f.label}** {what} in {e.api}; order: 原生文档, 产品支持情况, 限制与说明",
                    )
                )
            else:
                best, best_label = rank, f.label
        if e.restrictions_line is not None and e.restrictions.strip() in PLACEHOLDERS:
            shown = e.restrictions.strip() or "empty"
            out.append(
                Finding(
                    path,
                    e.restrictions_line,
                    "restriction-empty",
                    f"**{RESTRICTION_FIELD}** of {e.api} is {shown}; omit the field when there is no restriction",
                )
            )
        if e.link:
            problem = link_api_problem(e.link, e.api, e.kind)
            if problem:
                out.append(Finding(path, e.link_line or e.start, "link-api", f"{e.api}: {problem}"))
        for p in e.products:
            if prods and not p.known and not p.comment_id:
                out.append(
                    Finding(
                        path,
                        p.line,
                        "product-unknown",
                        f"product {p.name!r} in {e.api} matches no configured product",
                    )
                )
            if p.supported is None:
                out.append(
                    Finding(
                        path,
                        p.line,
                        "status-unknown",
                        f"status {p.raw!r} of {p.name} in {e.api} is neither supported nor unsupported",
                    )
                )
    out.sort(key=lambda f: (f.line, f.rule))
    return out


def lint_files(paths: Iterable[str | Path]) -> list[Path]:
    """The pages to lint: a file as given (whatever its name); under a folder, its module pages only
    (``pytorch_<X-Y-Z>/<module>.md``: no overview, ``PyTorch-*``, ``_*`` or README pages)."""
    files: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = page_files(p)
            if not found:
                raise UsageError(
                    f"no module pages (pytorch_<X-Y-Z>/<module>.md) under {p}; pass the native_api folder, "
                    "a version folder, or name the .md files to lint them whatever their name"
                )
            files.extend(found)
        elif p.is_file():
            files.append(p)
        elif os.path.lexists(p):
            raise UsageError(not_a_page(p))
        else:
            raise UsageError(f"no such page or folder: {p}; pass .md files or folders to lint")
    return list(dict.fromkeys(files))


def lint_paths(
    paths: Iterable[str | Path], products: Iterable[Any] = ()
) -> tuple[list[Finding], int]:
    """Findings over every page under ``paths`` and how many pages were read."""
    prods = products if isinstance(products, Products) else Products(products)
    files = lint_files(paths)
    out: list[Finding] = []
    for f in files:
        out.extend(lint_page(read_page(f, prods), prods, str(f)))
    return out, len(files)


def summary(findings: Iterable[Finding], pages: int) -> str:
    """``N finding(s) in M of K page(s)``: M pages have findings, K were read."""
    found = list(findings)
    return f"{len(found)} finding(s) in {len({f.path for f in found})} of {pages} page(s)"


# -- baseline: findings already known, so that only new ones fail ------------------------


def _base_key(f: Finding, base_dir: Path) -> tuple[str, str, str]:
    rel = os.path.relpath(os.path.abspath(f.path), base_dir)
    return (Path(rel).as_posix(), f.rule, f.key)


def baseline_doc(findings: Iterable[Finding], base_dir: Path) -> dict[str, Any]:
    counts = Counter(_base_key(f, base_dir) for f in findings)
    return {
        "tool": "torchparity docs lint",
        "version": 1,
        "findings": [
            {"path": p, "rule": r, "key": k, "count": n} for (p, r, k), n in sorted(counts.items())
        ],
    }


def write_baseline(path: str | Path, findings: Iterable[Finding]) -> int:
    """Write the baseline file (paths relative to its folder); returns how many findings it holds."""
    file = Path(path)
    base = file.absolute().parent
    doc = baseline_doc(findings, base)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(file, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    except OSError as exc:
        raise UsageError(
            f"cannot write the baseline {file}: {exc.strerror or exc}; "
            "pass a writable path to --write-baseline"
        ) from exc
    return sum(item["count"] for item in doc["findings"])


def load_baseline(path: str | Path) -> Counter[tuple[str, str, str]]:
    file = Path(path)
    try:
        doc = json.loads(file.read_text("utf-8"))
        items = doc["findings"]
        return Counter({(i["path"], i["rule"], i["key"]): int(i["count"]) for i in items})
    except FileNotFoundError:
        raise UsageError(
            f"baseline file not found: {file}; write one with --write-baseline {file}"
        ) from None
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(
            f"{file}: not a docs lint baseline ({exc}); write it again with --write-baseline"
        ) from None


def split_baselined(
    findings: Iterable[Finding], baseline: Counter[tuple[str, str, str]], baseline_path: str | Path
) -> tuple[list[Finding], list[Finding]]:
    """(new findings, findings the baseline already holds)."""
    left = Counter(baseline)
    base = Path(baseline_path).absolute().parent
    new: list[Finding] = []
    known: list[Finding] = []
    for f in findings:
        k = _base_key(f, base)
        if left[k] > 0:
            left[k] -= 1
            known.append(f)
        else:
            new.append(f)
    return new, known
