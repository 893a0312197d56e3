"""Claims written as prose: the API, branch scope, docs entries and statuses, environment versions.

Read conservatively: a sentence becomes a claim only when it names what it is
about (a branch, an API, a product, a version) next to words that say what is
claimed (面向 / 覆盖 / 维护 / 已有 / 缺少 / 支持 ...).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .context import BRANCH_TOKEN, KEY_VALUE
from .document import Document, Line
from .records import DocsClaim, DocsStatusClaim, ProbeValue, ScopeClaim, VersionClaim

_API = re.compile(r"(?<![\w./-])((?:torch|torch_npu)(?:\.[A-Za-z_]\w*)+)(?![\w/-])")
_FILE_EXT = {"md", "py", "txt", "rst", "json", "yaml", "yml", "html", "h", "cpp", "toml", "patch"}


class _ApiFinder:
    """Dotted ``torch.x.y`` names on a line, file names (``torch.md``) left out."""

    @staticmethod
    def findall(text: str) -> list[str]:
        return [m for m in _API.findall(text) if m.rsplit(".", 1)[-1] not in _FILE_EXT]

    def search(self, text: str) -> str | None:
        found = self.findall(text)
        return found[0] if found else None


API = _ApiFinder()
_BRANCH = re.compile(rf"(?<![\w./-])(?:origin/)?({BRANCH_TOKEN})(?![\w/-])")

_TARGET = re.compile(
    rf"面向\s*`?(?:origin/)?({BRANCH_TOKEN})`?\s*(?:目标)?分支|面向\s*目标分支\s*`?(?:origin/)?({BRANCH_TOKEN})"
    rf"|(?:本\s*PR\s*)?目标分支\s*[为是:：]\s*`?"
    rf"(?:origin/)?({BRANCH_TOKEN})|\btargets?\s+(?:the\s+)?`?({BRANCH_TOKEN})`?(?:\s+branch)?"
    rf"|target branch\s*(?:is|:)\s*`?({BRANCH_TOKEN})",
    re.IGNORECASE,
)
_COVER = re.compile(r"覆盖|\bcover(?:s|ed|age)?\b", re.IGNORECASE)
_MAINT = re.compile(r"维护|maintenance", re.IGNORECASE)

_DOC_PAGE = re.compile(r"(docs/[\w./-]*?pytorch_(\d+)-(\d+)-(\d+)/[\w.-]+\.md)")
#: a run of the characters a page path is made of (a page path lies inside one)
_PATH_RUN = re.compile(r"[\w./-]+")
_VERSION = re.compile(r"(?<![\d.])(\d+\.\d+\.\d+)(?![\d.])")
_PRESENT = re.compile(
    r"已有|已存在|均已存在|已登记|已包含|已收录|已记录|存在对应|\bhas an entry\b|already (?:documented|listed|has|have)|ha(?:s|ve) an entry"
    r"|entry exists|entries exist",
    re.IGNORECASE,
)
_ABSENT = re.compile(
    r"未检索到|没有|缺少|缺失|不存在|未登记|未收录|missing|not found|no entry|lacks?", re.IGNORECASE
)
_DOC_WORD = re.compile(r"条目|资料|文档|entry|entries|docs?\b|page", re.IGNORECASE)
_CHANGED_LIST = re.compile(
    r"资料修改文件|修改文件|刷新|补齐|新增|添加|登记|added|updated|modified|changed", re.IGNORECASE
)
#: a product's status line (``- Atlas A2 训练系列产品：支持``): its bullet, then (``_status``) the label up to
#: the first colon that the status word and the line's end follow (searched from the colon, so that a run
#: of blanks is not scanned again from each of its characters)
_STATUS_HEAD = re.compile(r"^\s*(?:[-•*]|\d+[.、])?\s*")
_STATUS_TAIL = re.compile(
    r"[:：]\s*(暂不支持|不支持|支持|yes|no|supported|unsupported|√|×|✓|✗)"
    r"\s*(?:[；;。.,，]\s*)?$",
    re.IGNORECASE,
)
_DOCS_COMMIT = re.compile(r"资料提交|docs? commit", re.IGNORECASE)
_DOCS_BASE = re.compile(r"基线提交|baseline", re.IGNORECASE)
_HASH40 = re.compile(r"\b([0-9a-f]{40})\b")
_PR_LABEL = re.compile(r"资料\s*PR|docs?\s*PR|文档\s*PR", re.IGNORECASE)
_PR_NUMBER = re.compile(r"(?:#|!|/pull/|/merge_requests/)(\d{3,7})")

#: environment line key -> (words it is written with, the probe keys that print it)
ENV_KEYS: dict[str, tuple[re.Pattern[str], tuple[str, ...]]] = {
    "torch": (
        re.compile(r"^(?:torch|pytorch)$", re.I),
        ("torch_version", "torch", "torch.__version__"),
    ),
    "backend": (
        re.compile(r"^(?:torch[-_ ]?npu|torch_npu|torch-npu 版本|backend)$", re.I),
        ("torch_npu_version", "torch_npu", "torch_npu.__version__", "backend_version"),
    ),
    "python": (re.compile(r"^python(?: version)?$", re.I), ("python_version", "python")),
    "device_available": (
        re.compile(r"^(?:npu available|npu 可用|device available)$", re.I),
        ("npu_available", "torch.npu.is_available()", "device_available"),
    ),
    "device_count": (
        re.compile(r"^(?:npu device count|npu 数量|device count)$", re.I),
        ("npu_device_count", "torch.npu.device_count()", "device_count"),
    ),
}
#: an environment line (``- torch：2.7.1+cpu``, ``| torch | 2.7.1 |``): its bullet, its label (up to the first
#: separator, which a label cannot hold), the value after the separator (see ``_env_line``)
_ENV_HEAD = re.compile(r"^\s*(?:[-•*]\s*)?\|?\s*")
_ENV_LABEL = re.compile(r"[A-Za-z][\w .()-]*|NPU [^:：|]+")
_ENV_SEP = re.compile(r"[:：|]")
_ENV_VALUE = re.compile(r"\s*`?([\w.+-]+)`?\s*(?:\|\s*)?(?:[；;。]\s*)?$")


def main_api(doc: Document) -> str:
    """The API the text is about: the result issue's, the stated target API, the title's."""
    patterns = (
        re.compile(r"结果\s*Issue\s*[:：]\s*(?:\[\s*)?`?((?:torch|torch_npu)(?:\.\w+)+)"),
        re.compile(r"目标\s*API\s*(?:是|为|[:：])\s*`?((?:torch|torch_npu)(?:\.\w+)+)"),
        re.compile(
            r"(?:target API|API under test)\s*(?:is|:)\s*`?((?:torch|torch_npu)(?:\.\w+)+)", re.I
        ),
    )
    for pattern in patterns:
        for ln in doc:
            m = pattern.search(ln.text)
            if m:
                return m.group(1)
    for ln in doc:
        if re.search(r"API\s*名称|API name", ln.text, re.I):
            nxt = [doc.at(n).stripped for n in range(ln.no, min(len(doc), ln.no + 2) + 1)]
            for t in nxt:
                found = API.search(t)
                if found:
                    return found
    return ""


def extract_scope(doc: Document) -> Iterator[ScopeClaim]:
    seen: set[tuple[str, str, int]] = set()

    def claim(ln: Line, what: str, branch: str) -> Iterator[ScopeClaim]:
        key = (what, branch, ln.no)
        if key not in seen:
            seen.add(key)
            yield ScopeClaim(line=ln.no, text=ln.stripped, what=what, branch=branch)

    cover_pending = 0
    for ln in doc:
        text = ln.text
        if ln.bot:
            continue
        m = _TARGET.search(text)
        if (
            m
            and ln.block is None
            and (
                ln.section in ("scope", "source", "")
                or "面向" in text
                or (
                    ln.section not in ("docs", "verify")
                    and re.match(r"^\W*target branch\b", text, re.I)
                )
            )
        ):
            yield from claim(ln, "target", next(g for g in m.groups() if g))
            continue
        if ln.section != "scope":
            continue
        branches = _BRANCH.findall(text)
        if _MAINT.search(text) and branches:
            cut = _MAINT.search(text)
            assert cut is not None
            for b in _BRANCH.findall(text[: cut.start()]) or branches:
                yield from claim(ln, "maintenance", b)
            cover_pending = 0
            continue
        if _COVER.search(text):
            if branches:
                for b in branches:
                    yield from claim(ln, "covered", b)
            else:
                cover_pending = ln.no
            continue
        if cover_pending and branches and ln.no - cover_pending <= 4 and not _TARGET.search(text):
            for b in branches:
                yield from claim(ln, "covered", b)
            cover_pending = 0


def _doc_pages(text: str) -> list[re.Match[str]]:
    """``_DOC_PAGE``'s matches, found in one walk: a page path lies inside one run of path characters, and
    the first ``docs/`` of a run finds whatever a later one would (the lazy middle can cover the gap)."""
    out: list[re.Match[str]] = []
    if "docs/" not in text or "pytorch_" not in text:
        return out
    for run in _PATH_RUN.finditer(text):
        pos = run.start()
        while True:
            at = text.find("docs/", pos, run.end())
            m = _DOC_PAGE.match(text, at, run.end()) if at != -1 else None
            if m is None:
                break
            out.append(m)
            pos = m.end()
    return out


def _without_pages(text: str, pages: list[re.Match[str]]) -> str:
    parts, pos = [], 0
    for m in pages:
        parts += [text[pos : m.start()], " "]
        pos = m.end()
    return "".join(parts) + text[pos:]


def _versions(text: str) -> tuple[str, ...]:
    pages = _doc_pages(text)
    out = [f"{m.group(2)}.{m.group(3)}.{m.group(4)}" for m in pages]
    out += [v for v in _VERSION.findall(_without_pages(text, pages)) if v.split(".")[0] == "2"]
    return tuple(dict.fromkeys(out))


def _status(text: str) -> tuple[str, str] | None:
    """(label, status word) of a product's status line, None when it is none; linear in the line."""
    head = _STATUS_HEAD.match(text)
    start = head.end() if head else 0
    m = _STATUS_TAIL.search(text, start + 1)
    label = text[start : m.start()].rstrip() if m else ""
    if m is None or not label:
        return None
    return label, m.group(1)


