"""One run's records seen from one target branch: what the PR to that branch states.

The community submits one PR per target branch. ``for_branch`` keeps, of a run's
records, the targets at that ref, the coverage of that ref (and of upstream),
the scaffold as written for it, and names the branch as the PR's target; the
docs check stays whole (the support pages are per PyTorch version, not per
branch). Rendering it is ``build_report([for_branch(run, ref)])``: still a pure
function of stored records.
"""

from __future__ import annotations

from dataclasses import replace

from ..records.run import RunRecords
from ..records.task import TaskRecord
from ..records.verify import VerifyRecord


def for_branch(run: RunRecords, ref: str) -> RunRecords:
    targets = tuple(t for t in run.targets if t.record.ref == ref)
    cov = run.coverage
    if cov is not None:
        cov = cov.replace(refs=tuple(r for r in cov.refs if r.upstream or r.ref == ref))
    sc = run.scaffold
    if sc is not None and ref in sc.refs:
        sc = sc.replace(refs=(ref,))
    task = run.task or TaskRecord(api=None)
    # the branch the PR is for: the one the user named (--target-branch) where the run is of one ref
    # (a commit id, say) or of that branch; else the ref itself
    refs = {t.record.ref for t in run.targets}
    given = task.target_branch
    task = task.replace(target_branch=given if given and (len(refs) <= 1 or ref == given) else ref)
    verify: VerifyRecord | None = run.verify
    if verify is not None:
        labels = {t.record.label for t in targets}
        verify = verify.replace(targets=tuple(t for t in verify.targets if t.label in labels))
    up = run.upstream
    if up is not None:  # the branch's official tests (and a PyTorch clone's), not another branch's
        up = up.replace(
            targets=tuple(t for t in up.targets if t.source != "backend" or t.ref == ref)
        )
    return replace(
        run, targets=targets, coverage=cov, scaffold=sc, task=task, verify=verify, upstream=up
    )


__all__ = ["for_branch"]
