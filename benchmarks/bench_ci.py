"""The whole CI (``.ci/run``) on a clean clone of a commit, with each part's seconds and the slowest tests.

    python benchmarks/bench_ci.py [--rev HEAD] [--keep] [--top 15]

Clones the repo at ``--rev`` into a temporary folder (``git clone``: only what is committed), runs
``bash .ci/run`` there as CI does (``CI=true``, no standard input), and prints each part's seconds as
``.ci/run`` reports them (the README's test command, mypy, ruff), each pytest tier's own seconds and
counts, and the slowest tests of each tier (from ``TORCHPARITY_TEST_TIMES``, tests/conftest.py).
Targets (issue 33): the fast tier <= 60 s, the whole CI <= 20 min, on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIER = re.compile(r"^=*\s*(?P<counts>\d+ passed.*?) in (?P<secs>[\d.]+)s")


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rev", default="HEAD", help="the commit to clone (default HEAD)")
    parser.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    parser.add_argument(
        "--top", type=int, default=15, help="how many of the slowest tests to list (default 15)"
    )
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="torchparity-ci-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", args.rev], check=True)
    times = work / "test-times.tsv"
    env = dict(os.environ, CI="true", TORCHPARITY_TEST_TIMES=str(times))
    env.pop("VIRTUAL_ENV", None)
    print(
        f"load average before: {_load()} ({os.cpu_count()} cores); clone of {args.rev} at {clone}"
    )
    started = time.monotonic()
    proc = subprocess.run(
        ["bash", ".ci/run"],
        cwd=clone,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    total = time.monotonic() - started
    print(f"load average after: {_load()}")
    for line in proc.stdout.splitlines():
        if line.startswith("ci: ") or TIER.match(line):
            print(line)
    print(f"exit {proc.returncode}; the whole CI took {total:.0f} s ({total / 60:.1f} min)")
    if proc.returncode != 0:
        print(proc.stdout[-4000:] + proc.stderr[-4000:], file=sys.stderr)
    if times.exists():
        per_test: dict[str, float] = defaultdict(float)
        for row in times.read_text().splitlines():
            secs, _when, _outcome, nodeid = row.split("\t", 3)
            per_test[nodeid] += float(secs)
        print(f"{args.top} slowest tests (setup + call + teardown):")
        for nodeid, secs in sorted(per_test.items(), key=lambda kv: -kv[1])[: args.top]:
            print(f"  {secs:7.1f} s  {nodeid}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
