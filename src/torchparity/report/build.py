"""Assemble the report model of a task from the store (runs, records), the config and the backend repo."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..collect.record import record_from_json
from ..config import Config, load_preset
from ..coverage.aliases import AliasTable
from ..errors import UsageError
from ..gitrepo import blob_bytes, commit_title, git, repo_root, resolve_commit
from ..store import Store, sha256_bytes
from .checklist import (
    Checklist,
    alias_table,
    changed_files,
    check_copyright,
    check_docstring,
    evaluate_checklist,
    resolve_aliases,
    split_range,
)
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
from .pysource import SourceFile

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
    "source_type": "--source-type " + "/".join(t[0] for t in SOURCE_TYPES) + " | [report] source_type",
    "targets": "torchparity run ...",
}


def api_from_argv(argv: Sequence[str]) -> str | None:
    for i, arg in enumerate(argv):
        if arg == "--api" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--api="):
            return arg.split("=", 1)[1]
    return None


class _Records:
    """The records of other parts: those attached to the runs first, then the newest by key."""

    def __init__(self, store: Store, run_ids: Sequence[int]) -> None:
        self.store = store
        self.attached: list[tuple[str, str, dict[str, Any]]] = []
        for rid in run_ids:
            self.attached.extend(store.records(rid))

    def find(self, kind: str, keys: Sequence[str | None]) -> dict[str, Any] | None:
        wanted = [k for k in dict.fromkeys(keys) if k]
        for k, key, doc in reversed(self.attached):
            if k == kind and (not wanted or key in wanted):
                return doc
        for key in wanted:
            doc = self.store.latest_record(kind, key)
            if doc is not None:
                return doc
        return None


def _opt(extra: dict[str, Any], config: Config, key: str) -> Any:
    value = extra.get(key)
    return value if value not in (None, "", []) else config.report.get(key)


def check_source_types(ids: list[str]) -> None:
    """Refuse a merge source type the template has no checkbox for (bad input, exit 2)."""
    known = [t[0] for t in SOURCE_TYPES]
    for i in ids:
        if i not in known:
            raise UsageError(f"unknown source type {i!r} (--source-type); use one of {', '.join(known)}")


def _source(extra: dict[str, Any], config: Config, missing: dict[str, str]) -> dict[str, Any]:
    chosen = _opt(extra, config, "source_type")
    ids = [chosen] if isinstance(chosen, str) else list(chosen or [])
    check_source_types(ids)
    if not ids:
        missing["source_type"] = HINTS["source_type"]
    out: dict[str, Any] = {
        "types": [{"id": i, "zh": zh, "en": en, "checked": i in ids} for i, zh, en in SOURCE_TYPES],
        "task_issue": _opt(extra, config, "task_issue"),
        "result_issue": _opt(extra, config, "result_issue"),
        "task_title": _opt(extra, config, "task_title"),
        "result_title": _opt(extra, config, "result_title"),
    }
    for key in ("task_issue", "result_issue"):
        if not out[key]:
            missing[key] = HINTS[key]
    return out


def _branches(targets: Sequence[TargetReport], config: Config, extra: dict[str, Any]) -> dict[str, Any]:
    refs = list(dict.fromkeys(t.ref for t in targets))
    return {
        "target": extra.get("target_branch") or (refs[0] if len(refs) == 1 else None),
        "targets": refs,
        "active": list(config.active_branches),
        "maintenance": list(config.maintenance_branches),
        "maintenance_reason": config.maintenance_reason or None,
        "in_maintenance": [r for r in refs if config.is_maintenance(r)],
    }


def _file_notes(src: SourceFile, config: Config, api: str | None, aliases: AliasTable) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, res in (("copyright", check_copyright(src, str(config.scaffold.get("copyright") or ""))),
                     ("docstring", check_docstring(src, api, aliases))):
        out[key] = {"status": res.status, "reason": res.en, "reason_zh": res.zh}
    return out


def _change(
    targets: Sequence[TargetReport], config: Config, extra: dict[str, Any], api: str | None,
    aliases: AliasTable, missing: dict[str, str],
) -> dict[str, Any]:
    repo = extra.get("repo")
    rev_range = extra.get("range")
    root = repo_root(repo) if repo else None
    source_branch = extra.get("source_branch") or next((t.source_branch for t in targets if t.source_branch), None)
    change: dict[str, Any] = {
        "from": "runs", "repo": str(root) if root else None, "range": rev_range, "base": None, "head": None,
        "head_title": None, "source_branch": source_branch, "commits": [], "files": [], "only_tests": None,
    }
    if root is not None and rev_range:
        b, h = split_range(rev_range)
        base, head = resolve_commit(root, b), resolve_commit(root, h)
        if not source_branch:
            name = git(root, "rev-parse", "--abbrev-ref", h, check=False).text.strip()
            change["source_branch"] = name if name and name != "HEAD" else None
        log = git(root, "log", "--format=%H%x09%s", f"{base}..{head}").text.splitlines()
        change.update({
            "from": "git", "base": base, "head": head, "head_title": commit_title(root, head),
            "commits": [{"commit": c, "title": t, "ref": None} for c, t in (x.split("\t", 1) for x in log)],
        })
        files = []
        for status, path in changed_files(root, base, head):
            entry: dict[str, Any] = {"path": path, "status": status, "sha256": None, "copyright": None,
                                     "docstring": None}
            data = blob_bytes(root, head, path) if status != "D" else None
            if data is not None:
                entry["sha256"] = sha256_bytes(data)
                if path.endswith(".py"):
                    entry.update(_file_notes(SourceFile(path, data.decode("utf-8", "replace")), config, api, aliases))
            files.append(entry)
        change["files"] = files
        roots = tuple(config.test_roots) + ((str(config.docs.get("root")),) if config.docs.get("root") else ())
        change["only_tests"] = all(_under(f["path"], roots) for f in files) if files else None
        return change
    missing["repo"] = HINTS["repo"]
    seen: dict[str, dict[str, Any]] = {}
    for t in targets:
        for tf in t.test_files:
            seen.setdefault(tf["path"], {"path": tf["path"], "status": None, "sha256": tf["sha256"],
                                         "copyright": None, "docstring": None})
    change["files"] = list(seen.values())
    commits: dict[str, dict[str, Any]] = {}
    for t in targets:
        title = None
        if root is not None and t.commit and not t.commit.startswith("n/a"):
            try:
                title = commit_title(root, t.commit)
            except UsageError:
                title = None
        commits.setdefault(t.commit, {"commit": t.commit, "title": title, "ref": t.ref})
    change["commits"] = list(commits.values())
    return change


def _under(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _upstream(coverage: dict[str, Any] | None, targets: Sequence[TargetReport], extra: dict[str, Any]) -> dict[str, Any] | None:
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
                    if (r.file == path and (not tid.name or r.name == tid.name)
                            and (not klass or r.classname == klass or r.classname.endswith(f".{klass}"))):
                        outcomes.append((t.label, r.outcome))
            worst = next((o for o in ("error", "failed", "xpass", "skipped", "xfail", "passed")
                          if any(x == o for _, x in outcomes)), None)
            tests.append({
                "test": key, "path": path, "line": d["line"], "status": "ran" if outcomes else "not run",
                "outcome": worst, "targets": [{"label": lbl, "outcome": o} for lbl, o in outcomes],
            })
        refs.append({"ref": ref["ref"], "commit": ref["commit"], "tests": tests})
    return {"refs": refs, "note": extra.get("upstream_note")}


def _interface(change: dict[str, Any], config: Config, extra: dict[str, Any]) -> dict[str, Any]:
    text = extra.get("interface_change")
    roots = tuple(config.test_roots) + ((str(config.docs.get("root")),) if config.docs.get("root") else ())
    others = [f["path"] for f in change["files"] if not _under(f["path"], roots)] if change["from"] == "git" else []
    if change["from"] != "git":
        basis, changed = "unknown", None
    elif others:
        basis, changed = "other-files", None
    else:
        basis, changed = "only-tests", False
    return {"changed": changed, "basis": basis, "files": others, "text": text}


def _upstream_patch(change: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    text = extra.get("upstream_patch")
    if change["from"] != "git":
        return {"involved": None, "files": [], "text": text}
    files = [f["path"] for f in change["files"] if "test_upstream" in f["path"].split("/")]
    return {"involved": bool(files), "files": files, "text": text}


def _load_targets(store: Store, run_ids: Sequence[int], config: Config, extra: dict[str, Any]) -> list[TargetReport]:
    hardware_map = dict(extra.get("hardware") or {})
    out = []
    for rid in run_ids:
        for row in store.targets(rid):
            if row.record_sha is None:
                continue
            rec = record_from_json(store.read_json(row.record_sha))
            log = store.blobs.read(row.log_sha).decode("utf-8", "replace") if row.log_sha else ""
            env_cfg = config.envs.get(rec.env)
            hardware = hardware_map.get(rec.env) or (env_cfg.hardware if env_cfg else "")
            out.append(target_report(rec, run_id=rid, log=log, log_sha256=row.log_sha or "",
                                     record_sha256=row.record_sha, hardware=hardware))
    return out


def build_report(
    store: Store,
    run_ids: Sequence[int | str],
    api: str | None = None,
    config: Config | None = None,
    extra: dict[str, Any] | None = None,
) -> ReportModel:
    """The report model of the runs ``run_ids`` (see ``ReportModel``).

    ``extra`` carries what the store does not hold: ``repo`` and ``range`` (the
    PR's commits; enables the change section and the checklist), ``title`` (PR
    title), ``task_issue``, ``result_issue``, ``source_type``, ``source_branch``,
    ``target_branch``, ``interface_change``, ``upstream_patch``, ``upstream_note``,
    ``hardware`` ({env: name}) and ``checklist`` (a ``Checklist`` already evaluated).
    """
    config = config or load_preset("default")
    extra = dict(extra or {})
    if not run_ids:
        raise UsageError("no run given; pass at least one RUN id (see 'torchparity runs')")
    runs = [store.run(r) for r in run_ids]
    ids = [r.id for r in runs]
    if len(set(ids)) != len(ids):
        raise UsageError("the same run is given twice; drop the duplicate")
    missing: dict[str, str] = {}
    if api is None:
        api = next((a for a in (api_from_argv(r.argv) for r in runs) if a), None)
    records = _Records(store, ids)
    static = alias_table(None)
    resolve_doc = records.find("resolve", [api, static.canonical(api)[0] if api else None])
    resolve = normalise_resolve(resolve_doc) if resolve_doc is not None else None
    if api is None and resolve is not None:
        api = resolve["canonical"] or resolve["query"]
    canonical = (resolve or {}).get("canonical") or (static.canonical(api)[0] if api else None)
    aliases = alias_table(api, resolve_aliases(resolve), canonical)
    keys = [api, canonical]
    if api is None:
        missing["api"] = HINTS["api"]
    cov_doc = records.find("coverage", keys) if api or records.attached else None
    coverage = normalise_coverage(cov_doc) if cov_doc is not None else None
    dc_doc = records.find("docs-check", keys) if api or records.attached else None
    da_doc = records.find("docs-add", keys) if api or records.attached else None
    docs = {
        "check": (normalise_docs_check(dc_doc, [p.code for p in config.docs_products])
                  if dc_doc is not None else None),
        "add": normalise_docs_add(da_doc) if da_doc is not None else None,
    }
    for kind, doc in (("resolve", resolve), ("coverage", coverage), ("docs", docs["check"])):
        if doc is None:
            missing[kind] = HINTS[kind]

    targets = _load_targets(store, ids, config, extra)
    if not targets:
        missing["targets"] = HINTS["targets"]
    change = _change(targets, config, extra, canonical or api, aliases, missing)

    checklist: dict[str, Any] | None = None
    given = extra.get("checklist")
    if isinstance(given, Checklist):
        checklist = given.to_json()
    elif isinstance(given, dict):
        checklist = given
    elif change["from"] == "git":
        at_head = {f["path"] for f in change["files"] if f["sha256"]} | {
            p for p in dict.fromkeys(tf["path"] for t in targets for tf in t.test_files)
            if blob_bytes(change["repo"], change["head"], p) is not None
        }
        files = [p for p in dict.fromkeys(tf["path"] for t in targets for tf in t.test_files) if p in at_head]
        if files:
            records_json = [store.read_json(row.record_sha) for rid in ids for row in store.targets(rid)
                            if row.record_sha]
            checklist = evaluate_checklist(
                change["repo"], change["range"], files, api=canonical or api, config=config,
                run_records=records_json, title=extra.get("title"), aliases=[api] if api else [], resolve=resolve,
            ).to_json()
    if checklist is None:
        checklist = records.find("checklist", keys)
    if checklist is None:
        missing["checklist"] = HINTS["checklist"]

    results = [t.result for t in targets]
    result = overall_result(results)
    docs_missing = list(docs["check"]["missing_versions"]) if docs["check"] else []
    conclusion = {
        "result": result,
        "passed": [t.label for t in targets if t.result == "PASS"],
        "failed": [t.label for t in targets if t.result == "FAIL"],
        "errors": [t.label for t in targets if t.result in ("ERROR", "INCOMPLETE")],
        "isolation_failed": [t.label for t in targets if t.isolation_passed is False],
        "docs_missing": docs_missing,
        "consistent": (result == "PASS") if targets else None,
    }
    return ReportModel(
        api=api, canonical=canonical, result=result,
        runs=tuple({"id": r.id, "kind": r.kind, "status": r.status, "result": r.result, "argv": list(r.argv),
                    "created": r.created, "finished": r.finished} for r in runs),
        targets=tuple(targets),
        source=_source(extra, config, missing),
        branches=_branches(targets, config, extra),
        change=change, resolve=resolve,
        classification=(resolve or {}).get("classification"),
        coverage=coverage, docs=docs,
        upstream=_upstream(coverage, targets, extra),
        interface=_interface(change, config, extra),
        upstream_patch=_upstream_patch(change, extra),
        checklist=checklist, conclusion=conclusion, missing=dict(sorted(missing.items())),
        tool=f"torchparity {__version__}",
    )

