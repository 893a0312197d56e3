"""The report model of a task: a pure function of runs' records.

``build_report`` reads nothing but the ``RunRecords`` it is given (and, from the
``report`` verb, PR fields and a change/checklist evaluated just before): no
git, no config, no argv, no other run. The same records give the same model,
on any machine, so a bundle imported elsewhere renders byte-identical texts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

from .. import __version__
from ..coverage.justify import justify
from ..errors import UsageError
from ..records.change import ChangeRecord
from ..records.checklist import FAIL, Checklist
from ..records.coverage import ApiCoverage
from ..records.run import RunRecords
from ..records.task import TaskRecord
from .model import (
    ReportModel,
    TargetReport,
    normalise_coverage,
    normalise_docs_add,
    normalise_docs_check,
    normalise_resolve,
    overall_result,
    parse_test_id,
    target_report,
)
from .official import official_tests

#: the merge-source checkboxes of the PR template: (id, Chinese label, English label)
SOURCE_TYPES: tuple[tuple[str, str, str], ...] = (
    ("requirement", "需求", "Requirement"),
    ("bug", "问题单", "Bug report"),
    ("issue", "issue/工单", "Issue / work order"),
    ("refactor", "重构优化", "Refactoring"),
    ("docs", "资料更新", "Documentation update"),
)

#: what to run (or pass) when a part of the report was not collected; language-neutral commands
HINTS = {
    "api": "--api API",
    "resolve": "torchparity resolve API",
    "coverage": "torchparity coverage API --repo R",
    "docs": "torchparity docs check API",
    "checklist": "--repo R --range BASE..HEAD | torchparity checklist --repo R --range BASE..HEAD --file F",
    "repo": "--repo R --range BASE..HEAD",
    "task_issue": "--task-issue URL | [report] task_issue",
    "result_issue": "--result-issue URL | [report] result_issue",
    "source_type": "--source-type "
    + "/".join(t[0] for t in SOURCE_TYPES)
    + " | [report] source_type",
    "targets": "torchparity run ...",
}


def check_source_types(ids: Sequence[str]) -> None:
    """Refuse a merge source type the template has no checkbox for (bad input, exit 2)."""
    known = [t[0] for t in SOURCE_TYPES]
    for i in ids:
        if i not in known:
            raise UsageError(
                f"unknown source type {i!r} (--source-type); use one of {', '.join(known)}"
            )


def merge_tasks(stored: TaskRecord | None, given: TaskRecord | None) -> TaskRecord:
    """The run's task with the fields given now (the ``report`` verb's flags) on top."""
    if stored is None:
        return given or TaskRecord(api=None)
    if given is None:
        return stored
    changes = {
        f.name: getattr(given, f.name)
        for f in fields(TaskRecord)
        if getattr(given, f.name) not in (None, "", ()) and f.name in GIVEN_FIELDS
    }
    return replace(stored, **changes)


#: the task fields a reader may state at report time (the rest are the run's own facts)
GIVEN_FIELDS = frozenset(
    {
        "api",
        "title",
        "source_types",
        "task_issue",
        "result_issue",
        "task_title",
        "result_title",
        "source_branch",
        "target_branch",
        "interface_change",
        "upstream_patch",
        "upstream_note",
        "docs_pr",
    }
)


def _source(task: TaskRecord, missing: dict[str, str], docs_added: bool) -> dict[str, Any]:
    ids = list(task.source_types)
    check_source_types(ids)
    if not ids:
        missing["source_type"] = HINTS["source_type"]
    if docs_added and "docs" not in ids:  # the run wrote docs entries: the PR updates the docs
        ids.append("docs")
    out: dict[str, Any] = {
        "types": [{"id": i, "zh": zh, "en": en, "checked": i in ids} for i, zh, en in SOURCE_TYPES],
        "task_issue": task.task_issue,
        "result_issue": task.result_issue,
        "task_title": task.task_title,
        "result_title": task.result_title,
        "docs_pr": task.docs_pr,
    }
    for key in ("task_issue", "result_issue"):
        if not out[key]:
            missing[key] = HINTS[key]
    return out


def _branches(targets: Sequence[TargetReport], task: TaskRecord) -> dict[str, Any]:
    refs = list(dict.fromkeys(t.ref for t in targets if task.repo))
    # refs where nothing ran: no environment had the torch release they target
    not_run = [r for r in refs if all(t.result == "MISMATCH" for t in targets if t.ref == r)]
    return {
        "repo": task.repo,
        "target": task.target_branch or (refs[0] if len(refs) == 1 else None),
        "targets": [r for r in refs if r not in not_run],
        "not_run": not_run,
        "active": list(task.active_branches),
        "maintenance": list(task.maintenance_branches),
        "maintenance_reason": task.maintenance_reason,
        "maintenance_reason_zh": task.maintenance_reason_zh,
        "in_maintenance": [r for r in refs if r in task.maintenance_branches],
    }


def _change_from_runs(targets: Sequence[TargetReport], task: TaskRecord) -> dict[str, Any]:
    """No range given: the PR's commits and the files they change are not collected (``--range``). A
    target's commit is the tip of the branch it ran on, not the PR's, and the files it ran are the
    API's tests wherever they already are. The one change the runs know of is their own: the test
    files they wrote into the worktree (scaffolded, or added ``--into`` a file), which no commit holds."""
    change: dict[str, Any] = {
        "from": "runs",
        "repo": None,
        "range": None,
        "base": None,
        "head": None,
        "head_title": None,
        "source_branch": task.source_branch
        or next((t.source_branch for t in targets if t.source_branch), None),
        "commits": [],
        "files": [],
        "only_tests": None,
    }
    if not task.repo:
        return change
    seen: dict[str, dict[str, Any]] = {}
    for t in targets:
        for tf in t.test_files:
            # a file written for a target that never ran it (its probe failed) is no verified change
            if not tf.get("added") or not _ran(targets, tf["path"]):
                continue
            seen.setdefault(
                tf["path"],
                {
                    "path": tf["path"],
                    # written over a file the ref holds (--into), or a new one
                    "status": "M" if tf.get("blob_sha256") else "A",
                    "sha256": tf["sha256"],
                    "copyright": None,
                    "docstring": None,
                    "origin": "written",
                },
            )
    change["files"] = list(seen.values())
    return change


def _ran(targets: Sequence[TargetReport], path: str) -> list[str]:
    """The targets that ran the test file ``path``."""
    return [t.label for t in targets if path in t.ran_files]


def _with_runs(change: dict[str, Any], targets: Sequence[TargetReport]) -> dict[str, Any]:
    """Each changed file with the targets that ran it (``ran``): a change is what the range changed or
    the run wrote, and the texts say of each whether these runs ran it."""
    for f in change["files"]:
        f["ran"] = _ran(targets, f["path"])
    return change


def _checks_from_checklist(change: dict[str, Any], checklist: Checklist | None) -> None:
    """One fact, one place: a changed file the change record did not check (no range) states the
    checklist's result for it, where the checklist evaluated that file."""
    if checklist is None:
        return
    for f in change["files"]:
        if f["path"] not in checklist.files:
            continue
        for key, item_id in (("copyright", "copyright"), ("docstring", "docstring_api")):
            item = next((i for i in checklist.items if i.id == item_id), None)
            if f[key] is not None or item is None:
                continue
            # a failing item over several files names each file that fails it
            if item.status == FAIL and len(checklist.files) > 1 and f["path"] not in item.reason:
                continue
            f[key] = {"status": item.status, "reason": item.reason, "reason_zh": item.reason_zh}


