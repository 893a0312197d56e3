"""A test file's verdict, from its runner's structured results; the output text only cross-checks it.

A file's run passes when the runner (unittest's result, pytest's session)
started, reported its end, ran at least one test, reported no test failing,
and the process exited 0. Nothing a test prints can change that. The printed
output and the exit code are compared with the structured results, and each
disagreement is a finding kept in the record and the log.

Nor can the run account for less than it was given: every test the runner was
handed (a top-level suite's tests, pytest's collected items) must have started
or been answered for by its class fixture, every test that started must have
reported an outcome to the agent's own result object, and no exception may have
left the suite before its end (``sys.exit(0)`` in a ``setUpClass``). The answer
itself must have come as one signed message over the agent's channel from the
process the agent started; anything else on that channel, or a file at the
place answers once went, is a finding and the run is not a pass.
"""

from __future__ import annotations

import re
from typing import Any

from ..records.target import BAD_OUTCOMES, RunnerReport, Step, TestOutcome
from .outcomes import parse_outcomes, ran_count

_FAILING = " test(s) did not pass:"

#: findings listed one by one at most; the rest are counted
MAX_FINDINGS = 10

_PYTEST_SUMMARY = re.compile(
    r"^=+ (?P<body>[^=]*?\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed)[^=]*?) in [\d.]+s.*=+$",
    re.MULTILINE,
)
_PYTEST_COUNT = re.compile(
    r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)"
)


def structured(step: Step) -> tuple[list[TestOutcome], RunnerReport | None]:
    """The per-test outcomes and the runner's report in an agent run's answer (none: it never answered)."""
    res = step.result or {}
    runner = res.get("runner")
    tests = [TestOutcome.from_json(t) for t in res.get("tests") or [] if isinstance(t, dict)]
    return tests, RunnerReport.from_json(runner) if isinstance(runner, dict) else None


#: tests named one by one in a reason at most; the rest are counted
MAX_NAMED = 5


def _named(ids: list[str]) -> str:
    more = f" and {len(ids) - MAX_NAMED} more" if len(ids) > MAX_NAMED else ""
    return ", ".join(ids[:MAX_NAMED]) + more


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def answer_problems(step: Step) -> list[str]:
    """What went wrong with a step's answer channel (``answer_problems`` of its result): not a pass."""
    return _strings((step.result or {}).get("answer_problems"))


def _accounting(res: dict[str, Any], runner: RunnerReport | None) -> tuple[list[str], list[str]]:
    """(reasons, findings): the tests the runner was given against those that ran and reported, what
    left a suite early, and the runner's own result object against the agent's (``agent/results.py``)."""
    raw = res.get("runner")
    if runner is None or not isinstance(raw, dict):
        return [], []
    reasons: list[str] = []
    findings: list[str] = []
    not_run, unreported, left_by = (
        _strings(raw.get(k)) for k in ("not_run", "unreported", "left_by")
    )
    planned = raw.get("planned")
    if not_run:
        given = (
            f"{len(not_run)} of the {planned} test(s)"
            if isinstance(planned, int) and planned
            else (f"{len(not_run)} test(s)")
        )
        reasons.append(
            f"{given} the runner was given never ran and no outcome accounts for them: "
            f"{_named(not_run)}"
        )
    if unreported:
        reasons.append(
            f"{len(unreported)} test(s) started but never reported an outcome: {_named(unreported)}"
        )
    for what in left_by:
        reasons.append(f"the test suite was left before its end by {what}")
        said = (
            "the runner reported its end, but" if runner.completed else "the runner did not finish:"
        )
        findings.append(
            f"{said} the suite was left early by {what}"
            + (f"; {len(not_run)} test(s) it was given never ran" if not_run else "")
        )
    for r in raw.get("result_objects") or []:
        if not isinstance(r, dict):
            continue
        cls, theirs, ours = r.get("result_class", "?"), r.get("runner"), r.get("agent")
        if r.get("what") == "bad":
            dropped = (
                ": its result class dropped what unittest reported to it"
                if (isinstance(theirs, int) and isinstance(ours, int) and theirs < ours)
                else ""
            )
            findings.append(
                f"the runner's result object ({cls}) lists {theirs} failure(s) or error(s); the "
                f"agent's own result object saw {ours} failure(s) or error(s){dropped}"
            )
        elif r.get("what") == "tests_run":
            findings.append(
                f"the runner's result object ({cls}) counted testsRun={theirs}; the agent's own "
                f"result object saw {ours} test(s) start"
            )
    return reasons, findings


def _exit(step: Step) -> str:
    if step.exit_code is not None:
        return f"exit code {step.exit_code}"
    return f"signal {step.signal}" if step.signal else step.status