def _env_line(text: str) -> tuple[str, str] | None:
    """(label, value) of an environment line, None when it is none; linear in the line."""
    head = _ENV_HEAD.match(text)
    start = head.end() if head else 0
    sep = _ENV_SEP.search(text, start)
    if sep is None:
        return None
    label = text[start : sep.start()].rstrip()
    value = _ENV_VALUE.match(text, sep.end())
    if not label or value is None or not _ENV_LABEL.fullmatch(label):
        return None
    return label, value.group(1)


def _docs_pr(text: str) -> str:
    """The docs PR's number a line names (``资料 PR：#202``): after the first label, the first number."""
    label = _PR_LABEL.search(text)
    m = _PR_NUMBER.search(text, label.end()) if label else None
    return m.group(1) if m else ""


_ABOUT_DOCS = re.compile(
    r"(?:资料|文档|native\s*API|docs?\b).{0,40}(?:条目|entry|entries)|(?:条目|entry|entries).{0,40}"
    r"(?:资料|文档|native\s*API|docs?\b)",
    re.IGNORECASE,
)


def _mentions_leaf(text: str, api: str) -> bool:
    leaf = api.rsplit(".", 1)[-1]
    return bool(re.search(rf"(?<![\w.]){re.escape(leaf)}\(\)", text))


