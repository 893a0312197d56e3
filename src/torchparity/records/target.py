"""The collect stage's record of one target (ref x environment): every fact the log states, structured.

Data first: the evidence log (``collect/evidence.py``) is rendered from this
record, reports read it, a bundle carries it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from .base import Record
from .notes import Note

RECORD_SCHEMA = "torchparity.target/2"

#: the state-leak check's verdicts: every file's tests were watched and none leaked (PASS), a test
#: left a state changed (LEAKS), no test method ran under the watch (NOT_RUN), or some files' did
#: and some files' did not (PARTIAL)
LEAK_PASS, LEAK_LEAKS, LEAK_NOT_RUN, LEAK_PARTIAL = "PASS", "LEAKS", "NOT_RUN", "PARTIAL"


#: a target's result: the API's tests passed (PASS), one of them failed (FAIL), none of them ran
#: (NONE_RAN: all skipped, disabled or never started), no environment has the torch release the ref
#: targets (MISMATCH: nothing ran), the environment broke (ERROR), or the run was cut short (INCOMPLETE)
RESULTS = ("PASS", "FAIL", "NONE_RAN", "MISMATCH", "ERROR", "INCOMPLETE")

#: how a test file ran: only the API's tests, by id (with the backend's disabled list applied), or
#: whole (the task's own file: its other tests are context, never the API's verdict)
BY_ID, WHOLE = "id", "whole"


@dataclass
class TestFile:
    path: str  # as given (relative to the repo root when a repo is used)
    abs_path: str  # where it ran
    sha256: str  # of the bytes that ran
    blob_sha256: str | None = None  # of the git blob at the ref (None without a repo)
    added: bool = False  # written into the worktree for this run (not committed at the ref)
    #: BY_ID | WHOLE ("" in records made before the field: whole)
    selection: str = ""
    #: how its tests are run by id: unittest (python FILE IDS), pytest (node ids), module (python -m
    #: unittest from its folder: its main block runs no test); "" for a whole run
    entry: str = ""
    #: the API's tests in it, as the source writes them (path::Class::test); () : every test of it
    templates: tuple[str, ...] = ()


@dataclass(frozen=True)
class ApiTest:
    """One of the API's tests at a target: the test as written, the instance run, what became of it."""

    __test__ = False  # not a pytest class

    test: str  # path::Class::test_name as the source writes it (or the runner's id)
    file: str
    id: str  # the runner's id of the instance ("" when no instance was found or listed)
    status: str  # passed | failed | skipped | disabled | not_started
    detail: str = (
        ""  # a failure's last line, a skip's or a list entry's reason, why it never started
    )

    @staticmethod
    def from_json(d: dict[str, Any]) -> ApiTest:
        return ApiTest(
            str(d.get("test", "")),
            str(d.get("file", "")),
            str(d.get("id", "")),
            str(d.get("status", "")),
            str(d.get("detail") or ""),
        )


API_STATUSES = ("passed", "failed", "skipped", "disabled", "not_started")


@dataclass(frozen=True)
class TestOutcome:
    """One test's outcome as its runner reported it (``unittest.TestResult``, a pytest report)."""

    __test__ = False  # not a pytest class

    id: str  # __main__.Class.test_x (unittest) or path::test_x (pytest)
    outcome: str  # passed | failed | error | skipped | xfail | xpass
    detail: str = ""  # the failure's traceback, or a skip's reason

    @staticmethod
    def from_json(d: dict[str, Any]) -> TestOutcome:
        return TestOutcome(
            str(d.get("id", "")), str(d.get("outcome", "")), str(d.get("detail") or "")
        )


#: outcomes that fail a run
BAD_OUTCOMES = ("failed", "error", "xpass")


@dataclass(frozen=True)
class RunnerReport:
    """What the test runner itself said about a file's run, through its result API."""

    kind: str  # unittest | pytest | unittest+pytest | "" (no runner started)
    sessions: int  # runner sessions started (unittest's startTestRun, pytest's sessionstart)
    finished: int  # of those, how many reported their end (stopTestRun, sessionfinish)
    tests_run: int  # tests the runner started
    exit_status: int | None = None  # pytest's session exit status

    @property
    def completed(self) -> bool:
        """A runner started and every runner that started reported its end."""
        return self.sessions > 0 and self.finished >= self.sessions

    @staticmethod
    def from_json(d: dict[str, Any]) -> RunnerReport:
        status = d.get("exit_status")
        return RunnerReport(
            str(d.get("kind") or ""),
            int(d.get("sessions") or 0),
            int(d.get("finished") or 0),
            int(d.get("tests_run") or 0),
            None if status is None else int(status),
        )


