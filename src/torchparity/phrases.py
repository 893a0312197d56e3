"""The wording of every note a record carries, per language: one phrasebook, used by every text.

Records hold ``Note(code, args)``; the evidence log and the terminal word them
in English, the PR description and comment in their own language. An
argument that quotes the tool's or a test's own output is marked ``quoted``:
it is shown as quoted evidence (a code span), not as a sentence of the text.
"""

from __future__ import annotations

from .records.notes import Note
from .textsafe import escape_controls, md_code

#: code -> (English, Chinese); ``{name}`` fields are the note's args
PHRASES: dict[str, tuple[str, str]] = {
    "worktree_remove_failed": (
        "git worktree remove failed; the folder was deleted by hand",
        "git worktree remove 失败，目录已手动删除",
    ),
    "environment_broken": ("the environment is broken: {detail}", "环境错误：{detail}"),
    "interrupted": (
        "interrupted ({detail}); the record is partial",
        "运行被中断（{detail}），记录不完整",
    ),
    "interrupted_before_end": (
        "interrupted before the target finished; the record is partial",
        "目标完成前运行被中断，记录不完整",
    ),
    "not_committed": (
        "{path} is not committed at {ref}: it was written into the worktree for this run",
        "{path} 在 {ref} 中尚未提交：本次运行时写入工作树",
    ),
    "probe_unfinished": (
        "the environment probe did not finish ({status})",
        "环境探测未完成（{status}）",
    ),
    "probe_retried": (
        "an environment probe ended {status} ({detail}); the probe was run again (no test had run)",
        "一次环境探测以 {status} 结束（{detail}），已重新探测（此前没有运行任何测试）",
    ),
    "listing_retried": (
        "listing the tests of {path} ended {status} ({detail}); it was listed again (no test had run)",
        "列出 {path} 的用例时以 {status} 结束（{detail}），已重新列出（此前没有运行任何测试）",
    ),
    "device_unavailable": ("{detail}", "所需设备不可用：{detail}"),
    "not_a_pass": ("{path}: not a pass: {detail}", "{path} 不能算作通过：{detail}"),
    "api_rerun": (
        "{path}: the whole file's run ended {detail} before it answered; the API's tests were run "
        "again by id",
        "{path}：整个文件的运行在给出结果前以 {detail} 结束；已按用例 ID 单独重新运行该 API 的用例",
    ),
    "api_none_ran": (
        "none of the API's {total} test(s) ran ({skipped} skipped, {disabled} disabled by the "
        "backend's list, {not_started} never started): not a pass; write a test that runs here "
        "(--scaffold)",
        "该 API 的 {total} 个用例均未运行（跳过 {skipped} 个，被后端禁用列表禁用 {disabled} 个，"
        "未启动 {not_started} 个）：不能算作通过；请编写可在此运行的用例（--scaffold）",
    ),
    "api_fallback_scaffold": (
        "none of the API's {total} direct test(s) ran ({skipped} skipped, {disabled} disabled by the "
        "backend's list, {not_started} never started): the scaffolded test {path} ran instead, as for "
        "an API without tests",
        "该 API 的 {total} 个直接用例均未运行（跳过 {skipped} 个，被后端禁用列表禁用 {disabled} 个，"
        "未启动 {not_started} 个）：按没有用例的 API 处理，改为运行生成的用例 {path}",
    ),
    "version_mismatch": (
        "{ref} targets torch {wanted}; no environment has it ({have}): not run; pass --env/--python "
        "with a matching torch, or --allow-version-mismatch",
        "{ref} 面向 torch {wanted}；没有匹配的环境（{have}）：未运行；请用 --env/--python 指定匹配的 "
        "torch 环境，或加 --allow-version-mismatch",
    ),
    "version_mismatch_allowed": (
        "{ref} targets torch {wanted}, this environment has torch {have}: run anyway "
        "(--allow-version-mismatch); not evidence for that release",
        "{ref} 面向 torch {wanted}，本环境为 torch {have}：按 --allow-version-mismatch 仍然运行；"
        "不能作为该版本的证据",
    ),
    "checkout_failed": ("git could not check out {ref}: {detail}", "git 无法检出 {ref}：{detail}"),
    "ray_node": (
        "ran on Ray node {node} (host {host}, {address})",
        "在 Ray 节点 {node}（主机 {host}，{address}）上运行",
    ),
    "node_lost_retried": (
        "the first attempt on Ray node {node} was lost ({detail}); this record is of the retry "
        "on another node",
        "首次尝试所在的 Ray 节点 {node} 已丢失（{detail}），本记录来自在另一节点上的重试",
    ),
    "node_lost": (
        "Ray node {node} was lost during this target ({detail}); no other node matches the "
        "environment, so it was not retried",
        "Ray 节点 {node} 在本目标运行期间丢失（{detail}）；"
        "没有其他节点符合该环境的要求，因此未重试",
    ),
    "node_lost_again": (
        "Ray node {node} was lost during the retry too ({detail}); it is not retried again",
        "重试所在的 Ray 节点 {node} 也已丢失（{detail}），不再重试",
    ),
    "text": ("{text}", "{text}"),
    # why an official test did not start (records.upstream)
    "upstream_missing_module_repo": (
        "the file could not start: the repo lacks {path} (module {module})",
        "文件未能启动：仓库缺少 {path}（模块 {module}）",
    ),
    "upstream_missing_name": (
        "the file could not start: {module} in this environment lacks a name the file imports "
        "({detail}); the test file may be of another torch release",
        "文件未能启动：本环境的 {module} 中没有该文件导入的名称（{detail}）；该测试文件可能属于另一个 "
        "torch 版本",
    ),
    "upstream_missing_module_env": (
        "the file could not start: the environment has no module {module}",
        "文件未能启动：环境中没有模块 {module}",
    ),
    "upstream_missing_file": (
        "the file could not start: the repo lacks the file {path}",
        "文件未能启动：仓库缺少文件 {path}",
    ),
    "upstream_file_error": ("the file could not start: {detail}", "文件未能启动：{detail}"),
    "upstream_no_instance": (
        "the file holds no instance of it for {device} (instantiated for: {devices})",
        "该文件没有它在 {device} 上的实例（已实例化的设备：{devices}）",
    ),
    "upstream_opinfo_other": (
        "OpInfo-driven: {count} instance(s), one per operator, none for the API's OpInfo",
        "由 OpInfo 驱动：共 {count} 个实例（每个算子一个），其中没有该 API 的 OpInfo",
    ),
    "upstream_budget": (
        "beyond max_tests ({count} per target); run it with --test",
        "超出每个目标最多 {count} 个用例的上限（max_tests），可用 --test 指定运行",
    ),
    "upstream_no_runner": (
        "the file stopped before its test runner started: {detail}",
        "文件在测试运行器启动前就已退出：{detail}",
    ),
    "upstream_unreported": (
        "the runner did not report it (the run ended {status}, exit code {exit_code})",
        "运行器没有报告该用例（运行结束状态 {status}，退出码 {exit_code}）",
    ),
    "upstream_unreported_signal": (
        "the runner did not report it (the run ended {status}, killed by {signal})",
        "运行器没有报告该用例（运行结束状态 {status}，被信号 {signal} 终止）",
    ),
    "upstream_unreported_no_exit": (
        "the runner did not report it (the run ended {status} with no exit code)",
        "运行器没有报告该用例（运行结束状态 {status}，没有退出码）",
    ),
}

