"""The API's tests at a target: which tests of a file are the API's, how they run, the verdict on them.

A file that holds the API's direct tests runs only those tests, by id. The agent
first lists what the file's runner loads (device-generic classes instantiated
for the target's device, parametrized tests expanded: ``upstream_list``); the
instances of the API's tests on that device are chosen and the backend's
disabled list removes those it names, as its CI does (``upstream.select``, the
rule the upstream stage uses); then the file runs with exactly those ids, the
way its entry runs them (``python FILE Class.test -v``, ``python -m pytest
NODE``, or ``python -m unittest MODULE.Class.test`` from its folder when its
main block runs no test).

A file that is the task's own (scaffolded, ``--into``, ``--test-file``) runs
whole; its tests outside the API's are context: their failures, and a run that
died after the API's tests had reported, are listed as unrelated failures in the
same file, never the API's verdict. When a whole run gave no outcome for an API
test (it died before answering), the API's tests run again by id.

``target_result`` then judges the target by the API's tests alone: FAIL when one
of them failed (or its run cannot be trusted), NONE_RAN when none of them ran
(all skipped, disabled or never started), PASS when they ran and passed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..phrases import phrase
from ..records.target import BAD_OUTCOMES, ApiTest, Step, TargetRecord, TestOutcome
from ..upstream.disabled import DisabledList
from ..upstream.find import PYTEST, FileCandidates, Wanted
from ..upstream.select import Listing, Selection, select
from ..upstream.target import STATUS_OF, missing_note, missing_of, outcome_for, run_argv
from .verdict import answer_problems


@dataclass(frozen=True)
class FileTests:
    """Which tests of one file are the API's, and whether the file runs whole or by id."""

    path: str  # repo-relative
    #: the API's tests as the source writes them (``path::Class::test``); () : every test of the file
    templates: tuple[str, ...] = ()
    #: run the whole file (the task's own); else only the API's tests, by id
    whole: bool = True

    def candidates(self) -> FileCandidates:
        wanted = []
        for t in self.templates:
            parts = t.split("::")
            klass = parts[-2].rsplit(".", 1)[-1] if len(parts) > 2 else ""
            wanted.append(Wanted(t, self.path, klass, parts[-1]))
        return FileCandidates(self.path, wanted)


def _key(test_id: str) -> tuple[str, str]:
    parts = test_id.split("::") if "::" in test_id else test_id.split(".")
    return (parts[-2] if len(parts) > 1 else "", parts[-1].split("[", 1)[0])


def _outcomes(step: Step) -> dict[tuple[str, str], TestOutcome]:
    out: dict[tuple[str, str], TestOutcome] = {}
    for t in step.tests:
        parts = t.id.split("::") if "::" in t.id else t.id.split(".")
        out[(parts[-2] if len(parts) > 1 else "", parts[-1])] = t
    return out