def judge(full: Step, source: Step, source_output: str) -> None:
    """Fill ``full``'s tests, runner, findings and verdict from ``source``, the agent's run of the file.

    ``source`` is ``full`` itself in a warm worker; with fresh interpreters it is the agent's own run
    of the file (the literal command ``full`` is not watched). ``source_output`` is what that run printed.
    """
    tests, runner = structured(source)
    full.tests, full.runner = tests, runner
    full.results_from = "" if source is full else "leak_check"
    reasons: list[str] = []
    problems = answer_problems(source) + (answer_problems(full) if source is not full else [])
    if runner is None:
        reasons.append(
            f"the run ended ({_exit(source)}) without the agent's structured results: the process the agent "
            "started stopped before its test runner finished (os._exit, a kill, a crash, or the run went on "
            "in a copy of it made by fork, which cannot answer), so no test counts as passed"
        )
    elif runner.sessions == 0:
        reasons.append(
            "no test runner started: the file never ran unittest.main, run_tests or pytest.main "
            "in this process (or exited before it)"
        )
    elif not runner.completed:
        reasons.append(
            f"the test runner never reported its end ({runner.finished} of {runner.sessions} "
            "session(s) finished): the run stopped early"
        )
    elif runner.tests_run == 0 and not tests:
        reasons.append("the test runner ran no test")
    bad = [t for t in tests if t.outcome in BAD_OUTCOMES]
    if bad:
        reasons.append(
            f"{len(bad)}{_FAILING} "
            + ", ".join(f"{t.id} ({t.outcome})" for t in bad[:5])
            + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        )
    if source.status != "OK" and runner is not None and not bad:
        reasons.append(f"the file's run ended {source.status} ({_exit(source)})")
    if source is not full and full.status != "OK" and not bad:
        reasons.append(f"the literal command ended {full.status} ({_exit(full)})")
    counted, miscounted = _accounting(source.result or {}, runner)
    reasons += counted
    if problems:
        reasons.append(
            "the answer did not come as one signed message over the agent's own channel from the "
            f"process it started: {problems[0]}"
        )
    full.verdict = "FAIL" if reasons else "PASS"
    full.verdict_reasons = reasons
    findings = cross_check(source, tests, runner, source_output)
    if source is not full:
        findings += _literal_check(full, runner)
    findings += miscounted + problems + _after_answer(source, runner)
    if len(findings) > MAX_FINDINGS:
        findings = findings[:MAX_FINDINGS] + [
            f"... and {len(findings) - MAX_FINDINGS} more disagreement(s)"
        ]
    full.findings = findings


def failing_tests(reason: str) -> bool:
    """Whether a verdict reason is the failing tests themselves (not a run that stopped or lied)."""
    return _FAILING in reason


def cross_check(
    step: Step, tests: list[TestOutcome], runner: RunnerReport | None, output: str
) -> list[str]:
    """Where the output text or the exit code disagrees with the runner's structured results."""
    out: list[str] = []
    bad = [t for t in tests if t.outcome in BAD_OUTCOMES]
    if step.exit_code == 0 and (runner is None or not runner.completed):
        out.append("exit code 0, but the test runner never reported its end")
    elif step.exit_code == 0 and bad:
        out.append(f"exit code 0, but the runner reported {len(bad)} test(s) not passing")
    elif (
        step.exit_code not in (0, None)
        and runner is not None
        and runner.completed
        and tests
        and not bad
    ):
        out.append(f"exit code {step.exit_code}, although the runner reported every test passing")
    if runner is None:
        return out
    ran = ran_count(output)
    if ran is not None and "unittest" in runner.kind and ran != runner.tests_run:
        out.append(
            f"the output says 'Ran {ran} tests'; the runner's result API counted {runner.tests_run}"
        )
    pytest_total = _pytest_total(output)
    if pytest_total is not None and runner.kind == "pytest" and pytest_total != len(tests):
        out.append(
            f"the output's pytest summary counts {pytest_total} tests; the runner's reports name {len(tests)}"
        )
    known = {t.id: t.outcome for t in tests}
    for claim in parse_outcomes(output):
        real = known.get(claim.id)
        if real is None:
            out.append(
                f"the output prints a result line for {claim.id} ({claim.outcome}), "
                "a test the runner did not report"
            )
        elif real != claim.outcome:
            out.append(
                f"the output prints {claim.id} as {claim.outcome}; the runner reported {real}"
            )
    return out


def _after_answer(step: Step, runner: RunnerReport | None) -> list[str]:
    """The process's exit code against the one the agent answered: what ran after the answer changed it."""
    answered = (step.result or {}).get("exit_code")
    if (
        runner is None
        or not isinstance(answered, int)
        or step.exit_code is None
        or step.exit_code == answered
    ):
        return []
    return [
        f"the process exited {step.exit_code} after the agent answered exit code {answered}: something ran "
        "after the agent's answer (an atexit handler, the interpreter's teardown)"
    ]


def _literal_check(full: Step, runner: RunnerReport | None) -> list[str]:
    """The literal command (fresh mode) against the agent's own run of the same file."""
    out: list[str] = []
    ran = ran_count(full.output)
    if (
        ran is not None
        and runner is not None
        and "unittest" in runner.kind
        and ran != runner.tests_run
    ):
        out.append(
            f"the literal command's output says 'Ran {ran} tests'; the agent's run of the file "
            f"counted {runner.tests_run}"
        )
    return out


def _pytest_total(output: str) -> int | None:
    found = list(_PYTEST_SUMMARY.finditer(output))
    if not found:
        return None
    counts = _PYTEST_COUNT.findall(found[-1]["body"])
    return sum(int(n) for n, kind in counts if kind not in ("deselected", "warning", "warnings"))
