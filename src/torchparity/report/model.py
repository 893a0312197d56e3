"""The report model: one JSON document per task; every text report is a template over it.

Built from typed records only (``build.build_report``): frozen dataclasses for
the targets, tests and isolation probes; the other stages' records carried as
their JSON, with every key a template reads present (``None``, and a hint in
``missing``, where a stage did not run).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..phrases import category_words, phrase
from ..records.run import TargetEvidence
from ..records.target import Step, TestOutcome, hardware_matches
from .commands import shown_command

REPORT_SCHEMA = "torchparity.report/1"


@dataclass(frozen=True)
class TestResult:
    __test__ = False  # not a pytest class

    id: str  # as the runner printed it: __main__.TestX.test_y
    file: str  # the test file (repo-relative)
    classname: str  # test.npu.test_x.TestX (the file's module path, not __main__)
    name: str  # test_y
    outcome: str  # passed | failed | error | skipped | xfail | xpass
    detail: str = ""  # failure text, when printed
    message: str = ""  # the exception line of the failure text (one line)


@dataclass(frozen=True)
class IsolationResult:
    state: str
    title: str  # GRAD MODE
    test_file: str
    status: str  # the agent step's status (OK, FAIL, TIMEOUT, ...)
    passed: bool
    skipped: str  # why the probe could not run, "" when it ran
    tests: tuple[str, ...]  # the tests the probe selected
    runs: tuple[dict[str, Any], ...]  # {initial, before, after, tests_run, successful}
    original: Any = None
    final: Any = None
    command: str = ""


@dataclass(frozen=True)
class TargetReport:
    """One target (ref x environment) of one run, with its facts, tests and raw log."""

    run_uid: str
    label: str
    ref: str
    commit: str
    commit_title: str | None
    env: str
    hardware: str  # "Atlas A2" from the config's [envs.X] hardware; "" when not configured
    mode: str
    result: str
    python: str
    python_version: str | None
    platform: str | None
    torch_version: str | None
    backend_module: str | None
    backend_version: str | None
    device_type: str
    device_available: Any
    device_count: Any
    device_name: str | None
    source_branch: str
    test_files: tuple[dict[str, Any], ...]
    #: the commands that ran the files, as a reader runs them from the repo root (``shown_command``;
    #: the log's COMMAND= lines hold them as they ran, in the run's checkout)
    commands: tuple[str, ...]
    exit_codes: tuple[Any, ...]
    ran: int | None  # tests the runner started, from its result API (None: no runner reported)
    tests: tuple[TestResult, ...]
    counts: dict[str, int]
    isolation: tuple[IsolationResult, ...]
    isolation_passed: bool | None  # None: no isolation probe ran (none asked for, or all skipped)
    leaks: tuple[dict[str, Any], ...]
    notes: tuple[dict[str, str], ...]  # {code, zh, en}: each note worded in both languages
    log_sha256: str
    record_sha256: str
    log: str
    facts: dict[str, Any] = field(default_factory=dict)
    collector_exit_code: int | None = None
    worktree_remove_exit_code: int | None = None
    duration: float = 0.0
    #: the state-leak check: PASS | LEAKS | NOT_RUN (no test method ran under it) | PARTIAL
    leak_check: str = ""
    leak_check_reason: str = ""  # which files ran no test, when NOT_RUN or PARTIAL
    leak_tests_watched: int = 0
    #: the device was emulated (e.g. an NPU emulated on CPU): evidence of device paths, not of hardware
    emulated: bool = False
    #: the configured hardware is what the probe saw: a real device, not the CPU nor an emulation
    #: (None when no hardware is configured); a text names the hardware only when this holds
    hardware_matches: bool | None = None
    #: the dispatch traces of the test files (what the tests dispatched, on which devices)
    traces: tuple[dict[str, Any], ...] = ()
    #: the API's tests ({test, file, id, status, detail}) and their counts (passed, failed, skipped,
    #: disabled, not_started, ran, total): the verdict is about these alone
    api_tests: tuple[dict[str, str], ...] = ()
    api_counts: dict[str, int] = field(default_factory=dict)
    #: how the files ran: "id" (only the API's tests, by id), "whole", "id+whole", "" (not recorded)
    selection: str = ""
    #: failures in the same files outside the API's tests: listed, never the verdict
    unrelated: tuple[str, ...] = ()
    #: the torch releases the ref targets, and the check of the environment's torch against them
    torch_wanted: tuple[str, ...] = ()
    version_check: str = ""
    #: the test files that ran here (a run step started for them): a listed file whose tests were all
    #: disabled or skipped, or one left when the probe failed, did not
    ran_files: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportModel:
    """Everything a report says, as data; ``to_json()`` is the ``--kind json`` output."""

    api: str | None
    canonical: str | None
    result: str  # PASS | FAIL | ERROR | INCOMPLETE over all targets
    runs: tuple[dict[str, Any], ...]
    targets: tuple[TargetReport, ...]
    source: dict[str, Any]
    branches: dict[str, Any]
    change: dict[str, Any]
    resolve: dict[str, Any] | None
    classification: dict[str, Any] | None
    coverage: dict[str, Any] | None
    docs: dict[str, Any]
    upstream: dict[str, Any] | None
    interface: dict[str, Any]
    upstream_patch: dict[str, Any]
    checklist: dict[str, Any] | None
    conclusion: dict[str, Any]
    missing: dict[str, str]
    scaffold: dict[str, Any] | None = None
    #: why the official tests could not run, as the user states it (--upstream-note)
    upstream_note: str | None = None
    #: the "PyTorch 官方用例" part: the upstream stage's tests, each with its result per target
    #: (``report.official``); None when the stage did not run
    official: dict[str, Any] | None = None
    #: the test files the targets ran ({path}, repo-relative, in order; none without a repo): what was
    #: verified, which is not what the PR changes (``change``)
    tested_files: tuple[dict[str, Any], ...] = ()
    tool: str = ""
    schema: str = REPORT_SCHEMA

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# -- targets ------------------------------------------------------------------------------------
_COUNT_KEYS = ("passed", "failed", "error", "skipped", "xfail", "xpass")


_EXC_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Failure|Interrupt|Exit)\b.*")


def failure_message(detail: str) -> str:
    """The exception line of a traceback (the last one), else its last non-empty line; 200 chars at most."""
    lines = [ln.strip() for ln in detail.strip().splitlines() if ln.strip()]
    for ln in reversed(lines):
        if _EXC_LINE.match(ln):
            return ln[:200]
    return lines[-1][:200] if lines else ""


def _module_path(test_file: str) -> str:
    """test/npu/test_x.py -> test.npu.test_x (the classname CI tools group by).

    An absolute path (files run from disk, no repo) gives just the file's own name."""
    p = test_file[:-3] if test_file.endswith(".py") else test_file
    if p.startswith("/"):
        p = p.rsplit("/", 1)[-1]
    return re.sub(r"[/\\]+", ".", p).strip(".") or "tests"


