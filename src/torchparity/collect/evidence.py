"""The evidence log, rendered from a ``TargetRecord`` in the shape the community pastes.

``KEY=VALUE`` header between rules of ``=``, then one ``===== SECTION =====``
per step with the step's command, the runner's own output and its exit code,
then ``RESULT=`` and the collector's own exit codes. The log says how every
step ran (fresh interpreter, or forked child of a warm worker).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..phrases import phrase
from ..records.target import BAD_OUTCOMES, Step, TargetRecord
from ..textsafe import one_line

RULE = "=" * 50


def emulated_line(rec: TargetRecord) -> str:
    """The EMULATED line of a run whose backend only emulates its device ("" on hardware)."""
    if not rec.emulated:
        return ""
    facts = rec.probe_facts
    module = next(
        (
            k[: -len("_emulated")]
            for k in facts
            if k.endswith("_emulated") and not k.startswith("environ_")
        ),
        "",
    )
    version = facts.get(f"{module}_version") if module else None
    what = f" ({module} {version})" if module and version else ""
    return one_line(
        f"EMULATED={rec.emulated} emulated on CPU{what}: a dry run, not hardware evidence"
    )


def _v(value: object) -> str:
    """A value for a ``KEY=VALUE`` line: one line, control characters escaped (a value never starts a
    line of its own: a path or a name holding ``\nRESULT=PASS`` stays inside its own line)."""
    return one_line(str(value))


_flag = _v


def probe_output(output: str, facts: Sequence[Sequence[object]]) -> str:
    """The probe's printed output with each fact on one line.

    The agent prints every fact as ``key=value`` with the value as it is (an interpreter path in a
    folder named ``x\nRESULT=PASS`` holds a newline): each printed fact is replaced, in order, by the
    same fact with its value escaped; whatever else was printed (a backend's warnings) stays as it is."""
    pos = 0
    for fact in facts:
        if len(fact) != 2:
            continue
        key, value = str(fact[0]), str(fact[1])
        printed, safe = f"{key}={value}", f"{_v(key)}={_v(value)}"
        at = output.find(printed, pos)
        if at < 0:
            continue
        output = output[:at] + safe + output[at + len(printed) :]
        pos = at + len(safe)
    return output


def state_key(title: str) -> str:
    """'GRAD MODE' -> 'GRAD_MODE' (the seed's PROCESS_ORIGINAL_GRAD_MODE spelling)."""
    return re.sub(r"[^A-Z0-9]+", "_", title.upper()).strip("_")


def _step_tail(lines: list[str], step: Step, key: str) -> None:
    if step.status not in ("OK", "FAIL"):
        extra = f" signal={_v(step.signal)}" if step.signal else ""
        lines.append(f"{key}_STATUS={_v(step.status)}{extra}")
    lines.append(f"{key}_EXIT_CODE={'' if step.exit_code is None else _v(step.exit_code)}")


def _how(lines: list[str], step: Step, mode: str) -> None:
    if mode == "warm" and step.how:
        lines.append(f"EXECUTED_AS={_v(step.how)}")


#: where a full run's verdict comes from, as the log says it
RESULTS_FROM = {
    "": "the test runner's result API, watched inside this run (the agent's own result object given to unittest, "
    "a pytest plugin) and sent once over the job's signed answer pipe; the output above is the human record, "
    "not parsed for the verdict",
    "leak_check": "the agent's own run of this file in a fresh interpreter (STATE LEAK CHECK), through the test "
    "runner's result API; the literal command's output above is the human record, not parsed "
    "for the verdict",
}


def _runner(lines: list[str], step: Step) -> None:
    """The structured results of a full run: the runner's own account, the findings, the verdict."""
    if not step.verdict:  # a record made before structured results
        return
    lines.append(f"RESULTS_FROM={_v(RESULTS_FROM.get(step.results_from, step.results_from))}")
    r = step.runner
    if r is None:
        lines.append("RUNNER=none reported (the run ended before the agent could answer)")
    else:
        lines.append(f"RUNNER={_v(r.kind or 'none started')}")
        lines.append(
            f"RUNNER_FINISHED={_v(r.completed)} (sessions started:{_v(r.sessions)},"
            f"finished:{_v(r.finished)})"
        )
        counts = {k: 0 for k in ("passed", "failed", "error", "skipped", "xfail", "xpass")}
        for t in step.tests:
            counts[t.outcome] = counts.get(t.outcome, 0) + 1
        lines.append(
            f"RUNNER_TESTS=tests_run:{_v(r.tests_run)},"
            + ",".join(f"{_v(k)}:{v}" for k, v in counts.items())
        )
        for t in step.tests:
            if t.outcome in BAD_OUTCOMES:
                lines.append(f"RUNNER_TEST={one_line(t.id)}:{_v(t.outcome)}")
    for finding in step.findings:
        lines.append(f"FINDING={one_line(finding)}")
    lines.append(f"FULL_TEST_VERDICT={_v(step.verdict)}")
    for reason in step.verdict_reasons:
        lines.append(f"FULL_TEST_VERDICT_REASON={one_line(reason)}")


def _output(lines: list[str], text: str) -> None:
    if text:
        lines.extend(text.rstrip("\n").split("\n"))


def _api_tests(lines: list[str], rec: TargetRecord) -> None:
    """The ref's torch release against the environment's, then the API's tests: how each file ran
    (by id, or whole), what became of each API test, and failures outside them (never the verdict)."""
    if rec.version_check:
        lines += ["", "===== TORCH RELEASE ====="]
        lines.append(f"TORCH_RELEASE_WANTED={_v(' / '.join(rec.torch_wanted) or 'any')}")
        if rec.torch_version:
            lines.append(f"TORCH_VERSION={_v(rec.torch_version)}")
        lines.append(f"TORCH_VERSION_CHECK={_v(rec.version_check)}")
    if not rec.api_tests and not any(tf.selection for tf in rec.test_files):
        return
    lines += ["", "===== API TESTS ====="]
    for tf in rec.test_files:
        how = "only the API's tests, by id" if tf.selection == "id" else "whole"
        entry = f",entry:{_v(tf.entry)}" if tf.entry else ""
        lines.append(f"API_TESTS_FILE={_v(tf.path)},run:{_v(how)}{entry}")
    for step in rec.listing:
        lines.append(f"LISTING={_v(step.test_file)},status:{_v(step.status)}")
    for t in rec.api_tests:
        detail = f" ({one_line(t.detail)})" if t.detail else ""
        lines.append(f"API_TEST={one_line(t.id or t.test)}:{_v(t.status)}{detail}")
    c = rec.api_counts()
    lines.append(
        "API_TESTS_COUNT="
        + ",".join(
            f"{k}:{c[k]}"
            for k in ("total", "passed", "failed", "skipped", "disabled", "not_started")
        )
    )
    for reason in rec.api_reasons:
        lines.append(f"API_TESTS_REASON={one_line(reason)}")
    for u in rec.unrelated:
        lines.append(f"UNRELATED_FAILURE={one_line(u)}")


def render_log(rec: TargetRecord, sections: Sequence[str] = ()) -> str:
    """The log of ``rec``; ``sections``: lines another stage adds before the notes (its own
    ``===== SECTION =====`` headers included), e.g. the upstream stage's ``UPSTREAM TESTS``."""
    lines: list[str] = [RULE, f"TARGET_BRANCH={_v(rec.ref)}"]
    if rec.source_branch:
        lines.append(f"SOURCE_BRANCH={_v(rec.source_branch)}")
    lines.append(f"COMMIT={_v(rec.commit)}")
    lines.append(f"PYTHON={_v(rec.python)}")
    if rec.checkout:
        lines.append(f"CHECKOUT={one_line(rec.checkout)}")
    for tf in rec.test_files:
        lines.append(f"TEST_FILE={_v(tf.abs_path)}")
        lines.append(f"TEST_FILE_SHA256={_v(tf.sha256)}")
    lines.append(f"RUN_MODE={'warm-worker' if rec.mode == 'warm' else 'fresh'}")
    if rec.process_tracking:
        lines.append(f"PROCESS_TRACKING={one_line(rec.process_tracking)}")
    lines.append(
        f"DEVICE={_v(rec.device)} (emulated on CPU)" if rec.emulated else f"DEVICE={_v(rec.device)}"
    )
    if rec.emulated:
        lines.append(emulated_line(rec))
    if rec.probe is not None and rec.probe.result.get("device_reason"):
        lines.append(f"DEVICE_CHOICE={one_line(str(rec.probe.result['device_reason']))}")
    lines.append(RULE)

    if rec.probe is not None:
        p = rec.probe
        lines += ["", "===== ENVIRONMENT PROBE ====="]
        if rec.mode == "fresh" and p.command:
            lines.append(f"COMMAND={_v(p.command)}")
        _how(lines, p, rec.mode)
        _output(lines, probe_output(p.output, p.result.get("facts") or []))
        _step_tail(lines, p, "ENVIRONMENT_PROBE")

    _api_tests(lines, rec)

    many = len(rec.full) > 1
    for step in rec.full:
        lines += ["", "===== FULL TEST FILE ====="]
        if many:
            lines.append(f"TEST_FILE={_v(step.test_file)}")
        lines.append(f"COMMAND={_v(step.command)}")
        _how(lines, step, rec.mode)
        _output(lines, step.output)
        _step_tail(lines, step, "FULL_TEST")
        _runner(lines, step)

    if rec.full:
        lines += ["", "===== STATE LEAK CHECK ====="]
        for step in rec.leak_check:
            lines.append(f"COMMAND={_v(step.command)}")
            if step.status not in ("OK", "FAIL"):
                lines.append(f"LEAK_CHECK_STATUS={_v(step.status)}")
        if rec.mode == "warm":
            lines.append(
                "CHECKED_DURING=FULL TEST FILE (state snapshot before and after each test)"
            )
        for leak in rec.leaks:
            lines.append(
                f"STATE_LEAK=test:{_v(leak['test'])},state:{_v(leak['state'])},"
                f"before:{_v(leak['before'])},after:{_v(leak['after'])}"
            )
        status, reason, _ = rec.leak_verdict()
        lines.append(f"STATE_LEAK_CHECK={_v(status)}")
        if reason:
            lines.append(f"STATE_LEAK_CHECK_REASON={_v(reason)}")

    for step in rec.isolation:
        r = step.result
        title = _v(r.get("title", step.name))
        key = state_key(title)
        lines += ["", f"===== {title} ISOLATION PROBE ====="]
        if many or len(rec.test_files) > 1:
            lines.append(f"TEST_FILE={_v(step.test_file)}")
        if rec.mode == "fresh" and step.command:
            lines.append(f"COMMAND={_v(step.command)}")
        _how(lines, step, rec.mode)
        if r.get("skipped"):
            lines.append(f"{key}_ISOLATION_SKIPPED={_v(r['skipped'])}")
        if r.get("error"):
            lines.append(f"{key}_ISOLATION_ERROR={_v(r['error'])}")
        sel = r.get("selection")
        if sel is not None:
            n = len(sel.get("tests") or [])
            if sel.get("pattern") == "by id":
                lines.append(f"ISOLATION_SELECTION={n} test(s): the API's tests, by id")
            elif sel.get("pattern"):
                lines.append(f"ISOLATION_SELECTION={n} test(s) matching {_v(repr(sel['pattern']))}")
            else:
                tried = ", ".join(repr(p) for p in sel.get("patterns") or []) or "none given"
                lines.append(
                    f"ISOLATION_SELECTION=all {n} test(s) of the file (no test name matched: {_v(tried)})"
                )
        _output(lines, step.output)
        if "original" in r:
            lines.append(f"PROCESS_ORIGINAL_{key}={_flag(r['original'])}")
        for run in r.get("runs", []):
            lines.append(
                "ISOLATION_RESULT="
                f"initial:{_v(run['initial'])},before:{_v(run['before'])},after:{_v(run['after'])},"
                f"tests_run:{_v(run['tests_run'])},successful:{_v(run['successful'])}"
            )
        if "final" in r:
            lines.append(f"PROCESS_FINAL_{key}={_flag(r['final'])}")
        passed = step.status == "OK" and bool(r.get("passed"))
        # a probe that was skipped ran no test: it did not pass, it did not run
        verdict = "NOT_RUN" if r.get("skipped") and passed else ("PASS" if passed else "FAIL")
        lines.append(f"{key}_ISOLATION_PROBE={verdict}")
        _step_tail(lines, step, f"{key}_ISOLATION")

    for step in rec.trace:
        t = step.result.get("trace") or {}
        lines += ["", "===== DISPATCH TRACE ====="]
        if many or len(rec.test_files) > 1:
            lines.append(f"TEST_FILE={_v(step.test_file)}")
        if rec.mode == "fresh" and step.command:
            lines.append(f"COMMAND={_v(step.command)}")
        _how(lines, step, rec.mode)
        sel = t.get("selection") or {}
        lines.append(f"TRACE_TESTS={_v(','.join(sel.get('tests') or []) or '(none)')}")
        lines.append(f"TRACE_STATUS={_v(t.get('status', step.status))}")
        if t.get("error"):
            lines.append(
                f"TRACE_ERROR={_v(str(t['error']).splitlines()[0]) if str(t['error']).strip() else ''}"
            )
        lines.append(f"TRACE_TOTAL_OPS={_v(t.get('total_ops', 0))}")
        lines.append(f"TRACE_DEVICE_TENSORS_CREATED={_v(t.get('device_tensors_created', 0))}")
        for op in t.get("ops", []):
            devices = "|".join(str(d) for d in op.get("devices") or []) or "-"
            lines.append(f"TRACE_OP={_v(op['op'])},devices:{_v(devices)},count:{_v(op['count'])}")
        _step_tail(lines, step, "DISPATCH_TRACE")

    lines.extend(sections)
    for note in rec.notes:
        lines += ["", f"NOTE={one_line(phrase(note))}"]
    lines.append("")
    if rec.emulated:
        lines.append(emulated_line(rec))
    lines.append(f"RESULT={_v(rec.result)}")
    if rec.collector_exit_code is not None:
        lines.append(f"{_v(rec.ref)}_TEST_COLLECTOR_EXIT_CODE={_v(rec.collector_exit_code)}")
    if rec.worktree_remove_exit_code is not None:
        lines.append(f"{_v(rec.ref)}_WORKTREE_REMOVE_EXIT_CODE={_v(rec.worktree_remove_exit_code)}")
    return "\n".join(lines) + "\n"