@dataclass
class Step:
    """One agent job: the probe, a full test file run, a leak check or an isolation probe."""

    name: str
    status: str  # OK | FAIL | TIMEOUT | CRASH | WORKER_DIED | ERROR | SKIPPED
    exit_code: int | None
    signal: str = ""
    command: str = ""
    how: str = ""
    duration: float = 0.0
    output: str = ""
    test_file: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    #: per-test outcomes from the runner's result API (a full run's; [] for other steps, or when
    #: the run never answered)
    tests: list[TestOutcome] = field(default_factory=list)
    #: the runner's own account of the run (None: no structured answer came back, or a record made
    #: before the field, whose tests were read from the output text)
    runner: RunnerReport | None = None
    #: where ``tests`` and ``runner`` come from: "" this step's own run; "leak_check" the agent's run
    #: of the same file in its own fresh interpreter (``--fresh``: the literal command is not watched)
    results_from: str = ""
    #: disagreements between the structured results, the output text and the exit code
    findings: list[str] = field(default_factory=list)
    #: a full run's verdict, from the structured results: PASS | FAIL ("" for other steps, and in
    #: records made before the field)
    verdict: str = ""
    #: why a full run is not PASS, each in a sentence
    verdict_reasons: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "OK"


@dataclass(frozen=True)
class TargetRecord(Record):
    """One target (ref x environment) as the collect stage ran it: its files, steps, tests and verdict.

    Frozen, like every record: a changed copy is ``replace(...)``. The collector builds it while the
    target runs (``collect/collector.py``'s ``_TargetDraft``).
    """

    SCHEMA: ClassVar[str] = RECORD_SCHEMA
    KIND: ClassVar[str] = "target"

    label: str
    ref: str
    commit: str
    env: str
    python: str
    mode: str  # warm | fresh
    device: str
    run_id: int | None = None
    schema: str = RECORD_SCHEMA
    source_branch: str = ""
    test_files: list[TestFile] = field(default_factory=list)
    probe: Step | None = None
    #: the listing of each file whose API tests run by id (what its runner loads, before selection)
    listing: list[Step] = field(default_factory=list)
    full: list[Step] = field(default_factory=list)
    leak_check: list[Step] = field(default_factory=list)
    leaks: list[dict[str, Any]] = field(default_factory=list)
    isolation: list[Step] = field(default_factory=list)
    trace: list[Step] = field(default_factory=list)
    #: the state-leak check over the full runs (``LEAK_*``; "" in records made before the field)
    leak_status: str = ""
    #: why the leak check is NOT_RUN or PARTIAL (which files ran no test under the watch), "" otherwise
    leak_reason: str = ""
    #: test methods watched (a state snapshot before and after each), over all files
    leak_tests_watched: int = 0
    result: str = "INCOMPLETE"  # one of RESULTS
    #: how the processes a test starts were found and killed (process group, /proc, subreaper)
    process_tracking: str = ""
    collector_exit_code: int | None = None
    #: exit code of removing the checkout (``git worktree remove``; 0/1 for a sparse one: the folder is
    #: gone / is not), None without a checkout
    worktree_remove_exit_code: int | None = None
    #: how the files at the ref were checked out (what was written, shared with whom); "" before the field
    checkout: str = ""
    notes: list[Note] = field(default_factory=list)
    started: float = 0.0
    finished: float = 0.0
    torchparity_version: str = ""
    #: the environment's hardware as configured (``[envs.a2] hardware = "Atlas A2"``), "" when not given
    hardware: str = ""
    #: the title of ``commit`` (None without a repo)
    commit_title: str | None = None
    #: the device type the run's backend only emulates ("npu": an NPU emulated on CPU), "" on hardware
    emulated: str = ""
    #: the API's tests and what became of each: the verdict is about these alone
    api_tests: list[ApiTest] = field(default_factory=list)
    #: why the API's verdict is FAIL beyond its failing tests (its run crashed before it answered, the
    #: answer could not be trusted, an isolation probe failed)
    api_reasons: list[str] = field(default_factory=list)
    #: failures in the same files outside the API's tests (a file that ran whole): listed, never the verdict
    unrelated: list[str] = field(default_factory=list)
    #: the torch releases the ref targets (its version file, or the config), [] when not known
    torch_wanted: list[str] = field(default_factory=list)
    #: the environment's torch release against the ref's: "" (not checked), match, mismatch (nothing
    #: ran), allowed (ran anyway: --allow-version-mismatch)
    version_check: str = ""
    #: the environment's torch version as probed before the run (what the version check compared)
    torch_version: str = ""
    #: the target's place in the run as asked (refs in the order given, then environments): texts
    #: list targets in this order, not in the order they finished
    order: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, doc: Any) -> TargetRecord:
        return record_from_json(doc)

    def leak_verdict(self) -> tuple[str, str, int]:
        """(status, reason, tests watched) of the state-leak check: the stored fields, or for a
        record made before them, worked out from its steps the same way the collector does."""
        if self.leak_status:
            return self.leak_status, self.leak_reason, self.leak_tests_watched
        return leak_verdict(self)

    def api_counts(self) -> dict[str, int]:
        """How many of the API's tests passed, failed, were skipped, disabled or never started; ``ran``:
        passed + failed; ``total``: all of them."""
        counts = {k: sum(1 for t in self.api_tests if t.status == k) for k in API_STATUSES}
        counts["ran"] = counts["passed"] + counts["failed"]
        counts["total"] = len(self.api_tests)
        return counts

    @property
    def probe_facts(self) -> dict[str, Any]:
        if self.probe is None:
            return {}
        return {k: v for k, v in self.probe.result.get("facts", [])}