@dataclass(frozen=True)
class TestId:
    """A test id in its parts: a node id ``path::Class::test`` (pytest, coverage) or a dotted
    unittest id ``module.Class.test``."""

    __test__ = False  # not a pytest class

    path: str  # the file of a node id; "" for a dotted id
    module: str  # the module of a dotted id (__main__); "" for a node id
    klass: str  # Class (Outer.Inner in a node id); "" for a test outside a class
    name: str  # test_y; "" for a node id naming only a file


def parse_test_id(tid: str) -> TestId:
    """The one place test ids are split (runner output, coverage hits)."""
    if "::" in tid or tid.endswith(".py"):
        parts = tid.split("::")
        return TestId(parts[0], "", ".".join(parts[1:-1]), parts[-1] if len(parts) > 1 else "")
    parts = tid.split(".")
    return TestId("", ".".join(parts[:-2]), parts[-2] if len(parts) >= 2 else "", parts[-1])


def _test_result(raw: TestOutcome, test_file: str) -> TestResult:
    tid = raw.id
    parsed = parse_test_id(tid)
    if parsed.path:
        module = _module_path(parsed.path)
    else:
        module = _module_path(test_file) if test_file else parsed.module or "__main__"
    classname = f"{module}.{parsed.klass}" if parsed.klass else module
    return TestResult(
        tid, test_file, classname, parsed.name, raw.outcome, raw.detail, failure_message(raw.detail)
    )


def _isolation(step: Step) -> IsolationResult:
    r = step.result or {}
    sel = r.get("selection") or {}
    return IsolationResult(
        state=str(r.get("state") or step.name.split(":", 1)[-1]),
        title=str(r.get("title") or step.name),
        test_file=step.test_file,
        status=step.status,
        passed=step.ok and bool(r.get("passed")),
        skipped=str(r.get("skipped") or ""),
        tests=tuple(str(t) for t in sel.get("tests", []) or []),
        runs=tuple(dict(x) for x in r.get("runs", []) or []),
        original=r.get("original"),
        final=r.get("final"),
        command=step.command,
    )


def _backend(facts: dict[str, Any]) -> str | None:
    """The backend module the probe saw: a ``<name>_file`` fact other than torch's."""
    for key in facts:
        if key.endswith("_file") and key != "torch_file" and not key.startswith("environ_"):
            return key[: -len("_file")]
    return None


