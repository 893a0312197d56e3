"""Reading an evidence log back: the tool's once-only ``KEY=VALUE`` lines, and a log that holds one twice.

The writer (``collect.evidence``, ``upstream.evidence``) escapes every value it
writes (``textsafe.one_line``), so none of its values can start a line. A log
in which a key the tool writes once appears twice was therefore made some other
way: a value that started a new line in a log written before values were
escaped, a line a test printed that reads as the tool's own, or an edit. Whoever
reads a log back (``review``, ``show``) rejects such a log: which of the two
lines is the tool's cannot be told from the text.

Keys are once per log (the header's, ``RESULT``, the collector's exit codes) or
once per section (a ``===== NAME =====`` line opens one; the header is the
first): a log runs one ``FULL TEST FILE`` section per file, each with its own
verdict. In the ``ENVIRONMENT PROBE`` section every key is once (the probe
states each fact once).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

#: keys the writer puts once in a whole log
ONCE_PER_LOG = frozenset(
    {
        "TARGET_BRANCH",
        "SOURCE_BRANCH",
        "COMMIT",
        "PYTHON",
        "CHECKOUT",
        "RUN_MODE",
        "PROCESS_TRACKING",
        "DEVICE",
        "DEVICE_CHOICE",
        "RESULT",
        "STATE_LEAK_CHECK",
        "STATE_LEAK_CHECK_REASON",
        "ENVIRONMENT_PROBE_EXIT_CODE",
        "ENVIRONMENT_PROBE_STATUS",
        "API_TESTS_COUNT",
        "TORCH_RELEASE_WANTED",
        "TORCH_VERSION_CHECK",
    }
)
#: key endings the writer puts once in a whole log (``<ref>_TEST_COLLECTOR_EXIT_CODE``)
ONCE_PER_LOG_SUFFIXES = ("_TEST_COLLECTOR_EXIT_CODE", "_WORKTREE_REMOVE_EXIT_CODE")
#: keys the writer puts once in a section (one ``FULL TEST FILE`` section per file, ...)
ONCE_PER_SECTION = frozenset(
    {
        "FULL_TEST_VERDICT",
        "FULL_TEST_EXIT_CODE",
        "FULL_TEST_STATUS",
        "RESULTS_FROM",
        "RUNNER",
        "RUNNER_FINISHED",
        "RUNNER_TESTS",
        "TRACE_STATUS",
        "TRACE_TOTAL_OPS",
        "TRACE_DEVICE_TENSORS_CREATED",
        "DISPATCH_TRACE_EXIT_CODE",
        "UPSTREAM_RESULT",
    }
)
ONCE_PER_SECTION_SUFFIXES = ("_ISOLATION_PROBE", "_ISOLATION_EXIT_CODE")
#: the section whose every key is once (the probe's facts)
PROBE_SECTION = "ENVIRONMENT PROBE"

_KEY = re.compile(r"\s*([A-Za-z][A-Za-z0-9_.]*)=")


def section_name(line: str) -> str:
    """``NAME`` of a ``===== NAME =====`` line, "" for any other line (a rule of ``=`` too)."""
    text = line.strip()
    if len(text) < 11 or not (text.startswith("=====") and text.endswith("=====")):
        return ""
    name = text[5:-5].strip()
    return "" if not name.strip("=") else name


@dataclass(frozen=True)
class DuplicateKey:
    """A once-only key found more than once: the key, the lines (1-based, in the lines read) it is on,
    and the section it repeats in ("" when it is once per log)."""

    key: str
    lines: tuple[int, ...]
    section: str = ""

    def describe(self) -> str:
        where = f" in the {self.section} section" if self.section else ""
        count = "twice" if len(self.lines) == 2 else f"{len(self.lines)} times"
        return (
            f"{self.key}= is written {count}{where} (lines {', '.join(str(n) for n in self.lines)}), "
            "where the tool writes it once"
        )


def _scope(key: str, section: str) -> str | None:
    """Where ``key`` must be unique: "" (the log), the section's name, or None (it may repeat)."""
    if key in ONCE_PER_LOG or key.endswith(ONCE_PER_LOG_SUFFIXES):
        return ""
    if (
        key in ONCE_PER_SECTION
        or key.endswith(ONCE_PER_SECTION_SUFFIXES)
        or section == PROBE_SECTION
    ):
        return section
    return None


def duplicated_keys(log: str | Iterable[str]) -> list[DuplicateKey]:
    """Every once-only key of ``log`` (its text, or its lines) that is there more than once, in the
    order of their second line. A log the tool wrote gives ``[]``."""
    lines = log.split("\n") if isinstance(log, str) else list(log)
    seen: dict[tuple[str, int, str], list[int]] = {}
    section, section_no = "", 0
    for no, line in enumerate(lines, start=1):
        head = section_name(line)
        if head:
            section, section_no = head, section_no + 1
            continue
        m = _KEY.match(line)
        if not m:
            continue
        key = m.group(1)
        scope = _scope(key, section)
        if scope is None:
            continue
        seen.setdefault((key, section_no if scope else -1, scope), []).append(no)
    dups = [
        DuplicateKey(key, tuple(nos), scope)
        for (key, _, scope), nos in seen.items()
        if len(nos) > 1
    ]
    return sorted(dups, key=lambda d: d.lines[1])


def check_log(log: str) -> str:
    """ "" for a log that reads back clean, else one sentence naming every duplicated key."""
    dups = duplicated_keys(log)
    if not dups:
        return ""
    return (
        "; ".join(d.describe() for d in dups)
        + ": a line that reads as the tool's own was injected (a value that started a new line, a line "
        "a test printed) or the log was edited, so its KEY=VALUE lines cannot be trusted"
    )