#: an API's category (``api.classify``) as every text and the terminal word it: (English, Chinese)
CATEGORY_WORDS: dict[str, tuple[str, str]] = {
    "python-state": ("pure Python state", "纯 Python 状态类"),
    "python-wrapper": ("Python wrapper", "Python 封装类"),
    "operator": ("operator", "算子类"),
    "c-binding": ("C binding (no operator dispatched)", "C 绑定类（不分派算子）"),
    "device-runtime": ("device runtime", "设备运行时类"),
    "other": ("other", "其他"),
}


def category_words(category: str, lang: str = "en") -> str:
    """An API's category worded in ``lang`` (an unknown one as it is)."""
    en, zh = CATEGORY_WORDS.get(category, (category, category))
    return zh if lang == "zh" else en


#: args shown as quoted evidence (code spans in Markdown): they are the tool's or a test's own words
QUOTED = frozenset({"detail", "path", "text", "status", "module", "devices", "node", "signal"})


def phrase(note: Note, lang: str = "en", markdown: bool = False) -> str:
    """``note`` worded in ``lang``; with ``markdown``, quoted args as code spans."""
    en, zh = PHRASES.get(note.code, ("{code}", "{code}"))
    template = zh if lang == "zh" else en
    args = dict(note.args, code=note.code)
    if (
        markdown
    ):  # quoted args as code spans; the rest shown, never obeyed (controls and HTML escaped)
        args = {k: (md_code(v) if k in QUOTED else _md_text(v)) for k, v in args.items()}
    try:
        return template.format(**args)
    except (KeyError, IndexError):
        return template


def _md_text(text: str) -> str:
    return escape_controls(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


__all__ = ["CATEGORY_WORDS", "PHRASES", "category_words", "phrase"]