def _trace(step: Step) -> dict[str, Any]:
    t = step.result.get("trace") or {}
    return {
        "test_file": step.test_file,
        "status": str(t.get("status") or step.status),
        "total_ops": int(t.get("total_ops") or 0),
        "device_tensors_created": int(t.get("device_tensors_created") or 0),
        "ops": [
            {
                "op": o.get("op", ""),
                "devices": list(o.get("devices") or []),
                "count": o.get("count"),
            }
            for o in t.get("ops", []) or []
        ],
        "devices": sorted({d for o in t.get("ops", []) or [] for d in o.get("devices") or []}),
    }


def target_report(ev: TargetEvidence, *, run_uid: str) -> TargetReport:
    rec = ev.record
    facts = rec.probe_facts
    emulated = bool(rec.emulated)
    backend = _backend(facts)
    dev = str(facts.get("device_type") or rec.device)
    tests: list[TestResult] = []
    ran_total: int | None = None
    for step in rec.full:
        tests.extend(_test_result(t, step.test_file) for t in step.tests)
        if step.runner is not None:
            ran_total = (ran_total or 0) + step.runner.tests_run
    counts = {k: sum(1 for t in tests if t.outcome == k) for k in _COUNT_KEYS}
    counts["total"] = len(tests)
    isolation = tuple(_isolation(s) for s in rec.isolation)
    probed = [i for i in isolation if not i.skipped]  # a skipped probe ran nothing: not a pass
    leak_check, leak_reason, leak_watched = rec.leak_verdict()
    device_name = facts.get(f"{dev}_device_name")
    return TargetReport(
        run_uid=run_uid,
        label=rec.label,
        ref=rec.ref,
        commit=rec.commit,
        commit_title=rec.commit_title,
        env=rec.env,
        hardware=rec.hardware,
        mode=rec.mode,
        result=rec.result,
        python=rec.python,
        python_version=_str_or_none(facts.get("python_version")),
        platform=_str_or_none(facts.get("platform")),
        backend_module=backend,
        backend_version=_str_or_none(facts.get(f"{backend}_version")) if backend else None,
        device_type=dev,
        device_available=facts.get(f"{dev}_available"),
        device_count=facts.get(f"{dev}_device_count"),
        device_name=_str_or_none(device_name),
        source_branch=rec.source_branch,
        test_files=tuple(asdict(t) for t in rec.test_files),
        commands=tuple(
            shown_command(s.command, [tf.path for tf in rec.test_files], rec.emulated)
            for s in rec.full
        ),
        exit_codes=tuple(s.exit_code for s in rec.full),
        ran=ran_total,
        tests=tuple(tests),
        counts=counts,
        isolation=isolation,
        isolation_passed=all(i.passed for i in probed) if probed else None,
        leaks=tuple(dict(x) for x in rec.leaks),
        notes=tuple(
            {
                "code": n.code,
                "zh": phrase(n, "zh", markdown=True),
                "en": phrase(n, "en", markdown=True),
            }
            for n in rec.notes
        ),
        log_sha256=ev.log_sha256,
        record_sha256=ev.record_sha256,
        log=ev.log,
        facts=facts,
        collector_exit_code=rec.collector_exit_code,
        worktree_remove_exit_code=rec.worktree_remove_exit_code,
        duration=round(max(0.0, rec.finished - rec.started), 3) if rec.finished else 0.0,
        leak_check=leak_check,
        leak_check_reason=leak_reason,
        leak_tests_watched=leak_watched,
        emulated=emulated,
        traces=tuple(_trace(s) for s in rec.trace),
        hardware_matches=hardware_matches(rec),
        api_tests=tuple(asdict(t) for t in rec.api_tests),
        api_counts=rec.api_counts(),
        selection="+".join(dict.fromkeys(tf.selection for tf in rec.test_files if tf.selection)),
        unrelated=tuple(rec.unrelated),
        torch_wanted=tuple(rec.torch_wanted),
        version_check=rec.version_check,
        ran_files=tuple(dict.fromkeys(s.test_file for s in rec.full if s.test_file)),
        torch_version=_str_or_none(facts.get("torch_version")) or (rec.torch_version or None),
    )


def _str_or_none(v: Any) -> str | None:
    return None if v is None else str(v)


def overall_result(results: list[str]) -> str:
    """The collector's rule: INCOMPLETE, then ERROR, then FAIL, then MISMATCH (a ref no environment fits),
    then NONE_RAN (none of the API's tests ran somewhere), else PASS (no target: INCOMPLETE)."""
    if not results or "INCOMPLETE" in results:
        return "INCOMPLETE"
    for worst in ("ERROR", "FAIL", "MISMATCH", "NONE_RAN"):
        if worst in results:
            return worst
    if any(r != "PASS" for r in results):
        return "FAIL"
    return "PASS"


