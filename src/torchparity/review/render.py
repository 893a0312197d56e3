"""A review as rows for a terminal table, and as a Markdown comment a reviewer can paste (zh or en).

Data first: ``Review.to_json()`` is the JSON; these render the same verdicts.
The comment puts contradicted claims first (with the fact found), then the
unverifiable ones (with why), then the verified ones folded away.
"""

from __future__ import annotations

from .records import CONTRADICTED, UNVERIFIABLE, VERIFIED, Review, Verdict

LANGS = ("zh", "en")

_WORDS = {
    "en": {
        VERIFIED: "verified",
        CONTRADICTED: "contradicted",
        UNVERIFIABLE: "unverifiable",
        "line": "Line",
        "kind": "Kind",
        "verdict": "Verdict",
        "claim": "Claim",
        "detail": "What the repository says",
        "why": "Why",
        "found": "Found",
        "title": "torchparity review of this PR description",
        "at_merge": "checked at merge commit `{c}`{into}",
        "at_head": "checked at `{c}`{into}",
        "into": " ({b})",
        "counts": "{n} claims: {v} verified, {x} contradicted, {u} unverifiable.",
        "none": "The description makes no claim torchparity can check (commit ids, SHA-256, test output, "
        "git grep counts, docs entries, branch scope).",
        "ok": "No claim is contradicted by the repository.",
        "bad": "{x} claim(s) are contradicted by the repository; please correct them or explain.",
        "h_contra": "Contradicted",
        "h_unver": "Could not be checked",
        "h_ver": "Verified ({n})",
        "notes": "Notes",
        "rerun": "Re-run: `torchparity review PR.md --repo REPO {how}`",
        "sep": ". ",
    },
    "zh": {
        VERIFIED: "已核实",
        CONTRADICTED: "与仓库矛盾",
        UNVERIFIABLE: "无法核实",
        "line": "行",
        "kind": "类别",
        "verdict": "结论",
        "claim": "描述原文",
        "detail": "仓库中的事实",
        "why": "原因",
        "found": "仓库中的事实",
        "title": "torchparity 对本 PR 描述的核查",
        "at_merge": "核查对象：合入提交 `{c}`{into}",
        "at_head": "核查对象：`{c}`{into}",
        "into": "（{b}）",
        "counts": "共 {n} 条声明：已核实 {v} 条，与仓库矛盾 {x} 条，无法核实 {u} 条。",
        "none": "描述中没有可核查的声明（提交号、SHA-256、测试输出、git grep 计数、资料条目、分支范围）。",
        "ok": "没有与仓库矛盾的声明。",
        "bad": "有 {x} 条声明与仓库矛盾，请修正或说明。",
        "h_contra": "与仓库矛盾",
        "h_unver": "无法核实",
        "h_ver": "已核实（{n} 条）",
        "notes": "说明",
        "rerun": "复核命令：`torchparity review PR.md --repo REPO {how}`",
        "sep": "。",
    },
}


def words(lang: str) -> dict[str, str]:
    return _WORDS[lang if lang in _WORDS else "en"]


def verdict_word(verdict: str, lang: str) -> str:
    return words(lang)[verdict]


def table_rows(
    review: Review, lang: str = "en"
) -> tuple[tuple[str, str, str, str, str], list[tuple[str, str, str, str, str]]]:
    """(headers, rows) of the terminal table: line, kind, verdict, claim, detail."""
    w = words(lang)
    headers = (w["line"], w["kind"], w["verdict"], w["claim"], w["detail"])
    rows = [
        (str(v.line) if v.line else "", v.kind, w[v.verdict], _short(v.text, 70), v.detail)
        for v in review.verdicts
    ]
    return headers, rows


def summary_line(review: Review, lang: str = "en") -> str:
    w = words(lang)
    s = review.summary()
    into = w["into"].format(b=review.target_branch) if review.target_branch else ""
    where = w["at_merge" if review.mode == "merge" else "at_head"].format(
        c=review.commit[:12], into=into
    )
    return (
        where
        + w["sep"]
        + w["counts"].format(n=s["claims"], v=s[VERIFIED], x=s[CONTRADICTED], u=s[UNVERIFIABLE])
    )


def _short(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _cell(text: str) -> str:
    return _short(text, 160).replace("|", "\\|").replace("`", "'")


def _table(rows: list[Verdict], w: dict[str, str], last: str) -> list[str]:
    out = [f"| {w['line']} | {w['kind']} | {w['claim']} | {w[last]} |", "| --- | --- | --- | --- |"]
    out += [f"| {v.line or '—'} | {v.kind} | {_cell(v.text)} | {_cell(v.detail)} |" for v in rows]
    return out


def comment(review: Review, lang: str = "zh") -> str:
    """The review as a Markdown comment for the PR (``lang``: zh or en)."""
    w = words(lang)
    s = review.summary()
    lines = [f"### {w['title']}", "", summary_line(review, lang), ""]
    if not review.verdicts:
        lines += [w["none"], ""]
    else:
        lines += [w["bad"].format(x=s[CONTRADICTED]) if s[CONTRADICTED] else w["ok"], ""]
    groups = ((CONTRADICTED, "h_contra", "found"), (UNVERIFIABLE, "h_unver", "why"))
    for verdict, head, last in groups:
        rows = [v for v in review.verdicts if v.verdict == verdict]
        if rows:
            lines += [f"#### {w[head]}", "", *_table(rows, w, last), ""]
    ok = [v for v in review.verdicts if v.verdict == VERIFIED]
    if ok:
        lines += [
            "<details>",
            f"<summary>{w['h_ver'].format(n=len(ok))}</summary>",
            "",
            *_table(ok, w, "found"),
            "",
            "</details>",
            "",
        ]
    if review.notes:
        lines += [f"{w['notes']}:", "", *(f"- {n}" for n in review.notes), ""]
    how = (
        f"--merge {review.commit[:12]}"
        if review.mode == "merge"
        else f"--head {review.commit[:12]}"
    )
    lines += [w["rerun"].format(how=how), ""]
    return "\n".join(lines)
