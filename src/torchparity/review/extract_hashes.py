"""Claims that carry a hash: commits (40 hex), submodule pointers, file and evidence-log SHA-256 (64 hex).

A hash's role comes from the words before it on its line, or, when it stands
alone (in a code block under ``测试提交：``), from the lines just above it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from .context import Context, paths_in
from .document import Document, Line
from .records import CommitClaim, EvidenceClaim, Sha256Claim, SubmoduleClaim

HASH = re.compile(r"(?<![0-9A-Za-z])([0-9a-f]{64}|[0-9a-f]{40})(?![0-9A-Za-z])")
SHORT_COMMIT = re.compile(
    r"(?:\bcommit|提交|HEAD)\s*(?:[:：=]\s*)?`?([0-9a-f]{7,39})(?![0-9A-Za-z])", re.IGNORECASE
)
_URL = re.compile(r"https?://\S+")
_PR_NUMBER = re.compile(
    r"(?:\bPR\s*(?:[#!]\s*)?|/pull/|/pulls/|/merge_requests/|!)(\d{3,7})\b", re.IGNORECASE
)

_SUBMODULE = re.compile(r"gitlink|submodule|子模块|子仓|ls-tree", re.IGNORECASE)
_UPSTREAM = re.compile(
    r"upstream|pytorch/pytorch|PyTorch\s*(?:官方|社区|仓|主仓|v?\d)|官方\s*PyTorch|社区\s*PyTorch",
    re.IGNORECASE,
)
_DOCS = re.compile(r"资料提交|文档提交|docs?\s*commit|资料\s*commit", re.IGNORECASE)
_BASELINE = re.compile(r"基线|baseline|base\s*commit|merge[- ]base|基于|\bbase\b", re.IGNORECASE)
_SEARCHED = re.compile(r"中执行|中检索|检索|\bgrep\b|searched", re.IGNORECASE)
_SOURCE = re.compile(r"commit|提交|HEAD|SHA|源分支|source", re.IGNORECASE)
#: a ref and its commit (``origin/v2.7.1（bacce7d…）``); it starts where a run of name characters starts
#: (the leftmost match did anyway), so that a long run is walked once, not once from each of its characters
_SEARCH_REF = re.compile(r"(?<![\w./-])`?(?:origin/)?([\w./-]+?)`?\s*[（(]\s*`?[0-9a-f]{7,40}")

_EVIDENCE = re.compile(r"证据|evidence|日志|\blog\b|LOG_SHA|原始输出|raw output", re.IGNORECASE)
_SHA_WORD = re.compile(r"sha-?256|sha256sum|哈希|digest|TEST_FILE_SHA256", re.IGNORECASE)


def _label(doc: Document, ln: Line, start: int) -> str:
    """The words that say what the hash at ``start`` is: before it on the line, else the lines above."""
    before = ln.text[:start]
    if re.search(r"[A-Za-z\u4e00-\u9fff]{2,}", before):
        return before
    above = []
    for prev in doc.previous_text(ln.no, limit=2):
        if HASH.fullmatch(prev.stripped.strip("`")):
            continue
        above.append(prev.stripped)
        break
    return " ".join(above) + " " + before


def _pr_near(doc: Document, ln: Line) -> str:
    lo, hi = max(1, ln.no - 8), min(len(doc), ln.no + 8)
    for no in sorted(range(lo, hi + 1), key=lambda n: abs(n - ln.no)):
        text = doc.at(no).stripped
        if doc.at(no).bot or not re.search(r"PR|pull|merge_request", text, re.IGNORECASE):
            continue
        m = _PR_NUMBER.search(text)
        if m:
            return m.group(1)
    return ""


def _role(label: str) -> str:
    if _UPSTREAM.search(label):
        return "upstream"
    if _DOCS.search(label):
        return "docs"
    if _BASELINE.search(label):
        return "baseline"
    if _SEARCHED.search(label):
        return "searched"
    if _SOURCE.search(label):
        return "source"
    return "other"


def _in_url(text: str, start: int, end: int) -> str | None:
    for m in _URL.finditer(text):
        if m.start() <= start and end <= m.end():
            return m.group(0)
    return None


def _submodule(ln: Line, hashes: list[str], branch: str) -> SubmoduleClaim | None:
    paths = [
        p
        for p in re.findall(r"(?<![\w:/.-])([\w.-]+(?:/[\w.-]+)+)", _URL.sub(" ", ln.text))
        if not HASH.search(p)
    ]
    if not paths:
        return None
    paths.sort(key=lambda p: (not p.startswith("third_party/"), ln.text.find(p)))
    text = ln.text
    old, new = "", hashes[-1]
    if len(hashes) >= 2 and _from_to(text):
        old, new = hashes[0], hashes[1]
    return SubmoduleClaim(
        line=ln.no, text=ln.stripped, paths=tuple(paths), new=new, old=old, branch=branch
    )


def _from_to(text: str) -> bool:
    """The line says "from A to B" (``从 A 更新到 B``, ``from A to B``, ``A -> B``); one pass, no backtracking."""
    if "->" in text or "→" in text:
        return True
    start = text.find("从")
    if start != -1 and any(text.find(w, start + 1) != -1 for w in ("更新", "升级", "改")):
        return True
    m = _FROM.search(text)
    return m is not None and _TO.search(text, m.end()) is not None


_FROM = re.compile(r"from\b", re.IGNORECASE)
_TO = re.compile(r"\bto\b", re.IGNORECASE)


def _nearest_path(doc: Document, ln: Line, limit: int = 15) -> str:
    """The nearest test-looking path above ``ln`` in its section."""
    for prev in doc.previous_text(ln.no, limit=limit):
        if prev.section != ln.section:
            break
        found = [p for p in paths_in(prev.text) if not p.startswith("docs/")]
        if found:
            return found[-1]
    return ""


def extract_hashes(
    doc: Document, ctx: Context
) -> Iterator[CommitClaim | SubmoduleClaim | Sha256Claim | EvidenceClaim]:
    header_of = _table_headers(doc)
    for ln in doc:
        if ln.bot or ln.is_heading:
            continue
        text = ln.text
        found = [(m.group(1), m.start(1), m.end(1)) for m in HASH.finditer(text)]
        c = ctx.at(ln.no)
        commits = [(h, s, e) for h, s, e in found if len(h) == 40 and not _in_url(text, s, e)]
        if commits and (_SUBMODULE.search(text) or "third_party/" in text):
            sub = _submodule(ln, [h for h, _, _ in commits], c.branch)
            if sub is not None:
                yield sub
                commits = []
        search_ref: list[
            re.Match[str] | None
        ] = []  # the line's ref (searched once, for all its commits)
        for sha, start, _ in commits:
            label = _label(doc, ln, start)
            role = _role(label)
            if role == "other":
                role = _role(text)
            branch = c.branch
            if role == "searched" or role == "baseline":
                if not search_ref:
                    search_ref.append(_SEARCH_REF.search(text))
                m = search_ref[0]
                if m and m.group(1) not in ("在", "in"):
                    branch = m.group(1).removeprefix("origin/")
            yield CommitClaim(
                line=ln.no,
                text=ln.stripped,
                sha=sha,
                role=role,
                branch=branch,
                pr=_pr_near(doc, ln) if role == "docs" else "",
            )
        if not found:
            m = SHORT_COMMIT.search(text)
            if (
                m
                and re.search(r"\d", m.group(1))
                and re.search(r"[a-f]", m.group(1))
                and "-by" not in text
            ):
                sha = m.group(1)
                yield CommitClaim(
                    line=ln.no,
                    text=ln.stripped,
                    sha=sha,
                    role=_role(text[: m.start(1)]),
                    branch=c.branch,
                )
        for digest, start, end in found:
            if len(digest) != 64 or _in_url(text, start, end):
                continue
            label = _label(doc, ln, start)
            key = re.match(r"\s*([A-Z_]+)_SHA256=", text)
            # a log's ``X_SHA256=`` is the hash of the file its own ``X=`` line names (TEST_FILE,
            # UPSTREAM_FILE), never of another section's file
            if key and c.key(key.group(1)):
                yield Sha256Claim(
                    line=ln.no,
                    text=ln.stripped,
                    digest=digest,
                    path=c.key(key.group(1)),
                    path_from="test_file",
                    branch=c.branch or c.key("TARGET_BRANCH"),
                )
                continue
            on_line = [p for p in paths_in(text) if digest not in p]
            if text[max(0, start - 7) : start].lower() == "sha256:" and not on_line:
                continue  # an image or package digest (``sha256:…``), not a file of the repository
            if (
                _EVIDENCE.search(label)
                and not on_line
                and "文件" not in label
                and "file" not in label.lower()
            ):
                yield EvidenceClaim(line=ln.no, text=ln.stripped, digest=digest)
                continue
            sha256sum_style = re.match(rf"\s*`?{digest}`?\s+\S", text)
            if not (_SHA_WORD.search(label) or _SHA_WORD.search(text) or sha256sum_style):
                continue
            if on_line:
                path, how = on_line[0], "line"
            elif c.key("TEST_FILE") and c.log_start:
                path, how = c.key("TEST_FILE"), "test_file"
            else:
                path = _nearest_path(doc, ln)
                how = "nearest" if path else "changed"
            yield Sha256Claim(
                line=ln.no,
                text=ln.stripped,
                digest=digest,
                path=path,
                path_from=how,
                branch=c.branch or c.key("TARGET_BRANCH"),
            )
        if text.lstrip().startswith("|") and _EVIDENCE.search(header_of(ln.no)):
            # the short evidence digests of torchparity's own tables (证据 SHA-256 column)
            for m in re.finditer(r"`([0-9a-f]{12,16})`", text):
                yield EvidenceClaim(line=ln.no, text=ln.stripped, digest=m.group(1))


def _table_headers(doc: Document) -> Callable[[int], str]:
    """Line number -> the first row of the Markdown table the line is in ("" for that row itself);
    one walk over the text, however long its tables are."""
    first: dict[int, int] = {}
    start = 0
    for ln in doc:
        if ln.stripped.startswith("|"):
            start = start or ln.no
            first[ln.no] = start
        else:
            start = 0

    def header(no: int) -> str:
        top = first.get(no, no)
        return doc.at(top).stripped if top != no else ""

    return header
