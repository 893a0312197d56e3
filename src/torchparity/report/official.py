"""The report's "PyTorch 官方用例" part: each official test, its result per target, the reason when not run.

A pure function of the upstream stage's record (seed 001's shape: the test id,
then one line per environment). A test with several instances on a target (one
per dtype, or per OpInfo) is one line there, its instances counted per status.
Reasons are the list's or the runner's own words (quoted evidence), or a note's
code worded per language.
"""

from __future__ import annotations

import signal
from typing import Any

from ..phrases import phrase
from ..records.notes import Note
from ..records.upstream import STATUSES, UpstreamRecord, UpstreamTarget, UpstreamTest
from .commands import shown_command

#: which status speaks for a test on a target when its instances differ (the worst first)
_WORST = ("failed", "not_started", "passed", "skipped", "disabled")


def _entry(t: UpstreamTest) -> dict[str, Any] | None:
    if t.entry is None:
        return None
    e = t.entry
    return {
        "key": e.key,
        "list_file": e.list_file,
        "reason": e.reason,
        "platforms": [p for p in e.platforms if p],
        "category": e.category,
        "category_detail": e.category_detail,
        "category_meaning": e.category_meaning,
    }


def _legacy_unreported(note: Note) -> Note:
    """A record written before the run's end had a note of its own when it had no exit code: its
    ``upstream_unreported`` with an empty (or "none") exit code, or a signal's name in its place."""
    code = note.args.get("exit_code", "")
    if note.code != "upstream_unreported" or code not in ("", "None", "none", *SIGNALS):
        return note
    status = note.args.get("status", "")
    if code in SIGNALS:
        return Note.of("upstream_unreported_signal", status=status, signal=code)
    return Note.of("upstream_unreported_no_exit", status=status)


#: the signal names a record gave in place of an exit code
SIGNALS = tuple(s.name for s in signal.Signals)


def _reason(t: UpstreamTest) -> dict[str, Any]:
    """One reason, once per text: a note worded both ways, else the runner's own words."""
    note = _legacy_unreported(t.why) if t.why is not None else None
    why = (
        {
            "code": note.code,
            "zh": phrase(note, "zh", markdown=True),
            "en": phrase(note, "en", markdown=True),
        }
        if note is not None
        else None
    )
    return {
        "status": t.status,
        "why": why,
        "detail": "" if why else t.detail.strip(),
        "entry": _entry(t),
        "outcome": t.outcome,
        "rechecked": t.rechecked,
    }


def _result(target: UpstreamTarget, tests: list[UpstreamTest]) -> dict[str, Any]:
    counts = {s: sum(1 for t in tests if t.status == s) for s in STATUSES}
    status = next(s for s in _WORST if counts[s]) if tests else "not_started"
    reasons: list[dict[str, Any]] = []
    for t in tests:
        if t.status == "passed":
            continue
        r = _reason(t)
        if r not in reasons:
            reasons.append(r)
    return {
        "label": target.label,
        "env": target.env,
        "ref": target.ref,
        "source": target.source,
        "device": target.device,
        "emulated": target.emulated,
        "status": status,
        "counts": counts,
        "instances": len(tests),
        "ids": [t.id for t in tests if t.id],
        "reasons": reasons,
    }


def _target(t: UpstreamTarget) -> dict[str, Any]:
    return {
        "label": t.label,
        "source": t.source,
        "ref": t.ref,
        "commit": t.commit,
        "env": t.env,
        "device": t.device,
        "emulated": t.emulated,
        "torch_version": t.torch_version,
        "result": t.result,
        # the target's tests by status, and how many of those that apply here did not start
        "instances": len(t.tests),
        "counts": {s: sum(1 for x in t.tests if x.status == s) for s in STATUSES},
        "missed": len(t.missed),
        "error": t.error,
        "disabled_list": t.disabled_list,
        "disabled_list_sha256": t.disabled_list_sha256,
        "disabled_entries": t.disabled_entries,
        "files": [
            {
                "path": f.path,
                "sha256": f.sha256,
                "tests_for_device": f.tests_for_device,
                "disabled_for_device": f.disabled_for_device,
                "started": f.missing is None,
            }
            for f in t.files
        ],
        "commands": [shown_command(r.command, [r.file], t.emulated) for r in t.runs],
        "stale": [{"key": e.key, "list_file": e.list_file} for e in t.stale],
    }


def official_tests(rec: UpstreamRecord | None, note: str | None) -> dict[str, Any] | None:
    """The part's model (None: the upstream stage did not run)."""
    if rec is None:
        return None
    order: list[str] = []
    by: dict[tuple[str, str], list[UpstreamTest]] = {}
    for target in rec.targets:
        for t in target.tests:
            if t.test not in order:
                order.append(t.test)
            by.setdefault((t.test, target.label), []).append(t)
    rows = []
    for test in order:
        results = [
            _result(target, by[(test, target.label)])
            for target in rec.targets
            if (test, target.label) in by
        ]
        rows.append({"test": test, "file": test.split("::", 1)[0], "results": results})
    return {
        "api": rec.api,
        "selection": rec.selection,
        "recheck": rec.recheck,
        "tests": rows,
        "targets": [_target(t) for t in rec.targets],
        "note": note,
        "result": rec.result,
    }


__all__ = ["official_tests"]
