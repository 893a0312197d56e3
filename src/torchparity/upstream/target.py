"""One target of the upstream stage: a source's test tree in one environment, file by file.

For each candidate file: the agent lists what its runner would load (the
instances of device-generic and parametrized tests included), the wanted tests'
instances for the device are selected and the disabled list is applied, then the
file runs with exactly the selected test names (and, with ``recheck``, once more
with exactly its disabled ones, without the list). Every test's outcome comes
from the runner's result API.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..exec import Job, JobResult, Runner
from ..phrases import phrase
from ..records.notes import Note
from ..records.target import TestOutcome
from ..records.upstream import Missing, UpstreamFile, UpstreamRun, UpstreamTarget, UpstreamTest
from ..store import sha256_bytes
from .disabled import DisabledList
from .find import MODULE, PYTEST, FileCandidates
from .select import Listing, select

#: the runner's outcomes and what they are for an official test
STATUS_OF = {
    "passed": "passed",
    "failed": "failed",
    "error": "failed",
    "xpass": "failed",
    "skipped": "skipped",
    "xfail": "skipped",
}


@dataclass
class TargetPlan:
    """What one target runs: the tree (files as at the ref), the environment, the disabled list."""

    label: str
    source: str  # backend | pytorch
    ref: str
    commit: str
    root: Path  # the unpacked test tree (stands for the repo root)
    files: list[tuple[FileCandidates, bytes]]  # each candidate with its bytes at the ref
    env: str
    python: str
    device: str
    torch_version: str
    platform: str
    hardware: str = ""
    emulated: str = ""
    disabled: DisabledList | None = None
    disabled_sha256: str = ""
    #: where the list is on disk (the tree's own copy)
    list_path: Path | None = None
    #: the variable the backend reads a list from (unset in every run)
    variable: str = ""
    recheck: bool = False
    budget: int = 200
    timeout: float | None = 900.0
    api: str = ""
    entries: dict[str, str] = field(default_factory=dict)  # path -> entry kind


def _key(test_id: str) -> tuple[str, str]:
    """(class, method) of a runner's id: ``__main__.TestX.test_y`` or ``path::TestX::test_y``."""
    parts = test_id.split("::") if "::" in test_id else test_id.split(".")
    return (parts[-2] if len(parts) > 1 else "", parts[-1])


#: worst first: a test reported more than once (pytest parametrizations of one node id) keeps the worst
_SEVERITY = ("error", "failed", "xpass", "passed", "xfail", "skipped")


def _same(a: str, b: str) -> bool:
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def outcome_for(selector: str, got: dict[tuple[str, str], TestOutcome]) -> TestOutcome | None:
    """The runner's outcome for a selector; a pytest node id that stands for several parametrized
    cases (``test_x[1]``, ``test_x[2]``) gets the worst of theirs."""
    cls, name = _key(selector)
    found = got.get((cls, name))
    if found is not None:
        return found
    # pytest names a node relative to its rootdir: test/test_x.py and test_x.py are the same file
    many = [
        o for (c, m), o in got.items() if (m == name or m.startswith(name + "[")) and _same(c, cls)
    ]
    if not many:
        return None
    return min(many, key=lambda o: _SEVERITY.index(o.outcome) if o.outcome in _SEVERITY else 0)


def _module_path(name: str, folder: str) -> str:
    """Where a module of the test tree would be, relative to the file's folder's tree."""
    return "/".join([p for p in folder.split("/") if p] + name.split(".")) + ".py"


def missing_of(raw: dict[str, Any], rel_file: str, root: Path) -> Missing:
    """What the file lacked, with whether the repo's test tree is what lacks it."""
    kind, name, detail = (
        str(raw.get("kind") or "error"),
        str(raw.get("name") or ""),
        str(raw.get("detail") or ""),
    )
    folder = rel_file.rsplit("/", 1)[0] if "/" in rel_file else ""
    if kind == "module" and name:
        top = name.split(".")[0]
        base = root / folder if folder else root
        in_tree = (base / top).is_dir() or (base / f"{top}.py").is_file()
        return Missing(
            kind, name, detail, in_repo=in_tree, path=_module_path(name, folder) if in_tree else ""
        )
    if kind == "file" and name:
        p = Path(name)
        try:
            rel = (
                p.resolve().relative_to(root.resolve()).as_posix()
                if p.is_absolute()
                else ((root / folder / p).resolve().relative_to(root.resolve()).as_posix())
            )
            return Missing(kind, rel, detail, in_repo=True, path=rel)
        except ValueError:
            return Missing(kind, name, detail)
    return Missing(kind, name, detail)


