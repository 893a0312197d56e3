"""Branch scope (the PR's target branch, the branches the task covers, maintenance branches from the config)
and environment versions (held against the probe lines of the same text)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..extract_prose import probe_key
from ..records import ScopeClaim, Verdict, VersionClaim, contradicted, unverifiable, verified
from .facts import Facts


def check_scope(c: ScopeClaim, f: Facts) -> Verdict:
    cfg, view = f.config, f.view
    if c.what == "target":
        if view.target_branch and view.mode == "merge":
            if c.branch == view.target_branch:
                return verified(c, "scope", f"{view.commit[:12]} went into {c.branch}")
            return contradicted(
                c, "scope", f"{view.commit[:12]} went into {view.target_branch}, not {c.branch}"
            )
        on = view.on_branch(view.commit, c.branch)
        if on is None:
            return unverifiable(c, "scope", f"no branch {c.branch} in the repository")
        if on:
            return verified(c, "scope", f"{view.commit[:12]} is in {c.branch}'s history")
        tip = view.resolve(c.branch)
        if view.mode == "head" and tip and view.is_ancestor(tip, view.commit):
            # a PR not merged yet: its head is built on the branch it targets
            return verified(
                c,
                "scope",
                f"{view.commit[:12]} is built on {c.branch} ({tip[:12]} is in its history)",
            )
        return contradicted(c, "scope", f"{view.commit[:12]} is not in {c.branch}'s history")
    if not (cfg.maintenance_branches or cfg.active_branches):
        return unverifiable(
            c,
            "scope",
            f"the config ({cfg.source}) names no active or maintenance branches; "
            'pass --config with preset = "torch_npu" (or your branches)',
        )
    if c.what == "maintenance":
        if cfg.is_maintenance(c.branch):
            return verified(c, "scope", f"{c.branch} is a maintenance branch in {cfg.source}")
        if c.branch in cfg.active_branches:
            return contradicted(
                c, "scope", f"{c.branch} is an active branch in {cfg.source}, not a maintenance one"
            )
        return unverifiable(c, "scope", f"{cfg.source} does not name {c.branch}")
    if cfg.is_maintenance(c.branch):
        return contradicted(
            c, "scope", f"{c.branch} is a maintenance branch in {cfg.source}: it takes no new tests"
        )
    if c.branch in cfg.active_branches:
        return verified(c, "scope", f"{c.branch} is an active branch in {cfg.source}")
    return unverifiable(c, "scope", f"{cfg.source} does not name {c.branch}")


def _release(value: str) -> list[str]:
    """``2.7.1.post2+cpu`` -> ['2', '7', '1', 'post2'] (the local ``+cpu`` part set aside)."""
    return [p for p in re.split(r"[.]", value.split("+", 1)[0].strip().lower()) if p]


def same_version(stated: str, probed: str) -> bool:
    a, b = stated.strip().lower(), probed.strip().lower()
    if a == b:
        return True
    if a in ("true", "false", "yes", "no", "是", "否") or b in ("true", "false"):
        return {"yes": "true", "是": "true", "no": "false", "否": "false"}.get(a, a) == b
    ra, rb = _release(a), _release(b)
    if not ra or not rb:
        return False
    if "+" in a and "+" in b and a.split("+", 1)[1] != b.split("+", 1)[1]:
        return False
    return rb[: len(ra)] == ra or ra[: len(rb)] == rb and len(ra) == len(rb)


def check_version(c: VersionClaim, f: Facts) -> Verdict | None:
    probes = [p for p in f.claims.probes if probe_key(p.key) == c.key]
    if not probes:
        return None
    for p in probes:
        if same_version(c.stated, p.value):
            return verified(c, "version", f"the probe prints {p.key}={p.value} (line {p.line})")
    shown = ", ".join(f"{p.key}={p.value} (line {p.line})" for p in probes[:3])
    return contradicted(c, "version", f"the probe output of this text prints {shown}")


def check_scope_and_versions(f: Facts) -> Iterator[Verdict]:
    for c in f.claims.scope:
        yield check_scope(c, f)
    for v in f.claims.versions:
        verdict = check_version(v, f)
        if verdict is not None:
            yield verdict
