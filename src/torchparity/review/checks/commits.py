"""Commit claims: the commit exists, and sits where its role says (a baseline on its branch, a source
commit in the merge's history). A source commit a squash merge dropped is unverifiable, not false."""

from __future__ import annotations

from collections.abc import Iterator

from ..records import CommitClaim, Verdict, contradicted, unverifiable, verified
from .facts import Facts

ROLE_WORDS = {
    "baseline": "baseline commit",
    "searched": "commit searched",
    "source": "source commit",
    "docs": "docs commit",
    "upstream": "upstream commit",
    "other": "commit",
}


def _branch(c: CommitClaim, f: Facts) -> str:
    """The branch a baseline belongs to: the one its line names when it is here, else the merge's."""
    if c.branch and (f.view.resolve(c.branch) or not f.view.target_branch):
        return c.branch
    return f.view.target_branch


def _missing(c: CommitClaim, f: Facts) -> Verdict:
    view, role = f.view, ROLE_WORDS[c.role]
    short = c.sha[:12]
    pointed = [p for p, sha in view.gitlinks().items() if sha.startswith(c.sha)]
    if pointed and len(c.sha) >= 12:
        # a submodule's commit (``已更新到 op-plugin 仓最新的 commit id``): the merge points to it
        return verified(
            c, "submodule", f"{', '.join(pointed)} points to {short} at {view.commit[:12]}"
        )
    if c.role == "upstream":
        return unverifiable(
            c,
            "commit",
            f"{role} {short}: a commit of another repository (upstream), not of this one",
        )
    if c.role in ("baseline", "searched"):
        branch = _branch(c, f)
        if branch and view.resolve(branch) is None:
            return unverifiable(
                c,
                "commit",
                f"{role} {short} is not here, nor is branch {branch} (fetch it to check)",
            )
        return contradicted(
            c,
            "commit",
            f"{role} {short}: no such commit in the repository"
            + (f" (a baseline must be in {branch}'s history)" if branch else ""),
        )
    if c.role == "docs" and c.pr:
        squash = view.find_squash(c.pr)
        if squash:
            return unverifiable(
                c,
                "commit",
                f"{role} {short} is not in the repository: docs PR !{c.pr} was "
                f"squash-merged as {squash[:12]}, which does not keep it",
            )
    if view.squashed:
        return unverifiable(
            c,
            "commit",
            f"{role} {short} is not in the repository: the PR was squash-merged as "
            f"{view.commit[:12]} (one parent), which keeps no source commits",
        )
    if view.mode == "merge" and len(view.parents) > 1 and c.role == "source":
        return contradicted(
            c,
            "commit",
            f"{role} {short}: no such commit, though merge {view.commit[:12]} keeps "
            "its source history",
        )
    return unverifiable(
        c,
        "commit",
        f"{role} {short} is not in the repository (a squash-merged or rebased branch "
        "leaves none; give --merge with the PR's merge commit)",
    )


def check_commit(c: CommitClaim, f: Facts) -> Verdict:
    view, role = f.view, ROLE_WORDS[c.role]
    full = view.resolve(c.sha)
    if full is None or not full.startswith(c.sha):
        return _missing(c, f)
    short = full[:12]
    if c.role in ("baseline", "searched"):
        branch = _branch(c, f)
        on = view.on_branch(full, branch) if branch else None
        if on is None:
            if view.is_ancestor(full, view.commit):
                return verified(
                    c, "commit", f"{role} {short} exists and is an ancestor of {view.commit[:12]}"
                )
            if branch:
                return unverifiable(
                    c, "commit", f"{role} {short} exists; branch {branch} is not here to place it"
                )
            return contradicted(
                c, "commit", f"{role} {short} exists but is not an ancestor of {view.commit[:12]}"
            )
        if on:
            return verified(c, "commit", f"{role} {short} exists and is in {branch}'s history")
        return contradicted(c, "commit", f"{role} {short} exists but is not in {branch}'s history")
    if view.is_ancestor(full, view.commit):
        return verified(
            c, "commit", f"{role} {short} exists and is an ancestor of {view.commit[:12]}"
        )
    branch = c.branch if c.role == "docs" else (c.branch or view.target_branch)
    if branch and view.on_branch(full, branch):
        return verified(c, "commit", f"{role} {short} exists and is in {branch}'s history")
    return verified(
        c,
        "commit",
        f"{role} {short} exists (not in the history of {view.commit[:12]}"
        + (f" or {branch}" if branch else "")
        + ")",
    )


def check_commits(f: Facts) -> Iterator[Verdict]:
    for c in f.claims.commits:
        yield check_commit(c, f)
