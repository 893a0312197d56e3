"""The wording of every note a record carries, per language: one phrasebook, used by every text.

Records hold ``Note(code, args)``; the evidence log and the terminal word them
in English, the PR description and comment in their own language. An
argument that quotes the tool's or a test's own output is marked ``quoted``:
it is shown as quoted evidence (a code span), not as a sentence of the text.
"""

from __future__ import annotations

import re

from .records.notes import Note

#: code -> (English, Chinese); ``{name}`` fields are the note's args
PHRASES: dict[str, tuple[str, str]] = {
    "worktree_remove_failed": ("git worktree remove failed; the folder was deleted by hand",
                               "git worktree remove 失败，目录已手动删除"),
    "environment_broken": ("the environment is broken: {detail}", "环境错误：{detail}"),
    "interrupted": ("interrupted ({detail}); the record is partial", "运行被中断（{detail}），记录不完整"),
    "interrupted_before_end": ("interrupted before the target finished; the record is partial",
                               "目标完成前运行被中断，记录不完整"),
    "not_committed": ("{path} is not committed at {ref}: it was written into the worktree for this run",
                      "{path} 在 {ref} 中尚未提交：本次运行时写入工作树"),
    "probe_unfinished": ("the environment probe did not finish ({status})", "环境探测未完成（{status}）"),
    "text": ("{text}", "{text}"),
}

#: args shown as quoted evidence (code spans in Markdown): they are the tool's or a test's own words
QUOTED = frozenset({"detail", "path", "text", "status"})


def phrase(note: Note, lang: str = "en", markdown: bool = False) -> str:
    """``note`` worded in ``lang``; with ``markdown``, quoted args as code spans."""
    en, zh = PHRASES.get(note.code, ("{code}", "{code}"))
    template = zh if lang == "zh" else en
    args = dict(note.args, code=note.code)
    if markdown:
        args = {k: (_code_span(v) if k in QUOTED else v) for k, v in args.items()}
    try:
        return template.format(**args)
    except (KeyError, IndexError):
        return template


def _code_span(text: str) -> str:
    """``text`` as a Markdown code span that no backtick inside it can close."""
    runs = [len(r) for r in re.findall(r"`+", text)]
    ticks = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


__all__ = ["PHRASES", "phrase"]
