"""The batch benchmark runs (small N) and prints its figures; speed itself is not asserted here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_bench_batch_small_n_prints_ratio_and_what_was_shared():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_batch.py"), "--n", "2", "--pairs", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    print(proc.stdout)
    assert re.search(r"ratio: [\d.]+x faster \(medians\); per pair: [\d.]+x", proc.stdout)
    assert (
        "batch shared: resolve_jobs=1, coverage_builds=1, checkouts=2, runners_started="
        in proc.stdout
    )
