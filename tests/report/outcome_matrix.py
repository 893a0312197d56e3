"""A matrix of run outcomes, as records: every target state × one or three environments × docs present,
missing or added × with or without a range × official tests none, partial or not started.

Each outcome is a list of ``RunRecords`` built from the report fixture's records and changed the way the
collector records that state (its log rendered from the changed record, as the collector does), so the
report is built by ``build_report`` exactly as for a real run.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator
from dataclasses import replace

from tests.report.report_fixtures import (
    API,
    CLASS_ID,
    COVERAGE,
    DOCS_CHECK,
    RESOLVE,
    TEST_PATH,
    Fixture,
    target_record,
)
from tests.report.upstream_fixture import upstream_record
from torchparity.checks import checklist_for_runs, evaluate_change
from torchparity.collect.evidence import render_log
from torchparity.records import ApiCoverage, ApiInfo, DocsCheckRecord, RunRecords, TargetEvidence
from torchparity.records.docs import AddedEntry, DocsAddRecord
from torchparity.records.run import RunInfo
from torchparity.records.target import (
    ApiTest,
    RunnerReport,
    Step,
    TargetRecord,
    TestOutcome,
)
from torchparity.records.upstream import UpstreamRecord
from torchparity.store import sha256_bytes

STATES = ("pass", "fail", "none_ran", "mismatch", "emulated", "error", "allowed")
ENVS = (1, 3)
DOCS = ("present", "missing", "added")
RANGES = (False, True)
OFFICIAL = ("none", "partial", "not_started")

_TESTS = ("test_set_grad_enabled_clone", "test_set_grad_enabled_clone_decorator")
SKIPPED_OUTPUT = "".join(
    f"{t} ({CLASS_ID}.{t}) ... skipped 'needs two devices'\n" for t in _TESTS
) + ("\n" + "-" * 70 + "\nRan 2 tests in 0.002s\n\nOK (skipped=2)\n")


def _api_tests(status: str) -> list[ApiTest]:
    return [
        ApiTest(
            f"{TEST_PATH}::TestGradModeClone::{t}",
            TEST_PATH,
            f"{CLASS_ID}.{t}",
            status,
            "needs two devices" if status == "skipped" else "",
        )
        for t in _TESTS
    ]


def _state(rec: TargetRecord, state: str) -> TargetRecord:
    """``rec`` (a passing target of the fixture) as the collector records ``state``."""
    if state in ("pass", "fail"):  # the fixture's own records (``failed=`` made the failing one)
        return rec
    if state == "emulated":
        return replace(rec, emulated="npu", hardware="")
    if state == "allowed":
        return replace(
            rec, version_check="allowed", torch_wanted=["2.12.0"], torch_version="2.7.1+cpu"
        )
    if state == "none_ran":
        full = replace(
            rec.full[0],
            output=SKIPPED_OUTPUT,
            tests=[TestOutcome(f"{CLASS_ID}.{t}", "skipped", "needs two devices") for t in _TESTS],
            runner=RunnerReport("unittest", sessions=1, finished=1, tests_run=2),
            verdict="NONE_RAN",
        )
        return replace(
            rec,
            full=[full],
            isolation=[],
            test_files=[replace(tf, selection="id") for tf in rec.test_files],
            api_tests=_api_tests("skipped"),
            result="NONE_RAN",
            collector_exit_code=1,
        )
    if state == "mismatch":
        return replace(
            rec,
            full=[],
            isolation=[],
            test_files=[],
            version_check="mismatch",
            torch_wanted=["2.12.0"],
            torch_version="2.7.1+cpu",
            result="MISMATCH",
            collector_exit_code=3,
        )
    if state == "error":
        crash = Step(
            name="full",
            status="CRASH",
            exit_code=-11,
            signal="SIGSEGV",
            command=rec.full[0].command,
            output="Fatal Python error: Segmentation fault\n",
            test_file=TEST_PATH,
        )
        return replace(rec, full=[crash], isolation=[], result="ERROR", collector_exit_code=3)
    raise ValueError(state)


def _evidence(rec: TargetRecord) -> TargetEvidence:
    log = render_log(rec)
    return TargetEvidence(rec, log, sha256_bytes(log.encode()), sha256_bytes(b"r" + log.encode()))


def _targets(fx: Fixture, state: str, envs: int) -> list[TargetRecord]:
    names = ("a2", "a3", "a5")[:envs]
    out = []
    for i, env in enumerate(names):
        # the first target has the state; with three, the others pass (fail for a failing outcome)
        one = state if i == 0 or state in ("fail", "mismatch", "emulated") else "pass"
        rec = target_record(env, fx.head, "6d" * 32, failed=one == "fail", count=i + 1)
        if i == 1 and one == "pass":  # the API's tests chosen by id from the file, all passed
            rec = replace(
                rec,
                test_files=[replace(tf, selection="id") for tf in rec.test_files],
                api_tests=_api_tests("passed"),
            )
        out.append(_state(rec, one))
    return out


def _docs(which: str) -> tuple[DocsCheckRecord, DocsAddRecord | None]:
    versions = list(DOCS_CHECK["versions"])  # type: ignore[call-overload]
    if which == "missing":
        return DocsCheckRecord.from_json(DOCS_CHECK), None
    present = dict(
        versions[0], version="2.12.0", folder="pytorch_2-12-0", page="pytorch_2-12-0/torch.md"
    )
    check = DocsCheckRecord.from_json(dict(DOCS_CHECK, versions=[versions[0], present]))
    if which == "present":
        return check, None
    added = DocsAddRecord(
        api=API,
        docs_dir="docs/zh/api/native_api",
        changes=(
            AddedEntry("2.7.1", "pytorch_2-7-1", "pytorch_2-7-1/torch.md", "present", API),
            AddedEntry(
                "2.12.0", "pytorch_2-12-0", "pytorch_2-12-0/torch.md", "added", API, 412, 413
            ),
        ),
    )
    return check, added


def _official(which: str, emulated: bool) -> UpstreamRecord | None:
    if which == "none":
        return None
    rec = upstream_record(emulated="npu" if emulated else "")
    if which == "partial":
        return rec
    # not started: every target ended before any official test ran
    return replace(rec, targets=tuple(t for t in rec.targets if t.result in ("ERROR", "NOT_RUN")))


def outcome(
    fx: Fixture, state: str, envs: int, docs: str, with_range: bool, official: str
) -> list[RunRecords]:
    """One outcome: the records of one run, as ``verify`` keeps them."""
    targets = tuple(_evidence(r) for r in _targets(fx, state, envs))
    check, added = _docs(docs)
    result = "PASS" if all(t.record.result == "PASS" for t in targets) else "FAIL"
    run = RunRecords(
        run=RunInfo(
            uid=hashlib.md5(repr((state, envs, docs, with_range, official)).encode()).hexdigest(),
            id=1,
            kind="verify",
            status="complete",
            result=result,
            created=1780000000.0,
            finished=1780000009.0,
        ),
        targets=targets,
        task=fx.config.task_record(API, None, repo=True),
        resolve=ApiInfo.from_json(RESOLVE),
        coverage=ApiCoverage.from_json(COVERAGE),
        docs_check=check,
        docs_add=added,
        upstream=_official(official, state == "emulated"),
    )
    if with_range:
        change = evaluate_change(fx.repo, f"master..{fx.head}", fx.config, API, run.resolve)
        checklist = checklist_for_runs(change, [run], fx.config, API, run.resolve, None)
        run = replace(run, change=change, checklist=checklist)
    return [run]


def outcome_names() -> list[str]:
    """The matrix's outcomes by name, in order (nothing built)."""
    return [name for name, _ in _axes()]


def _axes() -> Iterator[tuple[str, tuple[str, int, str, bool, str]]]:
    for i, (state, envs, docs, with_range) in enumerate(
        itertools.product(STATES, ENVS, DOCS, RANGES)
    ):
        official = OFFICIAL[i % len(OFFICIAL)]
        name = f"{state}-{envs}env-docs_{docs}-{'range' if with_range else 'norange'}-official_{official}"
        yield name, (state, envs, docs, with_range, official)


def matrix(fx: Fixture, only: str = "") -> Iterator[tuple[str, list[RunRecords]]]:
    """Every state × environments × docs × range, the official tests cycling through their three forms
    (``only``: the outcomes of one state)."""
    for name, (state, envs, docs, with_range, official) in _axes():
        if not only or state == only:
            yield name, outcome(fx, state, envs, docs, with_range, official)
