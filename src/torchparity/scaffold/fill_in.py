"""The ``fill-in`` plan: what no family decides on, a test that fails and says what to write.

It names the API only in its message, with every family's reason for not deciding.
"""

from __future__ import annotations

import re

from ..api.records import ApiInfo
from .facts import Facts
from .plan import Method, TestPlan, coverage_rows, spelling_of, stem_of
from .render import render

#: the fallback's name: always the last candidate, the plan when no family decides
FILL_IN = "fill-in"


def fill_in_plan(info: ApiInfo, facts: Facts, reasons: list[str]) -> TestPlan:
    r = info.resolution
    spelling = spelling_of(r)
    why = "; ".join(reasons) if reasons else f"no template covers a {r.kind} ({r.kind_detail})"
    message = (
        f"torchparity scaffold could not decide what to assert for {r.canonical} "
        f"(kind: {r.kind}; {why}). Write calls of {spelling} with the results upstream "
        "documents, then remove this failure."
    )
    stem = stem_of(r)
    source = render(
        "fill_in.py.j2",
        test=f"test_{stem}",
        spelling=spelling,
        message_lines=_split_message(message),
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family=FILL_IN,
        stem=stem,
        methods=(Method(f"test_{stem}", source),),
        summary="no template could decide what to assert; the test fails until it is written",
        coverage=coverage_rows(
            **{
                k: "待补充"
                for k in ("empty", "enum", "types", "omitted", "boundary", "normal", "invalid")
            }
        ),
        fill_in=(message,),
        uses_device=False,
        facts=facts,
    )


def _split_message(message: str, width: int = 80) -> list[str]:
    """Pieces of at most ``width`` characters that concatenate back to ``message``."""
    out, current = [], ""
    for word in re.split(r"(?<= )", message):
        if current and len(current) + len(word) > width:
            out.append(current)
            current = ""
        current += word
    if current:
        out.append(current)
    return out
