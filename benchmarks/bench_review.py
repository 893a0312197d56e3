"""Review real merged PR descriptions of a backend repository and list every contradicted claim.

    TORCHPARITY_BACKEND_REPO=/path/to/Ascend-pytorch PYTHONPATH=src python benchmarks/bench_review.py
    ... bench_review.py --limit 40 --json out.json     # the 40 newest API-consistency PRs, verdicts as JSON
    ... bench_review.py --commit SHA [--commit SHA]    # these squash commits only

The merge bot of Ascend/pytorch squashes each PR into one commit whose message
carries the whole PR description (``# message auto-generated for no-merge-commit
merge``). Each such commit is reviewed as ``torchparity review - --merge SHA``
with the commit's own message as the text; nothing of the repository's text is
written anywhere but to stdout (and to --json when asked). API-consistency PRs
(the message names 一致性 / API Consistency) come first, newest first.
Configuration: the torch_npu preset (its active and maintenance branches).
Timing: time.perf_counter per review, wall clock.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

from torchparity.config import load_preset
from torchparity.gitrepo import git
from torchparity.review import review_text
from torchparity.review.repo import bot_squash_commits


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repo", default=os.environ.get("TORCHPARITY_BACKEND_REPO"))
    ap.add_argument("--limit", type=int, default=40)
    ap.add_argument("--commit", action="append", default=[])
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--all-rows", action="store_true", help="print every verdict, not only the contradicted"
    )
    args = ap.parse_args(argv)
    if not args.repo:
        print(
            "set TORCHPARITY_BACKEND_REPO or pass --repo (a clone of Ascend/pytorch)",
            file=sys.stderr,
        )
        return 2
    repo = Path(args.repo)
    cfg = load_preset("torch_npu")
    if args.commit:
        picked = [(c, git(repo, "log", "-1", "--format=%B", c).text) for c in args.commit]
    else:
        picked = bot_squash_commits(repo)[: args.limit]
    totals: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    times = []
    report = []
    for sha, body in picked:
        t0 = time.perf_counter()
        result = review_text(body, repo, cfg, merge=sha, source=sha)
        times.append(time.perf_counter() - t0)
        s = result.summary()
        totals.update({k: s[k] for k in ("claims", "verified", "contradicted", "unverifiable")})
        kinds.update(v.kind for v in result.verdicts)
        title = body.strip().splitlines()[0][:70]
        print(
            f"{sha[:12]} {s['claims']:3} claims {s['verified']:3} verified {s['contradicted']:2} contradicted "
            f"{s['unverifiable']:3} unverifiable  {times[-1]:5.2f}s  {title}"
        )
        for v in result.verdicts:
            if args.all_rows or v.verdict == "contradicted":
                print(
                    f"    {v.verdict[:6]} L{v.line} [{v.kind}] {v.text[:90]}\n           -> {v.detail}"
                )
        report.append({"commit": sha, **result.to_json()})
    n = len(picked)
    print(
        f"\n{n} PR texts: {totals['claims']} claims, {totals['verified']} verified, "
        f"{totals['contradicted']} contradicted, {totals['unverifiable']} unverifiable"
    )
    print("by kind: " + ", ".join(f"{k} {c}" for k, c in kinds.most_common()))
    if times:
        print(
            f"time per review: median {sorted(times)[n // 2]:.2f}s, max {max(times):.2f}s, total {sum(times):.1f}s"
        )
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