def _clause_api(clause: str, api: str) -> str:
    """The API a clause is about: one it names, else the text's API when the clause points at it."""
    found = API.findall(clause)
    if found:
        return found[-1]
    if api:
        leaf = api.rsplit(".", 1)[-1]
        if re.search(rf"(?<![\w.]){re.escape(leaf)}(?:\(\))?(?![\w])", clause) or re.search(
            r"目标\s*API|该\s*API|本\s*API|the API", clause, re.I
        ):
            return api
    return ""


class _DocsContext:
    """Where the docs claims of a text are to be read: the docs commit, its PR, its branch, its baseline."""

    def __init__(self, doc: Document) -> None:
        self.commit = self.base = self.pr = self.branch = ""
        for ln in doc:
            if ln.section != "docs" or ln.bot:
                continue
            h = _HASH40.search(ln.text)
            if h and _DOCS_COMMIT.search(ln.text):
                self.commit = h.group(1)
            elif h and _DOCS_BASE.search(ln.text):
                self.base = h.group(1)
            pr = _docs_pr(ln.text) if not self.pr else ""
            if pr:
                self.pr = pr
            m = re.search(rf"目标分支\s*[:：]\s*`?(?:origin/)?({BRANCH_TOKEN})", ln.text)
            if m and not self.branch:
                self.branch = m.group(1)


