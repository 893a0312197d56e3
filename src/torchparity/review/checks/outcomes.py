"""Outcome sentences held against the runner output the same text quotes.

A text that says every target passed (or that the evidence supports consistency) while a runner output
it quotes ends FAILED contradicts itself. Counts and per-target results are left to the self-review,
which has the records (``report.selfreview``): a PR text alone cannot tell which output is whose.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..records import TestRunClaim, Verdict, contradicted, verified
from .facts import Facts


def _failed(run: TestRunClaim) -> bool:
    footer = dict(run.footer)
    return run.status == "FAILED" or footer.get("failed", 0) > 0 or footer.get("errors", 0) > 0


def check_outcomes(f: Facts) -> Iterator[Verdict]:
    runs = [r for r in f.claims.runs if r.status or r.footer]
    failed = [r for r in runs if _failed(r)]
    for c in f.claims.outcomes:
        if c.subject not in ("all_targets", "consistent") or not runs:
            continue
        if failed:
            lines = ", ".join(str(r.status_line or r.line) for r in failed)
            yield contradicted(
                c, "outcome", f"the text quotes a runner output that failed (line {lines})"
            )
        else:
            yield verified(
                c, "outcome", f"every runner output the text quotes passed ({len(runs)})"
            )