def _watched_by_file(rec: TargetRecord) -> list[tuple[Step, Step]]:
    """(full run, step whose answer holds the leak check) per file: the full run itself in a warm
    worker, the agent's rerun of the file (``leak_check``) with fresh interpreters."""
    if rec.mode == "fresh" and rec.leak_check:
        by_file = {s.test_file: s for s in rec.leak_check}
        return [(f, by_file.get(f.test_file, f)) for f in rec.full]
    return [(f, f) for f in rec.full]


def leak_verdict(rec: TargetRecord) -> tuple[str, str, int]:
    """The leak check's (status, reason, tests watched) from the record's steps.

    A file counts as checked only when its run answered and watched at least one test method:
    a file that fails at import, exits before its tests, or dies, is not "no leak"."""
    watched = 0
    unchecked: list[str] = []
    for full, source in _watched_by_file(rec):
        seen = source.result.get("tests_seen")
        if isinstance(seen, int) and seen > 0:
            watched += seen
            continue
        name = full.test_file or "the test file"
        if seen is None:
            unchecked.append(
                f"{name}: the run ended {source.status} before the leak check answered"
            )
        else:
            code = "" if full.exit_code is None else f", exit code {full.exit_code}"
            unchecked.append(f"{name}: no test method ran ({full.status}{code})")
    if rec.leaks:
        return LEAK_LEAKS, "; ".join(unchecked), watched
    if not rec.full:
        return LEAK_NOT_RUN, "no test file ran", 0
    if not unchecked:
        return LEAK_PASS, "", watched
    return (LEAK_PARTIAL if watched else LEAK_NOT_RUN), "; ".join(unchecked), watched


def emulated_in(facts: Mapping[str, Any], device: str) -> str:
    """``device`` when the probe's facts name an emulated backend (``<module>_emulated``), else ""."""
    seen = any(
        k.endswith("_emulated") and not k.startswith("environ_") and v for k, v in facts.items()
    )
    return str(facts.get("device_type") or device) if seen else ""


def emulated_device(rec: TargetRecord) -> str:
    """The run's device when the probe saw an emulated backend (``<module>_emulated`` fact), else ""."""
    return emulated_in(rec.probe_facts, rec.device)


def hardware_matches(rec: TargetRecord) -> bool | None:
    """Whether the configured hardware is what the probe saw: a real device, not the CPU, not an
    emulation (None when the environment names no hardware). A text names the hardware, and a docs
    cell is decided, only when this holds."""
    if not rec.hardware:
        return None
    device = str(rec.probe_facts.get("device_type") or rec.device)
    return device != "cpu" and not (rec.emulated or emulated_device(rec))


def step_from_json(d: dict[str, Any]) -> Step:
    d = dict(d)
    d["tests"] = [
        t if isinstance(t, TestOutcome) else TestOutcome.from_json(t) for t in d.get("tests") or []
    ]
    runner = d.get("runner")
    d["runner"] = RunnerReport.from_json(runner) if isinstance(runner, dict) else runner
    return Step(**d)


def record_from_json(d: dict[str, Any]) -> TargetRecord:
    d = dict(d)
    d.pop("log_sha256", None)
    d["test_files"] = [
        TestFile(**{**t, "templates": tuple(t.get("templates") or ())})
        for t in d.get("test_files", [])
    ]
    d["api_tests"] = [
        t if isinstance(t, ApiTest) else ApiTest.from_json(t) for t in d.get("api_tests") or []
    ]
    d["probe"] = step_from_json(d["probe"]) if d.get("probe") else None
    for key in ("listing", "full", "leak_check", "isolation", "trace"):
        d[key] = [step_from_json(s) for s in d.get(key, [])]
    d["notes"] = [
        Note(str(n["code"]), dict(n.get("args") or {}))
        if isinstance(n, dict)
        else Note("text", {"text": str(n)})
        for n in d.get("notes", [])
    ]
    return TargetRecord(**d)
