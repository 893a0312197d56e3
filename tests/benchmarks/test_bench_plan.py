"""The plan benchmark runs on its generated repo (torch.optim only, one round) and prints its figures;
speed is not asserted here (the README reports the whole surface on a real backend repo)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

#: it starts interpreters with torch: the slow tier
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_bench_plan_small_prints_its_figures() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_plan.py"),
            *("--module", "torch.optim", "--rounds", "1"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    print(proc.stdout)
    assert re.search(r"warm plan 1: [\d.]+ s wall \(surface [\d.]+ s, pages", proc.stdout)
    found = re.search(
        r"surface: ([\d,]+) APIs \(([\d,]+) missing, 1 unsupported, 1 documented\)", proc.stdout
    )
    assert found and int(found[1].replace(",", "")) > 50
    same = re.search(r"same answers: ([\d,]+)/([\d,]+)", proc.stdout)
    assert same and same[1] == same[2]