def _last_line(detail: str) -> str:
    lines = [ln.strip() for ln in detail.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def _exit(step: Step) -> str:
    if step.exit_code is not None:
        return f"exit code {step.exit_code}"
    return f"signal {step.signal}" if step.signal else step.status


def _raw_runner(step: Step, key: str) -> list[str]:
    raw = (step.result or {}).get("runner")
    value = raw.get(key) if isinstance(raw, dict) else None
    return [str(v) for v in value] if isinstance(value, list) else []


#: a class or module fixture's outcome, as unittest names it: the tests under it never start
_FIXTURE = re.compile(r"^(setUpClass|setUpModule) \((.*)\)$")


def fixture_outcome(step: Step, klass: str) -> TestOutcome | None:
    """The outcome of the fixture that answered for the tests of ``klass`` (a ``SkipTest`` or an error
    in its ``setUpClass``, or in the module's ``setUpModule``), None when none did."""
    for t in step.tests:
        m = _FIXTURE.match(t.id)
        if m and (m.group(1) == "setUpModule" or m.group(2).rsplit(".", 1)[-1] == klass):
            return t
    return None


def _unanswered(step: Step, selector: str) -> tuple[str, str]:
    """(status, why) of an API test the run gave no outcome for."""
    fixture = fixture_outcome(step, _key(selector)[0])
    if fixture is not None:  # its class (or module) fixture answered for it
        status = STATUS_OF.get(fixture.outcome, "failed")
        return status, (fixture.detail if status == "skipped" else _last_line(fixture.detail))
    if step.runner is None:
        return (
            "failed",
            f"its run ended {step.status} ({_exit(step)}) before the agent could answer: the "
            "process died while the API's tests ran",
        )
    if step.runner.sessions == 0:
        return "not_started", "no test runner started (the file's main block ran no test)"
    cls, name = _key(selector)
    if any(_key(x) == (cls, name) for x in _raw_runner(step, "unreported")):
        return "failed", "it started and never reported an outcome (the run stopped in it)"
    return "not_started", "the runner was given it and never ran it"


def from_selection(sel: Selection, step: Step | None) -> list[ApiTest]:
    """The API's tests of one by-id file: each selected instance's outcome, the disabled ones, those
    that never started (no instance on the device, over the budget)."""
    got = _outcomes(step) if step is not None else {}
    out = []
    for t in sel.tests:
        name = t.id or t.test
        if t.status == "disabled":
            out.append(ApiTest(t.test, t.file, name, "disabled", t.detail))
        elif t.status == "run" and step is not None:
            o = outcome_for(t.selector, got)
            if o is None:
                status, why = _unanswered(step, t.selector)
                out.append(ApiTest(t.test, t.file, name, status, why))
            else:
                status = STATUS_OF.get(o.outcome, "failed")
                detail = o.detail if status == "skipped" else _last_line(o.detail)
                out.append(ApiTest(t.test, t.file, o.id, status, detail[:300]))
        else:
            out.append(ApiTest(t.test, t.file, name, "not_started", t.detail))
    return out


def not_listed(ft: FileTests, listing: Step, root: Path) -> list[ApiTest]:
    """The API's tests of a file whose tests could not be listed (it does not import): none started."""
    raw = listing.result.get("missing")
    missing = missing_of(
        raw
        if isinstance(raw, dict)
        else {
            "kind": "error",
            "name": listing.status,
            "detail": f"listing the file's tests ended {listing.status} ({_exit(listing)})",
        },
        ft.path,
        root,
    )
    why = phrase(missing_note(missing))
    return [ApiTest(t, ft.path, "", "not_started", why) for t in ft.templates]


def listing_of(step: Step) -> Listing | None:
    """The listing a ``upstream_list`` step answered (None: the file could not be listed)."""
    if not step.ok or not step.result or step.result.get("missing"):
        return None
    return Listing.from_result(step.result)


def choose(
    ft: FileTests,
    listing: Listing,
    entry: str,
    device: str,
    disabled: DisabledList | None,
    platform: str,
    budget: int,
) -> Selection:
    """The instances of the API's tests to run on ``device``, less the disabled ones."""
    return select(listing, ft.candidates(), ft.path, entry, device, disabled, platform, budget)


def run_args(abs_path: str, sel: Selection, entry: str, unset: Sequence[str]) -> dict[str, Any]:
    """The agent's ``run_file`` arguments that run exactly ``sel``'s tests."""
    return {"path": abs_path, "entry": entry, "selectors": list(sel.run), "unset": list(unset)}


def literal(python: str, abs_path: str, sel: Selection, entry: str) -> list[str]:
    """The command a reviewer types to run the same tests (in the file's folder for a module entry)."""
    return [python, *run_argv(abs_path, sel.run, entry)]


def run_cwd(root: Path, abs_path: str, entry: str) -> str:
    return str(Path(abs_path).parent) if entry == "module" else str(root)


def _matches(outcome_id: str, klass: str, name: str, exact: bool) -> bool:
    cls, method = _key(outcome_id)
    if klass and not (cls == klass or cls.startswith(klass)):
        return False
    return method == name if exact else method.startswith(name + "_")


def from_whole(ft: FileTests | None, step: Step) -> tuple[list[ApiTest], list[str], bool]:
    """(API tests, unrelated failures, answered) of a file that ran whole. ``answered`` is False when an
    API test has no outcome because the run died before it answered: run them again by id."""
    path = ft.path if ft is not None else step.test_file
    templates = ft.templates if ft is not None else ()
    api: list[ApiTest] = []
    unrelated: list[str] = []
    if not templates:  # every test of the file is the API's
        for o in step.tests:
            status = STATUS_OF.get(o.outcome, "failed")
            detail = o.detail if status == "skipped" else _last_line(o.detail)
            api.append(ApiTest(o.id, path, o.id, status, detail[:300]))
        return api, unrelated, True
    mine: set[str] = set()
    missing = []
    for t in templates:
        parts = t.split("::")
        klass = parts[-2].rsplit(".", 1)[-1] if len(parts) > 2 else ""
        found = [o for o in step.tests if _matches(o.id, klass, parts[-1], True)] or [
            o for o in step.tests if _matches(o.id, klass, parts[-1], False)
        ]
        if not found:
            missing.append(t)
        for o in found:
            mine.add(o.id)
            status = STATUS_OF.get(o.outcome, "failed")
            detail = o.detail if status == "skipped" else _last_line(o.detail)
            api.append(ApiTest(t, path, o.id, status, detail[:300]))
    for o in step.tests:
        if o.id not in mine and o.outcome in BAD_OUTCOMES:
            unrelated.append(f"{o.id} ({o.outcome}): {_last_line(o.detail)}".rstrip(": "))
    complete = step.runner is not None and step.runner.completed
    if missing and not complete:
        return api, unrelated, False
    for t in missing:
        parts = t.split("::")
        fixture = fixture_outcome(step, parts[-2].rsplit(".", 1)[-1] if len(parts) > 2 else "")
        if fixture is not None:
            status = STATUS_OF.get(fixture.outcome, "failed")
            detail = fixture.detail if status == "skipped" else _last_line(fixture.detail)
            api.append(ApiTest(t, path, fixture.id, status, detail[:300]))
        else:
            api.append(ApiTest(t, path, "", "not_started", "the file's run did not run it"))
    if not complete or step.status != "OK":
        unrelated.append(f"the file's whole run ended {step.status} ({_exit(step)})")
    return api, unrelated, True


def file_reasons(full: Step, source: Step, whole_is_api: bool) -> list[str]:
    """Why a file's run counts against the API beyond its failing tests: an answer that cannot be
    trusted (always), and, when every test the run was given is the API's, a run that died. ``full``
    holds the verdict (``collect.verdict.judge``), ``source`` the answer it was judged from (the run
    itself, or with fresh interpreters the agent's own rerun)."""
    problems = answer_problems(source) + (answer_problems(full) if source is not full else [])
    out = [
        "the answer did not come as one signed message over the agent's channel: " + p
        for p in problems[:1]
    ]
    if whole_is_api:
        out += [
            r
            for r in full.verdict_reasons
            if not (
                " did not pass:" in r
                or r == "the test runner ran no test"
                or r.startswith("the answer did not come as one signed message")
            )
        ]
    return out


def target_result(rec: TargetRecord, other_ok: bool) -> str:
    """FAIL: an API test failed, or a reason counts against it, or (``other_ok`` False) an isolation
    probe, the trace or the leak rule failed; NONE_RAN: none of the API's tests ran and passed;
    else PASS."""
    statuses = {t.status for t in rec.api_tests}
    if "failed" in statuses or rec.api_reasons:
        return "FAIL"
    if "passed" not in statuses:
        return "NONE_RAN"
    return "PASS" if other_ok else "FAIL"


def none_ran_reason(rec: TargetRecord) -> str:
    """What became of the API's tests when none ran, counted."""
    c = rec.api_counts()
    if not c["total"]:
        return "no test of the API was found to run"
    bits = [
        f"{c[k]} {word}"
        for k, word in (
            ("skipped", "skipped"),
            ("disabled", "disabled by the backend's list"),
            ("not_started", "never started"),
        )
        if c[k]
    ]
    return f"none of the API's {c['total']} test(s) ran: " + ", ".join(bits)


def isolation_tests(sel: Selection, entry: str) -> list[str] | None:
    """What the isolation probe and the trace of a by-id file run: exactly the tests that ran
    (``Class.test``); None for a pytest file (their own name patterns choose)."""
    if entry == PYTEST:
        return None
    return list(sel.run)


__all__ = [
    "FileTests",
    "choose",
    "file_reasons",
    "from_selection",
    "from_whole",
    "isolation_tests",
    "listing_of",
    "literal",
    "none_ran_reason",
    "not_listed",
    "run_args",
    "run_cwd",
    "target_result",
]
