"""The PR paragraph 社区用例检索与新增必要性 (Chinese, and English), written from a coverage record."""

from __future__ import annotations

from ..records.coverage import ApiCoverage, RefCoverage, TestHit

#: related tests named in the paragraph (the record keeps more)
SHOWN = 5


def _missed_by_grep(ref: RefCoverage) -> int:
    """Direct tests with no grep line inside them (aliased, chained, data-flow spellings)."""
    if ref.grep is None or len(ref.grep.matches) < ref.grep.count:
        return 0
    lines: dict[str, set[int]] = {}
    for m in ref.grep.matches:
        parts = m.split(":", 3)
        if len(parts) == 4 and parts[2].isdigit():
            lines.setdefault(parts[1], set()).add(int(parts[2]))
    return sum(
        1 for h in ref.direct if not any(h.line <= n <= h.end_line for n in lines.get(h.path, ()))
    )


def groups(cov: ApiCoverage) -> list[list[RefCoverage]]:
    """Refs that found the same (the same direct tests, as many related, the same regex counts), in order:
    four branches that agree are said once."""
    out: dict[tuple[object, ...], list[RefCoverage]] = {}
    for r in cov.refs:
        key = (
            r.upstream,
            tuple(h.test for h in r.direct),
            r.related_total,
            r.grep.count if r.grep else None,
            r.grep_in_direct,
            _missed_by_grep(r),
        )
        out.setdefault(key, []).append(r)
    return list(out.values())


