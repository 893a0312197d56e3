"""The warm-worker benchmark runs (small N) and prints its figures; speed itself is not asserted here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow


ROOT = Path(__file__).resolve().parents[2]


def test_bench_warm_small_n_prints_ratio_and_overhead():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_warm.py"), "--n", "2"],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    print(proc.stdout)
    ratio = float(re.search(r"ratio: ([\d.]+)x", proc.stdout)[1])
    overhead = float(re.search(r"per-job overhead beyond test bodies: (-?[\d.]+) ms", proc.stdout)[1])
    assert "(8 interpreters)" in proc.stdout and "(6 jobs" in proc.stdout
    assert ratio > 0 and overhead > -1000
