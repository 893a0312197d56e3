"""The resolve-classify benchmark runs on a small list of names and prints its figures."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

#: it starts an agent with torch: the slow tier
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_bench_resolve_classify_small_list_prints_its_figures(tmp_path: Path) -> None:
    names = tmp_path / "names.txt"
    names.write_text(
        "torch.autograd.grad_mode.inference_mode.clone\n"
        "torch.cuda.synchronize  # no call of it works on a CPU build\n"
        "torch.nn.functional.relu\n"
        "torch.no_such_api_here\n"
    )
    out = tmp_path / "apis.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_resolve_classify.py"),
            *("--list", str(names), "--json", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    print(proc.stdout)
    assert "4 names, 3 resolved, 1 not" in proc.stdout
    assert "classified with no call sample given: 2/3 (66.7%)" in proc.stdout
    assert "trace from: probe 2 (1 classified), sample 1 (1 classified)" in proc.stdout
    assert re.search(
        r"1  no call: the facts probe found no working call: no call of API", proc.stdout
    )
    doc = json.loads(out.read_text())
    rows = {r["api"]: r for r in doc["apis"]}
    assert rows["torch.autograd.grad_mode.inference_mode.clone"]["source"] == "probe"
    assert doc["unresolved"] == ["torch.no_such_api_here"]