def plural(n: int, word: str) -> str:
    """``plural(1, "test file")`` -> "1 test file"; ``plural(2, ...)`` -> "2 test files"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _bullets(
    hits: tuple[TestHit, ...] | list[TestHit], limit: int = SHOWN, total: int = 0
) -> list[str]:
    out = [f"• {h.test} (L{h.line}-{h.end_line}; {h.how})" for h in hits[:limit]]
    rest = max(total, len(hits)) - limit
    if rest > 0:
        out.append(f"• … +{rest}")
    return out


def _zh_ref(cov: ApiCoverage, refs: list[RefCoverage]) -> list[str]:
    ref = refs[0]
    out = [f"在 {'、'.join(f'{_zh_label(r)}（{r.commit}）' for r in refs)}中执行："]
    if ref.grep is not None:
        out += [
            "",
            *(r.grep.command for r in refs if r.grep is not None),
            "",
            f"正则匹配数：{ref.grep.count}（其中 {ref.grep_in_direct} 行位于直接调用的用例内）"
            + ("（各分支相同）" if len(refs) > 1 else ""),
        ]
    sizes = (
        "；".join(f"{_zh_label(r)} {r.files} 个测试文件、{r.tests} 个用例" for r in refs)
        if len(refs) > 1
        else f"{ref.files} 个测试文件、{ref.tests} 个用例"
    )
    out.append(
        f"AST 索引（{sizes}；解析 import 别名、链式调用、局部变量与 setUp 属性的类型、装饰器、with 及辅助函数）"
        f"中直接调用 {cov.canonical} 的用例数：{len(ref.direct)}"
    )
    if ref.direct:
        out += ["直接用例：", *_bullets(ref.direct, 10)]
    missed = _missed_by_grep(ref)
    if missed:
        out.append(f"其中 {missed} 个直接用例不含正则可匹配的行（别名、链式或数据流写法）。")
    if ref.related:
        more = f"（共 {ref.related_total} 个）" if ref.related_total > SHOWN else ""
        out += [f"相关基础测试包括{more}：", *_bullets(ref.related, SHOWN, ref.related_total)]
    skipped = list(dict.fromkeys(p for r in refs for p, _ in r.skipped_files))
    if skipped:
        out.append(f"跳过 {len(skipped)} 个无法解析的测试文件：{'、'.join(skipped[:5])}")
    return out


def _en_ref(cov: ApiCoverage, refs: list[RefCoverage]) -> list[str]:
    ref = refs[0]
    where = ", ".join(
        f"{f'upstream PyTorch {r.ref}' if r.upstream else r.ref} ({r.commit})" for r in refs
    )
    out = [f"On {where}:"]
    if ref.grep is not None:
        out += [
            "",
            *(r.grep.command for r in refs if r.grep is not None),
            "",
            f"regex matches: {ref.grep.count} ({ref.grep_in_direct} of them inside a test that calls the API)"
            + (" on each" if len(refs) > 1 else ""),
        ]
    sizes = (
        "; ".join(
            f"{r.label}: {plural(r.files, 'test file')}, {plural(r.tests, 'test')}" for r in refs
        )
        if len(refs) > 1
        else f"{plural(ref.files, 'test file')}, {plural(ref.tests, 'test')}"
    )
    out.append(
        f"AST index ({sizes}; import aliases, chained calls, the types of locals and "
        f"setUp attributes, decorators, with, helpers resolved): tests that call {cov.canonical}: {len(ref.direct)}"
    )
    if ref.direct:
        out += ["Direct tests:", *_bullets(ref.direct, 10)]
    missed = _missed_by_grep(ref)
    if missed:
        out.append(
            f"{missed} of the direct tests have no line the regex matches (aliased, chained or data-flow spellings)."
        )
    if ref.related:
        more = f" ({ref.related_total} in all)" if ref.related_total > SHOWN else ""
        out += [f"Related tests{more}:", *_bullets(ref.related, SHOWN, ref.related_total)]
    skipped = list(dict.fromkeys(p for r in refs for p, _ in r.skipped_files))
    if skipped:
        out.append(
            f"{plural(len(skipped), 'test file')} could not be parsed and "
            f"{'was' if len(skipped) == 1 else 'were'} skipped: {', '.join(skipped[:5])}"
        )
    return out


def _zh_label(ref: RefCoverage) -> str:
    return f"上游 PyTorch {ref.ref}" if ref.upstream else ref.ref


def _zh_group(refs: list[RefCoverage]) -> str:
    return "、".join(_zh_label(r) for r in refs)


def _en_group(refs: list[RefCoverage]) -> str:
    return ", ".join(r.label for r in refs)


def _names(hits: tuple[TestHit, ...], limit: int = 3) -> list[str]:
    """The short names of the first tests, each once: test_set_grad_enabled, ..."""
    out: list[str] = []
    for h in hits:
        name = h.test.rsplit("::", 1)[-1]
        if name not in out:
            out.append(name)
        if len(out) == limit:
            break
    return out


def justify(cov: ApiCoverage) -> tuple[str, str]:
    """(zh, en): the 新增必要性 paragraph: what the search found and why a new test is (or may not be) needed.

    The facts it rests on (the git grep command and count, the tests) are in the record and in
    ``section``; the paragraph quotes only what it needs, so a report template can print both.
    """
    zh: list[str] = []
    en: list[str] = []
    if not cov.known and not any(r.direct or r.related for r in cov.refs):
        zh.append(f"{cov.api} 不在别名表中，按字面名称检索。")
        en.append(f"{cov.api} is not in the alias table; it was searched literally.")
    counts_zh, counts_en = [], []
    for refs in groups(cov):
        r = refs[0]
        grep_zh = (
            f"，正则匹配 {r.grep.count} 行（{r.grep_in_direct} 行位于直接用例内）" if r.grep else ""
        )
        grep_en = (
            f", {plural(r.grep.count, 'regex line')} ({r.grep_in_direct} inside direct tests)"
            if r.grep
            else ""
        )
        label_zh = "、".join(_zh_label(x) for x in refs)
        label_en = ", ".join(x.label for x in refs)
        counts_zh.append(
            f"{label_zh} 直接用例 {len(r.direct)} 个、相关用例 {r.related_total} 个{grep_zh}"
        )
        counts_en.append(
            f"{label_en}: {plural(len(r.direct), 'direct test')}, {plural(r.related_total, 'related test')}{grep_en}"
        )
    zh.append(
        f"按 AST 索引（解析别名、链式调用、数据流、装饰器与 with）检索 {cov.canonical}：{'；'.join(counts_zh)}。"
    )
    en.append(
        f"Searching {cov.canonical} with the AST index (aliases, chained calls, data flow, decorators, with): "
        f"{'; '.join(counts_en)}."
    )
    grouped = groups(cov)
    missed = [(g, _missed_by_grep(g[0])) for g in grouped]
    missed = [(g, n) for g, n in missed if n]
    if missed:
        zh.append(
            f"正则匹配不到的直接用例（别名、链式或数据流写法）："
            f"{'、'.join(f'{_zh_group(g)} {n} 个' for g, n in missed)}。"
        )
        en.append(
            f"Direct tests the regex cannot match (aliases, chains, data flow): "
            f"{', '.join(f'{_en_group(g)} {n}' for g, n in missed)}."
        )
    outside = [
        (g, g[0].grep.count - g[0].grep_in_direct)
        for g in grouped
        if g[0].grep and g[0].grep.count > g[0].grep_in_direct
    ]
    if outside:
        zh.append(
            f"正则匹配中不在直接调用用例内的行（注释、字符串或其他名称，不计为已有用例）："
            f"{'、'.join(f'{_zh_group(g)} {n} 行' for g, n in outside)}。"
        )
        en.append(
            f"Regex lines outside any test that calls the API (comments, strings, other names; not coverage): "
            f"{', '.join(f'{_en_group(g)} {n}' for g, n in outside)}."
        )
    leaf = cov.canonical.rsplit(".", 1)[-1]
    parent = cov.canonical.rpartition(".")[0]
    with_direct = [r.label for r in cov.refs if r.direct]
    without = [r for r in cov.refs if not r.direct]
    if with_direct and without:
        zh.append(
            f"{'、'.join(_zh_label(r) for r in without)} 中没有直接调用 {cov.canonical} 的用例。"
        )
        en.append(f"{', '.join(r.label for r in without)}: no test calls {cov.canonical}.")
    if with_direct:
        zh.append(
            f"{'、'.join(with_direct)} 已有直接调用 {cov.canonical} 的用例。新增用例需说明上述用例未覆盖的行为"
            "（输入类型、边界条件、设备张量、全局状态恢复等），否则以现有用例为准。"
        )
        en.append(
            f"{', '.join(with_direct)} already {'has' if len(with_direct) == 1 else 'have'} tests that call "
            f"{cov.canonical}. A new test must state "
            "what they leave unchecked (input types, edge cases, device tensors, restored global state); "
            "otherwise the existing tests stand."
        )
    elif any(r.related for r in cov.refs):
        related = next(r.related for r in cov.refs if r.related)
        named = "、".join(_names(related))
        zh.append(
            f"相关基础测试（{named} 等）使用 {parent} 或其其他成员，但没有直接调用 {leaf}，"
            f"不能以其替代 {cov.canonical} 的直接测试，因此需要新增用例。"
        )
        en.append(
            f"The related tests ({', '.join(_names(related))}, ...) use {parent} or its other members but never "
            f"call {leaf}; they cannot stand in for a direct test of {cov.canonical}, so a new test is needed."
        )
    else:
        zh.append(f"未发现直接或相关用例，因此需要新增 {cov.canonical} 的用例。")
        en.append(
            f"No direct or related test was found, so a new test of {cov.canonical} is needed."
        )
    return "".join(zh), " ".join(en)


def section(cov: ApiCoverage) -> tuple[str, str]:
    """(zh, en): the whole PR section: heading, per ref the command, counts and tests, then the paragraph."""
    zh: list[str] = ["【社区用例检索与新增必要性】", ""]
    en: list[str] = ["Existing coverage and why a new test is needed", ""]
    for refs in groups(cov):
        zh += [*_zh_ref(cov, refs), ""]
        en += [*_en_ref(cov, refs), ""]
    zh.append(cov.justification_zh)
    en.append(cov.justification_en)
    return "\n".join(zh), "\n".join(en)