def _job(
    runner: Runner, op: str, args: dict[str, Any], out: Path, timeout: float | None, cwd: Path
) -> JobResult:
    if (
        args.get("entry") == MODULE
    ):  # python -m unittest MODULE.Class.test runs in the file's folder
        cwd = Path(str(args["path"])).parent
    return runner.run(Job(op, args, out, timeout, str(cwd)))


def _run_record(
    plan: TargetPlan,
    path: str,
    purpose: str,
    selectors: list[str],
    entry: str,
    res: JobResult,
    command_text: str,
) -> UpstreamRun:
    if entry == MODULE:  # python -m unittest MODULE.Class.test runs in the file's folder
        command_text = f"cd {shlex.quote(str((plan.root / path).parent))} && {command_text}"
    r = res.result.get("runner") if isinstance(res.result.get("runner"), dict) else {}
    assert isinstance(r, dict)
    how = res.how
    if how.startswith("a fresh interpreter"):  # the agent ran it, not the literal command
        how = (
            "a fresh interpreter running torchparity's agent for this step, which runs the selected tests "
            "the way COMMAND does (the file as __main__ with its argv, or pytest with the node ids)"
        )
    return UpstreamRun(
        file=path,
        purpose=purpose,
        command=command_text,
        how=how,
        status=res.status,
        exit_code=res.exit_code,
        output=res.output,
        selected=tuple(selectors),
        runner_kind=str(r.get("kind") or ""),
        runner_sessions=int(r.get("sessions") or 0),
        runner_finished=int(r.get("finished") or 0),
        tests_run=int(r.get("tests_run") or 0),
        duration=round(res.duration, 4),
    )


def _argv(plan: TargetPlan, path: str, selectors: list[str], entry: str) -> list[str]:
    return run_argv(str(plan.root / path), selectors, entry)


def run_argv(file: str, selectors: Sequence[str], entry: str) -> list[str]:
    """The literal command's arguments (after the interpreter) that run ``selectors`` of ``file``;
    a module entry runs in the file's folder (``python -m unittest MODULE.Class.test -v``)."""
    if entry == PYTEST:
        return ["-m", "pytest", *selectors, "-v", "-p", "no:cacheprovider"]
    if entry == MODULE:
        name = Path(file).stem
        return ["-m", "unittest", *(f"{name}.{s}" for s in selectors), "-v"]
    return [file, *selectors, "-v"]


def _outcomes(res: JobResult) -> dict[tuple[str, str], TestOutcome]:
    raw = res.result.get("tests")
    items = (
        [TestOutcome.from_json(x) for x in raw if isinstance(x, dict)]
        if isinstance(raw, list)
        else []
    )
    return {_key(t.id): t for t in items}


def _unreported(res: JobResult) -> Note:
    runner = res.result.get("runner")
    if isinstance(runner, dict) and not runner.get("sessions"):
        # the file stopped before its runner started (its main block failed): its own words say why
        return Note.of(
            "upstream_no_runner", detail=_message(res.output) or f"exit code {res.exit_code}"
        )
    if res.exit_code is not None:
        return Note.of("upstream_unreported", status=res.status, exit_code=res.exit_code)
    # a process killed by a signal has no exit code: the signal says how it ended
    if res.signal_name:
        return Note.of("upstream_unreported_signal", status=res.status, signal=res.signal_name)
    return Note.of("upstream_unreported_no_exit", status=res.status)


def _message(detail: str) -> str:
    lines = [ln.strip() for ln in detail.strip().splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Failure)\b", ln):
            return ln[:300]
    return lines[-1][:300] if lines else ""


