"""The docs benchmark runs on a small generated set and prints its figures; speed is not asserted here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # runs the benchmark script in its own interpreter


def test_bench_docs_small_set_prints_its_figures():
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_docs.py"),
            "--mb",
            "0.3",
            "--repeat",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    print(proc.stdout)
    pages = re.search(r"pages: (\d+) in 4 versions, [\d.]+ MB, (\d+) entries", proc.stdout)
    assert pages and int(pages[1]) > 0 and int(pages[2]) > int(pages[1])
    assert re.search(r"parse all pages: best [\d.]+ s wall", proc.stdout)
    assert re.search(r", 0 finding\(s\)", proc.stdout)
