"""Every generated text read back as ``review`` reads a PR, each claim held against the run's records.

``self_review`` parses a rendered text with ``review``'s own extraction (``parse_text``) and checks
every claim it finds against the report model the text was rendered from: outcome sentences (targets
passed, a target's result and counts, consistency, docs complete, stale entries, direct tests), runner
output blocks, SHA-256 digests and commits, versions, the target branch and the docs entries. A claim
the records contradict is a bug in the text: ``ensure_true`` raises ``TextContradicted`` (exit 4)
naming the sentence and the fact, and the caller writes nothing.

A claim the records cannot settle (a digest of a file in the repository, a grep count) is left
unverifiable here; ``review --repo`` checks those against the repository.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ExitCode, TorchparityError
from ..review.checks.runs import _result as runner_result
from ..review.checks.scope import same_version
from ..review.parse import parse_text
from ..review.records import (
    CONTRADICTED,
    DocsClaim,
    DocsStatusClaim,
    OutcomeClaim,
    ScopeClaim,
    TestRunClaim,
    Verdict,
    VersionClaim,
    contradicted,
    unverifiable,
    verified,
)
from .model import ReportModel
from .render import render

_HEX40 = re.compile(r"\b[0-9a-f]{40}\b")
_HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
_HEX = re.compile(r"\b[0-9a-f]{12,64}\b")


class TextContradicted(TorchparityError):
    """A generated text states what its own records contradict: a bug, the text is not written."""

    exit_code = ExitCode.INTERNAL_ERROR


@dataclass(frozen=True)
class SelfReview:
    """The verdict on every claim of one generated text."""

    name: str
    verdicts: tuple[Verdict, ...]

    @property
    def contradicted(self) -> list[Verdict]:
        """The claims the records contradict (none: the text may be written)."""
        return [v for v in self.verdicts if v.verdict == CONTRADICTED]


class _Records:
    """The facts of one report model that claims are held against."""

    def __init__(self, model: Mapping[str, Any]) -> None:
        self.m = model
        self.targets: list[dict[str, Any]] = list(model.get("targets") or [])
        self.official: dict[str, Any] = dict(model.get("official") or {})
        blob = json.dumps(model, ensure_ascii=False)
        self.digests = set(_HEX64.findall(blob))
        self.commits = set(_HEX40.findall(blob))
        self.hexes = set(_HEX.findall(blob))
        self.runs = _runner_blocks(
            [str(t.get("log") or "") for t in self.targets]
            + [str(x.get("log") or "") for x in self._official_targets()]
        )

    def _official_targets(self) -> list[dict[str, Any]]:
        return [t for t in self.official.get("targets") or [] if isinstance(t, dict)]

    def target(self, label: str) -> list[dict[str, Any]]:
        """The targets a claim is about: the one its heading names, else every target."""
        named = [t for t in self.targets if t.get("label") == label]
        return named or self.targets


def _runner_blocks(logs: Sequence[str]) -> set[tuple[str, int | None, str]]:
    out: set[tuple[str, int | None, str]] = set()
    for log in logs:
        if log:
            out |= _blocks_of(log)
    return out


@functools.lru_cache(maxsize=256)
def _blocks_of(log: str) -> frozenset[tuple[str, int | None, str]]:
    """(runner, ran, status) of every runner output in one log (a run's texts all quote the same logs)."""
    return frozenset((r.runner, r.ran, r.status) for r in parse_text(log).runs)


def _numbers(c: OutcomeClaim) -> dict[str, int]:
    return dict(c.numbers)


def _stated(c: OutcomeClaim) -> str:
    return ", ".join(f"{k} {v}" for k, v in c.numbers) or c.state or c.subject


def _any(
    c: OutcomeClaim, targets: list[dict[str, Any]], facts: Any, holds: Any, what: str
) -> Verdict:
    """Verified when the fact holds for one of ``targets`` (the one the heading names, if any)."""
    seen = [facts(t) for t in targets]
    if any(holds(t) for t in targets):
        return verified(c, "outcome", f"{what}: {_stated(c)}, as the records hold")
    shown = "; ".join(f"{t.get('label')}: {s}" for t, s in zip(targets, seen, strict=True))
    return contradicted(c, "outcome", f"{what}: the text says {_stated(c)}; the records: {shown}")


def _counts_of(t: dict[str, Any], api: bool) -> dict[str, int]:
    return dict((t.get("api_counts") if api else t.get("counts")) or {})


def _check_outcome(c: OutcomeClaim, r: _Records) -> Verdict | None:
    n = _numbers(c)
    targets = r.target(c.label)
    m = r.m
    conclusion = m.get("conclusion") or {}
    if c.subject in ("all_targets", "some_targets"):
        results = [t.get("result") for t in r.targets]
        fact = (results.count("PASS"), len(results))
        if fact == (n["passed"], n["total"]):
            return verified(c, "outcome", f"{fact[0]} of {fact[1]} targets passed")
        each = ", ".join(f"{t.get('label')} {t.get('result')}" for t in r.targets)
        return contradicted(
            c,
            "outcome",
            f"the text says {n['passed']} of {n['total']} targets passed; the records: "
            f"{fact[0]} of {fact[1]} ({each})",
        )
    if c.subject in ("tests", "passed_of"):

        def pair(t: dict[str, Any]) -> str:
            a, b = _counts_of(t, True), _counts_of(t, False)
            return f"API tests {a.get('passed')}/{a.get('total')}, all tests {b.get('passed')}/{b.get('total')}"

        def holds(t: dict[str, Any]) -> bool:
            return any(
                (x.get("passed"), x.get("total")) == (n["passed"], n["total"])
                for x in (_counts_of(t, True), _counts_of(t, False))
                if x
            )

        return _any(c, targets, pair, holds, "tests passed")
    if c.subject in ("api_ran", "api_counts", "counts"):
        api = c.subject != "counts"
        return _any(
            c,
            targets,
            lambda t: ", ".join(f"{k} {_counts_of(t, api).get(k)}" for k in n),
            lambda t: all(_counts_of(t, api).get(k) == v for k, v in n.items()),
            "the API's tests" if api else "tests",
        )
    if c.subject == "result":
        return _any(
            c,
            targets,
            lambda t: str(t.get("result")),
            lambda t: t.get("result") == c.state,
            "result",
        )
    if c.subject == "consistent":
        official_failed = r.official.get("result") == "FAIL"
        why = [
            w
            for w, bad in (
                (f"the result is {m.get('result')}", m.get("result") != "PASS"),
                ("no target ran", not r.targets),
                ("every target ran on an emulated device", bool(conclusion.get("emulated_only"))),
                (
                    "targets ran on a torch the branch does not target",
                    bool(conclusion.get("version_allowed")),
                ),
                ("PyTorch's official tests failed", official_failed),
            )
            if bad
        ]
        if why:
            return contradicted(
                c, "outcome", "the evidence supports no consistency: " + "; ".join(why)
            )
        return verified(c, "outcome", "every target passed on its environment")
    if c.subject == "docs_complete":
        docs = m.get("docs") or {}
        check = docs.get("check") or {}
        added = [
            x.get("version")
            for x in (docs.get("add") or {}).get("changes") or []
            if x.get("action") == "added"
        ]
        missing = list(check.get("missing_versions") or [])
        if added or missing:
            said = (f"this run added entries in {', '.join(map(str, added))}" if added else "") or (
                f"no entry in {', '.join(map(str, missing))}"
            )
            return contradicted(c, "outcome", f"the docs need a change: {said}")
        if not check:
            return unverifiable(c, "outcome", "no docs check in the records")
        return verified(c, "outcome", "every version's page has an entry and none was added")
    if c.subject == "docs_box":
        changes = ((m.get("docs") or {}).get("add") or {}).get("changes") or []
        wrote = [str(x.get("version")) for x in changes if x.get("action") == "added"]
        if c.state == "unchecked" and wrote:
            return contradicted(
                c, "outcome", f"the box is not ticked; this run added docs entries in {wrote}"
            )
        return None
    if c.subject == "stale_entry":
        official = r._official_targets()
        stale = [t for t in official if t.get("stale")]
        if any(not t.get("emulated") for t in stale):
            return verified(c, "outcome", "a stale entry found on a device that is not emulated")
        found = "found on an emulated device only" if stale else "no stale entry in the records"
        return contradicted(c, "outcome", f"no stale disabled entry on hardware: {found}")
    if c.subject == "direct":
        refs = (m.get("coverage") or {}).get("refs") or []
        counts = [len(x.get("direct") or []) for x in refs]
        if n["total"] in counts:
            return verified(c, "outcome", f"{n['total']} direct test(s) in the coverage record")
        return contradicted(c, "outcome", f"the coverage record's direct tests per ref: {counts}")
    return None


def _check_run(c: TestRunClaim, r: _Records) -> Iterator[Verdict]:
    inner = runner_result(c)
    if inner is not None and inner.verdict == CONTRADICTED:
        yield inner
    if c.ran is None and not c.status:
        return
    if (c.runner, c.ran, c.status) in r.runs:
        yield verified(c, "test.result", "a run of the records printed this output")
        return
    yield contradicted(
        c,
        "test.result",
        f"no log of the records holds a {c.runner} run of {c.ran} test(s) ending {c.status or '(none)'}",
    )


def _check_version(c: VersionClaim, r: _Records) -> Verdict | None:
    key = {
        "torch": "torch_version",
        "backend": "backend_version",
        "python": "python_version",
        "device_count": "device_count",
        "device_available": "device_available",
    }.get(c.key)
    if key is None or not r.targets:
        return None
    if key.endswith("_version") and not re.search(r"\d", c.stated):
        return None  # "未采集" / "not collected": no version stated
    values = [t.get(key) for t in r.targets]
    if any(v is not None and same_version(c.stated, str(v)) for v in values):
        return verified(c, "version", f"{c.key} {c.stated} is a target's")
    if all(v is None for v in values):
        return unverifiable(c, "version", f"no target's record holds {c.key}")
    return contradicted(c, "version", f"{c.key} per target: {values}")


def _check_scope(c: ScopeClaim, r: _Records) -> Verdict | None:
    if c.what != "target":
        return None
    b = r.m.get("branches") or {}
    known = {b.get("target"), *(b.get("targets") or []), *(t.get("ref") for t in r.targets)}
    if c.branch in known:
        return verified(c, "scope", f"{c.branch} is a branch of the run")
    return contradicted(c, "scope", f"the run's branches: {sorted(x for x in known if x)}")


def _docs_versions(r: _Records) -> dict[str, dict[str, Any]]:
    check = (r.m.get("docs") or {}).get("check") or {}
    return {str(v.get("version")): v for v in check.get("versions") or []}


def _check_docs(c: DocsClaim, r: _Records) -> Verdict | None:
    versions = _docs_versions(r)
    if not versions:
        return None
    named = [versions[v] for v in c.versions if v in versions] or list(versions.values())
    added = {
        str(x.get("version"))
        for x in ((r.m.get("docs") or {}).get("add") or {}).get("changes") or []
        if x.get("action") == "added"
    }
    if c.present:
        bad = [
            str(v.get("version"))
            for v in named
            if v.get("present") is False and str(v.get("version")) not in added
        ]
    else:
        bad = [str(v.get("version")) for v in named if v.get("present")]
    if bad:
        return contradicted(
            c,
            "docs",
            f"the docs check has {'no' if c.present else 'an'} entry in {', '.join(bad)}",
        )
    return verified(c, "docs", "as the docs check records")


def _check_status(c: DocsStatusClaim, r: _Records) -> Verdict | None:
    versions = _docs_versions(r)
    named = [versions[v] for v in c.versions if v in versions] or list(versions.values())
    cells = [
        p
        for v in named
        for p in (v.get("products") or {}).values()
        if c.product in (p.get("name") or "") or (p.get("name") or "") in c.product
    ]
    if not cells:
        return None
    if any(p.get("supported") is c.supported for p in cells):
        return verified(c, "docs.status", "as the docs check records")
    return contradicted(
        c, "docs.status", f"the docs check records {[p.get('status') for p in cells]}"
    )


def self_review(model: ReportModel | Mapping[str, Any], text: str, name: str = "") -> SelfReview:
    """Every claim of ``text`` held against ``model`` (the records it was rendered from)."""
    doc = model.to_json() if isinstance(model, ReportModel) else model
    r = _Records(doc)
    claims = parse_text(text)
    out: list[Verdict | None] = []
    out += [_check_outcome(c, r) for c in claims.outcomes]
    for run in claims.runs:
        out += list(_check_run(run, r))
    for c in claims.sha256:
        known = c.digest in r.digests
        out.append(
            verified(c, "sha256", "a digest the records hold")
            if known
            else unverifiable(c, "sha256", "not in the records (a file of the repository?)")
        )
    for e in claims.evidence:
        if any(str(t.get("log_sha256") or "").startswith(e.digest) for t in r.targets):
            out.append(verified(e, "evidence", "a target's evidence log"))
        elif any(x.startswith(e.digest) for x in r.hexes):
            out.append(verified(e, "evidence", "a run or record the text names"))
        else:
            out.append(contradicted(e, "evidence", "no evidence log or run of the records has it"))
    for cm in claims.commits:
        hit = any(x.startswith(cm.sha) for x in r.commits)
        out.append(
            verified(cm, "commit", "a commit the records hold")
            if hit
            else contradicted(cm, "commit", "no commit of the records starts so")
        )
    out += [_check_version(v, r) for v in claims.versions]
    out += [_check_scope(s, r) for s in claims.scope]
    out += [_check_docs(d, r) for d in claims.docs]
    out += [_check_status(d, r) for d in claims.docs_status]
    verdicts = tuple(v for v in out if v is not None)
    return SelfReview(name, tuple(sorted(verdicts, key=lambda v: v.line)))


def ensure_true(model: ReportModel | Mapping[str, Any], text: str, name: str) -> str:
    """``text`` when no claim of it is contradicted; else ``TextContradicted`` naming the first."""
    review = self_review(model, text, name)
    if review.contradicted:
        v = review.contradicted[0]
        more = len(review.contradicted) - 1
        raise TextContradicted(
            f"{name}:{v.line}: the text says {_quote(v.text)} but the run's records say: {v.detail}"
            + (f" (and {more} more contradicted claim(s))" if more else "")
            + "; not written: this is a bug in torchparity's texts, please report it with --debug"
        )
    return text


#: the report kinds written as prose (JSON and JUnit are the records themselves, not sentences)
PROSE_KINDS = ("pr", "comment", "markdown-summary")


def render_checked(
    model: ReportModel, kind: str, lang: str = "zh", name: str = "", **options: Any
) -> str:
    """``render`` of one kind, its every claim held against ``model`` first (prose kinds)."""
    text = render(model, kind, lang, **options)
    if kind in PROSE_KINDS:
        ensure_true(model, text, name or f"{kind} ({lang})")
    return text


def _quote(text: str, n: int = 120) -> str:
    one = " ".join(text.split())
    return repr(one if len(one) <= n else one[: n - 1] + "…")