def _change_from_record(rec: ChangeRecord) -> dict[str, Any]:
    def check(c: Any) -> dict[str, Any] | None:
        return (
            None
            if c is None
            else {"status": c.status, "reason": c.reason, "reason_zh": c.reason_zh}
        )

    return {
        "from": rec.source,
        "repo": rec.repo,
        "range": rec.range,
        "base": rec.base,
        "head": rec.head,
        "head_title": rec.head_title,
        "source_branch": rec.source_branch,
        "commits": [{"commit": c.commit, "title": c.title, "ref": c.ref} for c in rec.commits],
        "files": [
            {
                "path": f.path,
                "status": f.status,
                "sha256": f.sha256,
                "copyright": check(f.copyright),
                "docstring": check(f.docstring),
                "origin": "range" if rec.source == "git" else rec.source,
            }
            for f in rec.files
        ],
        "only_tests": rec.only_tests,
        "other_files": list(rec.other_files),
        "upstream_files": list(rec.upstream_files),
    }


def _coverage_before(rec: ApiCoverage, added: set[str]) -> dict[str, Any]:
    """The coverage as it stood before the change: the direct tests of files the change adds are the
    PR's own (``direct_added``), not tests that already existed, and the paragraph says so."""
    before = replace(
        rec,
        refs=tuple(
            replace(r, direct=tuple(d for d in r.direct if d.path not in added)) for r in rec.refs
        ),
    )
    zh, en = justify(before)
    doc = normalise_coverage(replace(before, justification_zh=zh, justification_en=en).to_json())
    whole = normalise_coverage(rec.to_json())
    for r, w in zip(doc["refs"], whole["refs"], strict=True):
        r["direct_added"] = [d for d in w["direct"] if d["path"] in added]
    return doc