def run_file(
    plan: TargetPlan,
    runner: Runner,
    cand: FileCandidates,
    data: bytes,
    entry: str,
    logs: Path,
    budget: int,
    command: Any,
) -> tuple[UpstreamFile, list[UpstreamTest], list[UpstreamRun]]:
    """List, select, run (and recheck) one file; ``command(argv, set_vars, unset)`` renders the literal."""
    path = cand.path
    n = len(list(logs.glob("*.log")))
    listed = _job(
        runner,
        "upstream_list",
        {"path": str(plan.root / path), "api": plan.api},
        logs / f"{n:03d}-list.log",
        plan.timeout,
        plan.root,
    )
    info = UpstreamFile(path, sha256_bytes(data), entry, listing_output=listed.output)
    runs: list[UpstreamRun] = []
    raw_missing = listed.result.get("missing")
    if not listed.result or raw_missing:
        missing = missing_of(
            raw_missing
            if isinstance(raw_missing, dict)
            else {
                "kind": "error",
                "name": listed.status,
                "detail": f"listing the file's tests ended {listed.status}",
            },
            path,
            plan.root,
        )
        info = replace(info, missing=missing)
        # the file's own command, as a reviewer would type it: it stops where the listing stopped
        selectors = [
            f"{w.klass}.{w.name}"
            if entry != PYTEST
            else "::".join(x for x in (path, w.klass, w.name) if x)
            for w in cand.wanted
        ]
        if selectors:
            res = _job(
                runner,
                "upstream_run",
                {
                    "path": str(plan.root / path),
                    "selectors": selectors,
                    "entry": entry,
                    "environ": _environ(plan),
                    "unset": _unset(plan),
                },
                logs / f"{n:03d}-run.log",
                plan.timeout,
                plan.root,
            )
            runs.append(
                _run_record(
                    plan,
                    path,
                    "run",
                    selectors,
                    entry,
                    res,
                    command(_argv(plan, path, selectors, entry), _environ(plan), _unset(plan)),
                )
            )
        why = missing_note(missing)
        return (
            info,
            [
                UpstreamTest(
                    test=w.test,
                    file=path,
                    id="",
                    selector=s,
                    status="not_started",
                    why=why,
                    detail=phrase(why),
                )
                for w, s in zip(cand.wanted, selectors, strict=True)
            ],
            runs,
        )
    listing = Listing.from_result(listed.result)
    sel = select(listing, cand, path, entry, plan.device, plan.disabled, plan.platform, budget)
    info = replace(
        info, tests_for_device=sel.tests_for_device, disabled_for_device=sel.disabled_for_device
    )
    got: dict[tuple[str, str], TestOutcome] = {}
    res_main: JobResult | None = None
    if sel.run:
        res_main = _job(
            runner,
            "upstream_run",
            {
                "path": str(plan.root / path),
                "selectors": sel.run,
                "entry": entry,
                "environ": _environ(plan),
                "unset": _unset(plan),
            },
            logs / f"{n:03d}-run.log",
            plan.timeout,
            plan.root,
        )
        runs.append(
            _run_record(
                plan,
                path,
                "run",
                sel.run,
                entry,
                res_main,
                command(_argv(plan, path, sel.run, entry), _environ(plan), _unset(plan)),
            )
        )
        got = _outcomes(res_main)
    rechecked: dict[tuple[str, str], TestOutcome] = {}
    res_re: JobResult | None = None
    if plan.recheck and sel.disabled:
        unset = _unset(plan)
        res_re = _job(
            runner,
            "upstream_run",
            {
                "path": str(plan.root / path),
                "selectors": sel.disabled,
                "entry": entry,
                "environ": {},
                "unset": unset,
            },
            logs / f"{n:03d}-recheck.log",
            plan.timeout,
            plan.root,
        )
        runs.append(
            _run_record(
                plan,
                path,
                "recheck",
                sel.disabled,
                entry,
                res_re,
                command(_argv(plan, path, sel.disabled, entry), {}, unset),
            )
        )
        rechecked = _outcomes(res_re)
    tests: list[UpstreamTest] = []
    for t in sel.tests:
        if t.status == "run":
            assert res_main is not None
            o = outcome_for(t.selector, got)
            if o is None and res_main.status in ("CRASH", "TIMEOUT") and not got:
                # the run died (a signal, its timeout) before any answer: its tests cannot count as
                # never started, for some ran; nor as passed
                why = _unreported(res_main)
                t = replace(t, status="failed", why=why, detail=phrase(why))
            elif o is None:
                why = _unreported(res_main)
                t = replace(t, status="not_started", why=why, detail=phrase(why))
            else:
                status = STATUS_OF.get(o.outcome, "failed")
                detail = o.detail if status == "skipped" else _message(o.detail)
                if o.outcome == "xfail":
                    detail = "an expected failure: the test marks itself as failing here"
                t = replace(t, status=status, outcome=o.outcome, detail=detail)
        elif t.status == "disabled" and res_re is not None:
            o = outcome_for(t.selector, rechecked)
            if o is None:
                t = replace(
                    t, rechecked="not_started", rechecked_detail=phrase(_unreported(res_re))
                )
            else:
                t = replace(
                    t,
                    rechecked=o.outcome,
                    rechecked_detail=_message(o.detail) if o.outcome != "skipped" else o.detail,
                )
        tests.append(t)
    return info, tests, runs