# -- records from other parts, normalised ----------------------------------------------------
def with_defaults(doc: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with every key of ``defaults`` present (unknown keys kept)."""
    out = dict(defaults)
    if isinstance(doc, dict):
        out.update({k: v for k, v in doc.items() if v is not None or k not in defaults})
    return out


_TEST_REF = {"test": "", "path": "", "line": None, "end_line": None, "how": ""}


def _tests(items: Any) -> list[dict[str, Any]]:
    out = []
    for t in items or []:
        out.append(
            with_defaults(t, _TEST_REF) if isinstance(t, dict) else dict(_TEST_REF, test=str(t))
        )
    return out


def normalise_coverage(doc: dict[str, Any]) -> dict[str, Any]:
    cov = with_defaults(
        doc,
        {
            "api": None,
            "canonical": None,
            "refs": [],
            "justification_zh": None,
            "justification_en": None,
        },
    )
    refs = []
    for ref in cov["refs"] or []:
        r = with_defaults(
            ref,
            {
                "ref": "",
                "commit": "",
                "upstream": False,
                "direct": [],
                "related": [],
                "weak": [],
                "grep": None,
                "skipped_files": [],
                #: direct tests in files the change adds: the PR's own, not existing coverage
                "direct_added": [],
            },
        )
        r["direct"], r["related"], r["weak"], r["direct_added"] = (
            _tests(r["direct"]),
            _tests(r["related"]),
            _tests(r["weak"]),
            _tests(r["direct_added"]),
        )
        r["grep"] = (
            with_defaults(
                r["grep"], {"command": None, "pattern": None, "count": None, "matches": []}
            )
            if r["grep"] is not None
            else None
        )
        refs.append(r)
    cov["refs"] = refs
    return cov


def normalise_resolve(doc: dict[str, Any]) -> dict[str, Any]:
    res = with_defaults(
        doc,
        {
            "query": None,
            "canonical": None,
            "aliases": [],
            "kind": None,
            "signature": None,
            "module": None,
            "source": None,
            "public": None,
            "public_reason": None,
            "docs_url": None,
            "owner_class": None,
            "classification": None,
            "trace": None,
            "torch_version": None,
        },
    )
    if res["classification"] is not None:
        res["classification"] = with_defaults(
            res["classification"], {"category": None, "conclusion_zh": None, "conclusion_en": None}
        )
        # the category as every text words it, from the one table (``phrases.CATEGORY_WORDS``)
        category = res["classification"]["category"]
        for lang in ("en", "zh"):
            res["classification"][f"category_{lang}"] = (
                category_words(category, lang) if category else None
            )
    if res["trace"] is not None:
        tr = with_defaults(
            res["trace"],
            {
                "target": None,
                "status": None,
                "ops": [],
                "total_ops": None,
                "device_tensors_created": None,
                "devices": [],
                "tests_run": None,
                "source": None,
            },
        )
        tr["ops"] = [
            with_defaults(o, {"op": "", "devices": [], "count": None}) for o in tr["ops"] or []
        ]
        res["trace"] = tr
    return res


def normalise_docs_check(doc: dict[str, Any], order: Sequence[str] = ()) -> dict[str, Any]:
    """``order``: product codes in the configured order (stored JSON has its keys sorted)."""
    rank = {code: i for i, code in enumerate(order)}
    dc = with_defaults(
        doc,
        {
            "api": None,
            "docs_dir": None,
            "versions": [],
            "missing_versions": [],
            "repo_path": "",
            "branch": "",
            "commit": "",
            "modified": None,
        },
    )
    versions = []
    for v in dc["versions"] or []:
        n = with_defaults(
            v,
            {
                "version": "",
                "folder": None,
                "present": None,
                "page": None,
                "line": None,
                "kind": None,
                "products": {},
                "restrictions": None,
                "link": None,
                "link_ok": None,
                "link_problem": None,
            },
        )
        n["products"] = {
            code: with_defaults(p, {"name": code, "status": None, "supported": None})
            for code, p in sorted(
                (n["products"] or {}).items(), key=lambda kv: rank.get(kv[0], len(rank))
            )
        }
        versions.append(n)
    dc["versions"] = versions
    if not dc["missing_versions"]:
        dc["missing_versions"] = [v["version"] for v in versions if v["present"] is False]
    return dc


def normalise_docs_add(doc: dict[str, Any]) -> dict[str, Any]:
    """The docs-add record as it is: the entries written (``changes``) and the docs PR when stated."""
    return dict(doc)