def _upstream(
    coverage: dict[str, Any] | None, targets: Sequence[TargetReport], note: str | None
) -> dict[str, Any] | None:
    """The existing direct tests per searched ref, and whether these runs executed them."""
    if coverage is None:
        return None
    refs = []
    for ref in coverage["refs"]:
        tests = []
        for d in ref["direct"]:
            key = d["test"] or d["path"]
            tid = parse_test_id(key)
            path = d["path"] or tid.path
            # a runner names the innermost class only (module.Inner.test_x)
            klass = tid.klass.rsplit(".", 1)[-1]
            outcomes = []
            for t in targets:
                for r in t.tests:
                    if (
                        r.file == path
                        and (not tid.name or r.name == tid.name)
                        and (not klass or r.classname == klass or r.classname.endswith(f".{klass}"))
                    ):
                        outcomes.append((t.label, r.outcome))
            worst = next(
                (
                    o
                    for o in ("error", "failed", "xpass", "skipped", "xfail", "passed")
                    if any(x == o for _, x in outcomes)
                ),
                None,
            )
            tests.append(
                {
                    "test": key,
                    "path": path,
                    "line": d["line"],
                    "status": "ran" if outcomes else "not run",
                    "outcome": worst,
                    "targets": [{"label": lbl, "outcome": o} for lbl, o in outcomes],
                }
            )
        refs.append(
            {
                "ref": ref["ref"],
                "commit": ref["commit"],
                "upstream": ref["upstream"],
                "tests": tests,
            }
        )
    return {"refs": refs, "note": note}


def _interface(change: dict[str, Any], task: TaskRecord) -> dict[str, Any]:
    others = list(change.get("other_files") or []) if change["from"] == "git" else []
    if change["from"] != "git":
        basis, changed = "unknown", None
    elif others:
        basis, changed = "other-files", None
    else:
        basis, changed = "only-tests", False
    return {"changed": changed, "basis": basis, "files": others, "text": task.interface_change}


def _upstream_patch(change: dict[str, Any], task: TaskRecord) -> dict[str, Any]:
    if change["from"] != "git":
        return {"involved": None, "files": [], "text": task.upstream_patch}
    files = list(change.get("upstream_files") or [])
    return {"involved": bool(files), "files": files, "text": task.upstream_patch}


def _first(runs: Sequence[RunRecords], name: str) -> Any:
    """The record of one kind over the runs given: the first run that has it (runs in the order asked)."""
    for r in runs:
        value = getattr(r, name)
        if value is not None:
            return value
    return None


