"""The speed benchmarks run (small sizes, one round) and print their figures; speed itself is not asserted here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow


ROOT = Path(__file__).resolve().parents[2]


def _bench(name: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), *args],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    print(proc.stdout)
    assert "load average before:" in proc.stdout
    return proc.stdout


def test_bench_warm_small_n_prints_ratios_and_overheads():
    out = _bench("bench_warm.py", "--n", "2", "--rounds", "1")
    assert (
        "TestCase: seed's way (6 interpreters)" in out and "TestCase: warm worker (6 jobs)" in out
    )
    assert (
        "TestCase: torchparity run (5 jobs)" in out and "plain: seed's way (6 interpreters)" in out
    )
    for kind in ("TestCase", "plain"):
        ratio = float(re.search(rf"ratio \({kind}\): seed's way / warm worker ([\d.]+)x", out)[1])
        overhead = float(
            re.search(rf"per-job overhead beyond test bodies \({kind}\): (-?[\d.]+) ms", out)[1]
        )
        assert ratio > 0 and overhead > -1000


def test_bench_verify_one_round_prints_both_ratios():
    out = _bench("bench_verify.py", "--rounds", "1")
    assert re.search(r"verify / floor: [\d.]+x \(median\)", out)
    assert re.search(r"seed's way / verify: [\d.]+x faster \(median\)", out)
