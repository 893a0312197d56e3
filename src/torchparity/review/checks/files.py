"""File claims: a file's SHA-256 (hashed at the merge), a submodule pointer (the gitlink the merge records)."""

from __future__ import annotations

from collections.abc import Iterator

from ..records import Sha256Claim, SubmoduleClaim, Verdict, contradicted, unverifiable, verified
from .facts import Facts


def _path(c: Sha256Claim, f: Facts) -> tuple[str | None, str]:
    """(repository path, why) of the file the claim means."""
    if c.path:
        found = f.view.locate(c.path)
        if found:
            return found, {
                "line": "named on the line",
                "test_file": "the log's TEST_FILE",
                "nearest": "the nearest path above",
            }.get(c.path_from, "")
        if c.path_from in ("line", "test_file"):
            return None, f"{c.path} is not in the repository at {f.view.commit[:12]}"
    only = f.only_changed_file()
    if only:
        return only, "the only file the change touches"
    n = len(f.changed_py)
    return None, f"the text names no file for it and the change touches {n} Python files"


def check_sha256(c: Sha256Claim, f: Facts) -> Verdict:
    path, why = _path(c, f)
    if path is None:
        return unverifiable(c, "sha256", why)
    view = f.view
    actual = view.sha256(path)
    if actual == c.digest:
        return verified(c, "sha256", f"{path} ({why}) hashes to it at {view.commit[:12]}")
    other = f.branch_commit(c.branch)
    if other and view.sha256(path, other) == c.digest:
        return verified(
            c,
            "sha256",
            f"{path} hashes to it at {c.branch} ({other[:12]}), the branch the line is about",
        )
    if actual is None:
        return unverifiable(c, "sha256", f"{path} is not in the repository at {view.commit[:12]}")
    older = view.history_sha256(path).get(c.digest)
    if older:
        return contradicted(
            c,
            "sha256",
            f"{path} hashes to {actual} at {view.commit[:12]}; the stated value is "
            f"the version at {older[:12]}",
        )
    return contradicted(c, "sha256", f"{path} ({why}) hashes to {actual} at {view.commit[:12]}")


def check_submodule(c: SubmoduleClaim, f: Facts) -> Verdict:
    view = f.view
    path = next((p for p in c.paths if view.gitlink(p) is not None), None)
    if path is None:
        return unverifiable(
            c, "submodule", f"no submodule at {', '.join(c.paths)} at {view.commit[:12]}"
        )
    actual = view.gitlink(path)
    assert actual is not None
    if not actual.startswith(c.new):
        return contradicted(
            c, "submodule", f"the merge records {path} at {actual}, not {c.new[:12]}"
        )
    if c.old and view.mode == "merge" and view.parents:
        before = view.gitlink(path, view.parents[0])
        if before is not None and not before.startswith(c.old):
            return contradicted(
                c,
                "submodule",
                f"{path} is {actual[:12]} at the merge as stated, but was {before} "
                f"before it, not {c.old[:12]}",
            )
        return verified(
            c,
            "submodule",
            f"{path}: {(before or '(none)')[:12]} -> {actual[:12]} at {view.commit[:12]}",
        )
    return verified(c, "submodule", f"{path} points to {actual[:12]} at {view.commit[:12]}")


def check_files(f: Facts) -> Iterator[Verdict]:
    for c in f.claims.sha256:
        yield check_sha256(c, f)
    for s in f.claims.submodules:
        yield check_submodule(s, f)
