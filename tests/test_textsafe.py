"""textsafe: what a test prints is shown, never obeyed (terminal, Markdown, JSON, the log's lines)."""

from __future__ import annotations

import json
import re

import pytest

from torchparity.textsafe import escape_controls, excerpt, json_safe, md_code, md_fence, one_line

HOSTILE = "clear\x1b[2J title\x1b]0;pwned\x07 nul\x00 cr\r del\x7f csi\x9b bidi\u202e tab\t end"


def test_control_characters_become_visible_escapes_but_newline_and_tab_stay():
    shown = escape_controls(HOSTILE + "\nnext")
    assert shown == (
        "clear\\x1b[2J title\\x1b]0;pwned\\x07 nul\\x00 cr\\r del\\x7f csi\\x9b bidi\\u202e "
        "tab\t end\nnext"
    )
    assert all(ch in "\n\t" or ord(ch) >= 0x20 for ch in shown)


def test_one_line_cannot_start_a_new_line():
    assert one_line("a\nRESULT=PASS\r\n") == "a\\nRESULT=PASS\\r\\n"


@pytest.mark.parametrize(
    "text", ["plain", "a`b", "``x``", "`lead", "trail`", "a ```` b", "<script>x</script>"]
)
def test_a_code_span_cannot_be_closed_by_what_is_inside(text):
    span = md_code(text)
    ticks = len(span) - len(span.lstrip("`"))
    assert span.endswith("`" * ticks) and span[-ticks - 1] != "`"
    inner = span[ticks:-ticks]
    longest = max((len(r) for r in re.findall(r"`+", inner)), default=0)
    assert ticks > longest  # no backtick run inside can close it
    assert inner.strip() == text


def test_a_fence_is_longer_than_any_backtick_run_and_escapes_controls():
    fenced = md_fence("a\n`````\n\x1b[31mred")
    first, *body, last = fenced.split("\n")
    assert first == last == "``````" and body == ["a", "`````", "\\x1b[31mred"]


def test_json_keeps_json_escaped_and_valid():
    doc = json.dumps({"out": HOSTILE}, ensure_ascii=False)
    safe = json_safe(doc)
    assert json.loads(safe) == {"out": HOSTILE}
    assert not any(ch in safe for ch in "\x1b\x00\x7f\x9b\u202e")


def test_excerpt_keeps_each_section_to_the_bound_and_says_so():
    log = "\n".join(
        [
            "HEAD=1",
            "===== FULL TEST FILE =====",
            *[f"line {i}" for i in range(1000)],
            "===== STATE LEAK CHECK =====",
            "STATE_LEAK_CHECK=PASS",
        ]
    )
    cut = excerpt(log, 10)
    lines = cut.split("\n")
    assert lines[:2] == ["HEAD=1", "===== FULL TEST FILE ====="]
    assert "[... 991 lines left out here; the full log is in the store ...]" in lines
    assert lines[-2:] == ["===== STATE LEAK CHECK =====", "STATE_LEAK_CHECK=PASS"]
    assert (
        len(lines) == 2 + 10 + 1 + 2 - 1
    )  # header section (1 line), cut section (10 + marker), last (2)
    assert excerpt(log, 0) == log