def build_report(
    runs: Sequence[RunRecords],
    task: TaskRecord | None = None,
    change: ChangeRecord | None = None,
    checklist: Checklist | None = None,
) -> ReportModel:
    """The report model of ``runs`` (see ``ReportModel``).

    ``task`` holds PR fields stated now (they override the run's own); ``change`` and
    ``checklist`` are records the caller evaluated just before (``report --repo --range``):
    given, they take the place of the runs' own.
    """
    if not runs:
        raise UsageError("no run given; pass at least one RUN id (see 'torchparity runs')")
    uids = [r.run.uid for r in runs]
    if len(set(uids)) != len(uids):
        raise UsageError("the same run is given twice; drop the duplicate")
    missing: dict[str, str] = {}
    the_task = merge_tasks(_first(runs, "task"), task)
    resolve_rec = _first(runs, "resolve")
    resolve = normalise_resolve(resolve_rec.to_json()) if resolve_rec is not None else None
    api = the_task.api or (resolve["query"] if resolve else None)
    canonical = resolve["canonical"] if resolve else api
    if api is None:
        missing["api"] = HINTS["api"]
    cov_rec = _first(runs, "coverage")
    coverage = normalise_coverage(cov_rec.to_json()) if cov_rec is not None else None
    dc_rec, da_rec = _first(runs, "docs_check"), _first(runs, "docs_add")
    docs = {
        "check": (
            normalise_docs_check(dc_rec.to_json(), [p.code for p in the_task.products])
            if dc_rec is not None
            else None
        ),
        "add": normalise_docs_add(da_rec.to_json()) if da_rec is not None else None,
    }
    for kind, doc in (("resolve", resolve), ("coverage", coverage), ("docs", docs["check"])):
        if doc is None:
            missing[kind] = HINTS[kind]

    # in the order the run was asked for (refs as given, then environments), not the order they finished
    targets = [
        target_report(ev, run_uid=r.run.uid)
        for r in runs
        for ev in sorted(r.targets, key=lambda e: e.record.order)
    ]
    if not targets:
        missing["targets"] = HINTS["targets"]
    change_rec = change or _first(runs, "change")
    change_doc = _with_runs(
        _change_from_record(change_rec)
        if change_rec is not None
        else _change_from_runs(targets, the_task),
        targets,
    )
    # the branch the PR comes from: as stated now, else as git named it, else as the targets were told
    change_doc["source_branch"] = (
        the_task.source_branch
        or change_doc["source_branch"]
        or next((t.source_branch for t in targets if t.source_branch), None)
    )
    if change_doc["from"] != "git":
        missing["repo"] = HINTS["repo"]
    added_files = {f["path"] for f in change_doc["files"] if f.get("status") == "A"}
    # the tests that ran, existing or the PR's own, are the whole coverage's; the search is the base's
    coverage_at_refs = coverage
    if cov_rec is not None and added_files:
        coverage = _coverage_before(cov_rec, added_files)
    the_checklist = checklist or _first(runs, "checklist")
    if the_checklist is None:
        missing["checklist"] = HINTS["checklist"]
    _checks_from_checklist(change_doc, the_checklist)

    results = [t.result for t in targets]
    result = overall_result(results)
    docs_missing = list(docs["check"]["missing_versions"]) if docs["check"] else []
    ran = [t for t in targets if t.result != "MISMATCH"]  # the targets where something ran
    conclusion = {
        "result": result,
        "passed": [t.label for t in targets if t.result == "PASS"],
        "failed": [t.label for t in targets if t.result == "FAIL"],
        "errors": [t.label for t in targets if t.result in ("ERROR", "INCOMPLETE")],
        # none of the API's tests ran there (all skipped, disabled, never started): not a pass
        "none_ran": [t.label for t in targets if t.result == "NONE_RAN"],
        # no environment has the torch release the ref targets: not run
        "mismatch": [t.label for t in targets if t.result == "MISMATCH"],
        # ran in an environment whose torch is not the ref's release (--allow-version-mismatch)
        "version_allowed": [t.label for t in targets if t.version_check == "allowed"],
        "isolation_failed": [t.label for t in targets if t.isolation_passed is False],
        "docs_missing": docs_missing,
        # the evidence supports consistency: every target passed, on hardware, on its own torch release
        "consistent": (
            result == "PASS"
            and not all(t.emulated for t in targets)
            and not any(t.version_check == "allowed" for t in targets)
        )
        if targets
        else None,
        "emulated_only": bool(ran) and all(t.emulated for t in ran),
        # the targets whose device was emulated on CPU (all of them: a dry run, emulated_only)
        "emulated": [t.label for t in targets if t.emulated],
    }
    scaffold = _first(runs, "scaffold")
    return ReportModel(
        api=api,
        canonical=canonical,
        result=result,
        runs=tuple(
            {
                "uid": r.run.uid,
                "kind": r.run.kind,
                "status": r.run.status,
                "result": r.run.result,
                "created": r.run.created,
                "finished": r.run.finished,
            }
            for r in runs
        ),
        targets=tuple(targets),
        source=_source(
            the_task,
            missing,
            any(c.get("action") == "added" for c in (docs.get("add") or {}).get("changes") or []),
        ),
        branches=_branches(targets, the_task),
        change=change_doc,
        resolve=resolve,
        classification=(resolve or {}).get("classification"),
        coverage=coverage,
        docs=docs,
        upstream=_upstream(coverage_at_refs, targets, the_task.upstream_note),
        interface=_interface(change_doc, the_task),
        upstream_patch=_upstream_patch(change_doc, the_task),
        checklist=the_checklist.to_json() if the_checklist is not None else None,
        conclusion=conclusion,
        missing=dict(sorted(missing.items())),
        upstream_note=the_task.upstream_note,
        official=official_tests(_first(runs, "upstream"), the_task.upstream_note),
        tested_files=tuple(
            {"path": path}
            for path in dict.fromkeys(tf["path"] for t in targets for tf in t.test_files)
            if the_task.repo
        ),
        scaffold=(
            {
                "path": scaffold.path,
                "family": scaffold.family,
                "outside_repo": scaffold.outside_repo,
                "complete": scaffold.complete,
                "methods": list(scaffold.methods),
            }
            if scaffold
            else None
        ),
        tool=f"torchparity {the_targets_version(runs)}",
    )


def the_targets_version(runs: Sequence[RunRecords]) -> str:
    """The torchparity version that made the evidence (the targets' own, else the task's), else this one."""
    for r in runs:
        for ev in r.targets:
            if ev.record.torchparity_version:
                return ev.record.torchparity_version
    for r in runs:
        if r.task is not None and r.task.torchparity_version:
            return r.task.torchparity_version
    return __version__