def _environ(plan: TargetPlan) -> dict[str, str]:
    """Variables the runs set: none. The list is applied by the selection, with the backend's rule;
    pointing the backend's variable at it would let PyTorch's own ``check_if_enable`` apply it again
    with PyTorch's rule wherever the backend's replacement of it is not loaded (another platform rule)."""
    return {}


def _unset(plan: TargetPlan) -> list[str]:
    """The backend's variable is unset in every run: a shell that exports it changes nothing."""
    return [plan.variable] if plan.variable else []


def missing_note(m: Missing) -> Note:
    """Why a file could not start, as a note the texts word per language."""
    if m.kind == "module" and m.in_repo and m.path:
        return Note.of("upstream_missing_module_repo", path=m.path, module=m.name)
    if m.kind == "module":
        return Note.of("upstream_missing_module_env", module=m.name)
    if m.kind == "name":
        return Note.of("upstream_missing_name", module=m.name, detail=m.detail)
    if m.kind == "file":
        return Note.of("upstream_missing_file", path=m.name)
    return Note.of("upstream_file_error", detail=m.detail or m.name)


def result_of(target: UpstreamTarget) -> str:
    """PASS: a test passed, none failed and every test that applies here ran; FAIL: one failed, or
    (rechecking on a real device) a list entry is stale, strict-xfail style; PARTIAL: tests passed and
    none failed, but tests that apply here did not start (``missed``): a few tests that ran are no pass
    of those that did not; NOT_RUN: no selected test ran."""
    statuses = {t.status for t in target.tests}
    # an emulated device runs CPU kernels: a disabled test passing there says nothing of the hardware
    if "failed" in statuses or (target.stale and not target.emulated):
        return "FAIL"
    if "passed" in statuses:
        return "PARTIAL" if target.missed else "PASS"
    return "NOT_RUN"


def run_target(plan: TargetPlan, runner: Runner, logs: Path, command: Any) -> UpstreamTarget:
    files: list[UpstreamFile] = []
    tests: list[UpstreamTest] = []
    runs: list[UpstreamRun] = []
    budget = plan.budget
    for cand, data in plan.files:
        entry = plan.entries.get(cand.path, "unittest")
        f, t, r = run_file(plan, runner, cand, data, entry, logs, budget, command)
        budget -= sum(1 for x in t if x.status in ("passed", "failed", "skipped"))
        budget = max(budget, 0)
        files.append(f)
        tests.extend(t)
        runs.extend(r)
    target = UpstreamTarget(
        label=plan.label,
        source=plan.source,
        ref=plan.ref,
        commit=plan.commit,
        env=plan.env,
        python=plan.python,
        device=plan.device,
        torch_version=plan.torch_version,
        platform=plan.platform,
        hardware=plan.hardware,
        emulated=plan.emulated,
        disabled_list=plan.disabled.path if plan.disabled is not None else "",
        disabled_list_sha256=plan.disabled_sha256,
        disabled_entries=len(plan.disabled.entries) if plan.disabled is not None else 0,
        disabled_unreadable=plan.disabled.malformed if plan.disabled is not None else 0,
        disabled_variable=plan.variable if plan.disabled is not None else "",
        files=tuple(files),
        tests=tuple(tests),
        runs=tuple(runs),
    )
    return replace(target, result=result_of(target))


__all__ = [
    "STATUS_OF",
    "TargetPlan",
    "missing_note",
    "missing_of",
    "result_of",
    "run_argv",
    "run_target",
]
