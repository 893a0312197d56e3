"""Review one PR text: parse its claims, check each against the repository, return the verdicts."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ..config import Config
from ..errors import UsageError
from .checks.commits import check_commits
from .checks.docs import check_docs
from .checks.evidence import check_attestation, check_evidence, check_logs
from .checks.facts import Facts
from .checks.files import check_files
from .checks.grep import check_greps
from .checks.outcomes import check_outcomes
from .checks.runs import check_runs
from .checks.scope import check_scope_and_versions
from .document import long_lines_note, refuse_nul
from .parse import parse_text
from .records import KINDS, Review, Verdict
from .repo import RepoView, temp_dir


def read_text(source: str) -> str:
    """The PR text from a file, or from stdin for ``-``."""
    if source == "-":
        text = sys.stdin.read()
    else:
        path = Path(source)
        if not path.exists() or path.is_dir():
            raise UsageError(
                f"PR text not found: {source}; pass a file holding the PR description, or - for stdin"
            )
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(
                f"{source} is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8"
            ) from exc
    refuse_nul(text, source if source != "-" else "stdin")
    if not text.strip():
        raise UsageError(
            f"the PR text in {source if source != '-' else 'stdin'} is empty; pass the PR description"
        )
    return text


def _order(v: Verdict) -> tuple[int, int, int]:
    return (v.line == 0, v.line, KINDS.index(v.kind) if v.kind in KINDS else len(KINDS))


def review_text(
    text: str,
    repo: str | Path,
    config: Config,
    *,
    merge: str | None = None,
    head: str | None = None,
    target_branch: str = "",
    bundle: Path | None = None,
    attestation: Path | None = None,
    allowed_signers: Path | None = None,
    source: str = "",
) -> Review:
    """The verdict on every claim of ``text``, checked at ``merge`` (the PR's merge commit) or ``head``.

    With neither, the text's own target branch is the head. Exactly one of ``merge``
    and ``head`` may be given. ``bundle``/``attestation`` are torchparity's own evidence.
    """
    if merge and head:
        raise UsageError("give --merge COMMIT or --head REF, not both")
    products = [(p.code, (p.name, *p.aliases)) for p in config.docs_products]
    claims = parse_text(text, products)
    notes: list[str] = [n for n in (long_lines_note(claims.long_lines),) if n]
    if not merge and not head:
        stated = target_branch or next((s.branch for s in claims.scope if s.what == "target"), "")
        if not stated:
            raise UsageError(
                "the text states no target branch; pass --merge COMMIT (the PR's merge) or --head REF"
            )
        head = stated
        notes.append(
            f"no --merge or --head: checked at the head of {stated}, the branch the text targets"
        )
    for flag, path in (
        ("--bundle", bundle),
        ("--attestation", attestation),
        ("--allowed-signers", allowed_signers),
    ):
        if path is not None and not path.is_file():
            raise UsageError(f"{flag} {path}: file not found; pass an existing file")
    named_branch = head if head and not re.fullmatch(r"[0-9a-fA-F]{7,40}", head) else ""
    view = RepoView(
        repo, merge or head or "", "merge" if merge else "head", target_branch or named_branch
    )
    facts = Facts(
        view=view,
        config=config,
        claims=claims,
        bundle=bundle,
        attestation=attestation,
        allowed_signers=allowed_signers,
        text=text,
    )
    verdicts: list[Verdict] = []
    with temp_dir() as work:
        verdicts += check_commits(facts)
        verdicts += check_files(facts)
        verdicts += check_runs(facts)
        verdicts += check_outcomes(facts)
        verdicts += check_greps(facts)
        verdicts += check_docs(facts, Path(work))
        verdicts += check_scope_and_versions(facts)
        verdicts += check_evidence(facts)
        verdicts += check_logs(facts)
        if attestation is not None:
            verdicts += check_attestation(facts)
    if view.squashed:
        notes.append(
            f"{view.commit[:12]} is a squash merge (one parent): source-branch commits are not in the "
            "repository and are reported unverifiable"
        )
    if not verdicts:
        notes.append(
            "no checkable claim found in the text (no commit, hash, test output, git grep, docs, "
            "outcome or branch statement)"
        )
    return Review(
        source=source,
        repo=str(view.root),
        commit=view.commit,
        mode=view.mode,
        target_branch=view.target_branch,
        verdicts=tuple(sorted(verdicts, key=_order)),
        notes=tuple(notes),
    )