def extract_docs(
    doc: Document, api: str, products: Iterable[tuple[str, tuple[str, ...]]]
) -> Iterator[DocsClaim | DocsStatusClaim]:
    dctx = _DocsContext(doc)
    names = [
        (code, tuple(n.replace(" ", "").lower() for n in spellings)) for code, spellings in products
    ]
    list_pending = 0
    current_api = api
    pages: list[tuple[Line, str]] = []
    mentioned = False
    for ln in doc:
        if ln.bot or ln.is_heading or not (ln.section == "docs" or _ABOUT_DOCS.search(ln.text)):
            continue
        text = ln.text
        branch_m = re.search(
            rf"`?(?:origin/)?({BRANCH_TOKEN})`?\s*分支|on\s+`?({BRANCH_TOKEN})`?", text
        )
        branch = next((g for g in branch_m.groups() if g), "") if branch_m else ""
        page_matches = _doc_pages(text)
        if _CHANGED_LIST.search(text) and not page_matches:
            list_pending = ln.no
        listed = page_matches[0] if page_matches else None
        if listed and list_pending and ln.no - list_pending <= 12:
            pages.append((ln, listed.group(1)))
            list_pending = ln.no
            continue
        line_apis = API.findall(text)
        # whether the lines read so far name the text's API (asked of each line once, not of all of them again)
        mentioned = mentioned or bool(api) and (api in text or _mentions_leaf(text, api))
        if line_apis:
            current_api = line_apis[-1] if len(line_apis) == 1 else current_api
        status = _status(text.replace("`", ""))
        if status and current_api and ln.section == "docs":
            label = status[0].replace(" ", "").lower()
            code = next(
                (
                    c
                    for c, spellings in names
                    if any(s and (s in label or label in s) for s in spellings)
                ),
                "",
            )
            if code:
                word = status[1].lower()
                supported = word in ("支持", "yes", "supported", "√", "✓")
                about = api if mentioned else current_api
                yield DocsStatusClaim(
                    line=ln.no,
                    text=ln.stripped,
                    api=about,
                    product=code,
                    status=status[1],
                    supported=supported,
                    versions=(),
                    at=dctx.commit,
                    branch=dctx.branch or branch,
                    pr=dctx.pr,
                )
            continue
        for clause in re.split(r"[，,；;。]|但是|但|\bbut\b", text):
            absent, present = _ABSENT.search(clause), _PRESENT.search(clause)
            if not (absent or present) or not (_DOC_WORD.search(clause) or _DOC_WORD.search(text)):
                continue
            target = _clause_api(clause, api)
            if not target:
                continue
            versions = _versions(clause) or _versions(text)
            if present and not absent:
                yield DocsClaim(
                    line=ln.no,
                    text=ln.stripped,
                    api=target,
                    versions=versions,
                    present=True,
                    at=dctx.commit,
                    branch=branch or dctx.branch,
                    pr=dctx.pr,
                )
            elif (
                absent
                and dctx.base
                and re.search(r"仅登记|只登记|only (?:the )?parent|缺少", clause)
            ):
                yield DocsClaim(
                    line=ln.no,
                    text=ln.stripped,
                    api=target,
                    versions=versions,
                    present=False,
                    at=dctx.base,
                    branch=dctx.branch,
                )
    for ln, page in pages if api else []:
        v = _versions(page)
        yield DocsClaim(
            line=ln.no,
            text=ln.stripped,
            api=api,
            versions=v[:1],
            present=True,
            at=dctx.commit,
            branch=dctx.branch,
            pr=dctx.pr,
        )


def extract_probes(doc: Document) -> Iterator[ProbeValue]:
    keys = {k for _, (_, probe_keys) in ENV_KEYS.items() for k in probe_keys}
    for ln in doc:
        m = KEY_VALUE.match(ln.text)
        if m and m.group(1) in keys and (ln.block is not None or ln.section == "verify"):
            yield ProbeValue(line=ln.no, key=m.group(1), value=m.group(2).strip())


def probe_key(key: str) -> str:
    """The environment key (``torch``) a probe key (``torch_version``) prints."""
    for env, (_, probe_keys) in ENV_KEYS.items():
        if key in probe_keys:
            return env
    return ""


def extract_versions(doc: Document) -> Iterator[VersionClaim]:
    for ln in doc:
        if ln.section != "verify" or ln.bot or KEY_VALUE.match(ln.text):
            continue
        found = _env_line(ln.text)
        if found is None:
            continue
        label = found[0].strip().strip("*").strip()
        for env, (pattern, _) in ENV_KEYS.items():
            if pattern.match(label):
                yield VersionClaim(
                    line=ln.no, text=ln.stripped, key=env, stated=found[1].rstrip("。.")
                )
                break
