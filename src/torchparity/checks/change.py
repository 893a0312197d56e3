"""The change stage: the PR's commits and files, read from git once into a ``ChangeRecord``.

Runs where the range is known (``verify --range``, ``report --repo --range``);
the report renders the record and never reads git itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..config import Config
from ..gitrepo import blob_bytes, commit_title, git, repo_root, resolve_commit
from ..records.change import ChangeRecord, CommitFact, FileCheck, FileFact
from ..records.checklist import Checklist
from ..records.resolve import ApiInfo
from ..records.run import RunRecords
from ..store import sha256_bytes
from .checklist import (
    alias_table,
    changed_files,
    check_copyright,
    check_docstring,
    evaluate_checklist,
    resolve_aliases,
    split_range,
)
from .pysource import SourceFile

#: a vendored upstream test folder: changes there are the template's "test_upstream patch"
UPSTREAM_FOLDER = "test_upstream"


def _under(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def evaluate_change(
    repo: str | Path,
    rev_range: str,
    config: Config,
    api: str | None = None,
    resolve: ApiInfo | None = None,
    source_branch: str | None = None,
) -> ChangeRecord:
    """The commits of ``BASE..HEAD`` and each changed file's hash and conventions at HEAD."""
    root = repo_root(repo)
    b, h = split_range(rev_range)
    base, head = resolve_commit(root, b), resolve_commit(root, h)
    if not source_branch:
        name = git(root, "rev-parse", "--abbrev-ref", h, check=False).text.strip()
        source_branch = name if name and name != "HEAD" else None
    log = git(root, "log", "--format=%H%x09%s", f"{base}..{head}").text.splitlines()
    commits = tuple(CommitFact(c, t) for c, t in (x.split("\t", 1) for x in log if "\t" in x))
    canonical = resolve.canonical if resolve is not None else None
    aliases = alias_table(api, resolve_aliases(resolve.to_json() if resolve else None), canonical)
    template = str(config.scaffold.get("copyright") or "")
    files = []
    for status, path in changed_files(root, base, head):
        data = blob_bytes(root, head, path) if status != "D" else None
        copyright_ = docstring = None
        if data is not None and path.endswith(".py"):
            src = SourceFile(path, data.decode("utf-8", "replace"))
            c = check_copyright(src, template)
            d = check_docstring(src, canonical or api, aliases)
            copyright_ = FileCheck(c.status, c.en, c.zh)
            docstring = FileCheck(d.status, d.en, d.zh)
        files.append(
            FileFact(
                path,
                status,
                sha256_bytes(data) if data is not None else None,
                copyright_,
                docstring,
            )
        )
    roots = tuple(config.test_roots) + (
        (str(config.docs.get("root")),) if config.docs.get("root") else ()
    )
    paths = [f.path for f in files]
    return ChangeRecord(
        source="git",
        repo=str(root),
        range=rev_range,
        base=base,
        head=head,
        head_title=commit_title(root, head),
        source_branch=source_branch,
        commits=commits,
        files=tuple(files),
        only_tests=all(_under(p, roots) for p in paths) if paths else None,
        other_files=tuple(p for p in paths if not _under(p, roots)),
        upstream_files=tuple(p for p in paths if UPSTREAM_FOLDER in p.split("/")),
    )


def checklist_for_runs(
    change: ChangeRecord,
    runs: Sequence[RunRecords],
    config: Config,
    api: str | None,
    resolve: ApiInfo | None,
    title: str | None = None,
) -> Checklist | None:
    """The checklist over the test files the runs ran that exist at the change's head (None: none do)."""
    assert change.repo is not None and change.head is not None
    ran = list(
        dict.fromkeys(tf.path for r in runs for ev in r.targets for tf in ev.record.test_files)
    )
    at_head = {f.path for f in change.files if f.sha256}
    files = [p for p in ran if p in at_head or blob_bytes(change.repo, change.head, p) is not None]
    if not files:
        return None
    return evaluate_checklist(
        change.repo,
        change.range,
        files,
        api=(resolve.canonical if resolve else api),
        config=config,
        run_records=[ev.record for r in runs for ev in r.targets],
        title=title,
        aliases=[api] if api else [],
        resolve=resolve.to_json() if resolve else None,
    )


__all__ = ["checklist_for_runs", "evaluate_change"]
