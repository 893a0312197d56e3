"""Warm worker vs the seed's way: N small CPU test files in one environment, side by side.

The seed's way (what contributors run by hand today) starts a new interpreter
for every step of every file: the environment probe, the full test file, and
one isolation run per grad-mode start value (4 interpreters per file).
torchparity's warm worker imports torch once and forks a child per job:
probe, full run and the isolation probe (both start values in one job).

    python benchmarks/bench_warm.py [--n 20] [--python PY]

Prints both wall times, the ratio and the per-job overhead beyond the test
bodies (wall time minus worker start minus the runner's own "Ran N tests in
Xs" figures, over the number of jobs).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from torchparity.exec import Job, WarmWorker
from torchparity.exec.ship import isolated_env

TEST_FILE = '''
import unittest
import torch


class TestSmall{i}(unittest.TestCase):
    def test_set_grad_enabled_clone(self):
        initial = torch.is_grad_enabled()
        with torch.set_grad_enabled(initial):
            for mode in (False, True):
                cloned = torch.set_grad_enabled(mode).clone()
                self.assertEqual(cloned.mode, mode)
        self.assertEqual(torch.is_grad_enabled(), initial)

    def test_add(self):
        self.assertEqual(torch.add(torch.ones(3), {i}).tolist(), [{i} + 1.0] * 3)


if __name__ == "__main__":
    unittest.main()
'''

SEED_PROBE = (
    "import sys, platform, torch; "
    "print('python_executable=' + sys.executable); print('torch_version=' + torch.__version__); "
    "print('initial_grad_enabled=' + str(torch.is_grad_enabled()))"
)

SEED_ISOLATION = textwrap.dedent(
    """
    import importlib.util, sys, unittest, torch
    path, initial = sys.argv[1], sys.argv[2] == "True"
    spec = importlib.util.spec_from_file_location("isolation_module", path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    torch.set_grad_enabled(initial)
    before = torch.is_grad_enabled()
    suite = unittest.defaultTestLoader.loadTestsFromModule(mod)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    after = torch.is_grad_enabled()
    print("ISOLATION_RESULT=initial:%s,before:%s,after:%s,tests_run:%d,successful:%s"
          % (initial, before, after, result.testsRun, result.wasSuccessful()))
    sys.exit(0 if result.wasSuccessful() and before == after else 1)
    """
)

_RAN = re.compile(r"Ran \d+ tests? in ([\d.]+)s")


def _body_seconds(output: str) -> float:
    return sum(float(s) for s in _RAN.findall(output))


def seed_way(python: str, files: list[Path]) -> tuple[float, float, int]:
    env = isolated_env()
    body = 0.0
    started = time.perf_counter()
    for f in files:
        steps = [
            [python, "-c", SEED_PROBE],
            [python, str(f), "-v"],
            [python, "-c", SEED_ISOLATION, str(f), "False"],
            [python, "-c", SEED_ISOLATION, str(f), "True"],
        ]
        for argv in steps:
            proc = subprocess.run(argv, env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"seed step failed: {argv[:3]}\n{proc.stdout}{proc.stderr}")
            body += _body_seconds(proc.stdout + proc.stderr)
    return time.perf_counter() - started, body, 4 * len(files)


def warm_way(python: str, files: list[Path], logs: Path) -> tuple[float, float, int, float]:
    body = 0.0
    jobs = 0
    started = time.perf_counter()
    worker = WarmWorker(python, "", "auto", logs)
    worker.start()
    startup = time.perf_counter() - started
    try:
        for i, f in enumerate(files):
            for op, args in (
                ("probe", {}),
                ("run_file", {"path": str(f), "argv": ["-v"]}),
                ("isolation", {"path": str(f), "state": "grad_mode", "patterns": []}),
            ):
                res = worker.run(Job(op, args, logs / f"{i}-{op}.log", timeout=120, cwd=str(f.parent)))
                if res.status != "OK":
                    raise SystemExit(f"warm job {op} failed on {f}:\n{res.output}")
                body += _body_seconds(res.output)
                jobs += 1
    finally:
        worker.close()
    return time.perf_counter() - started, body, jobs, startup


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20, help="number of test files (default 20)")
    parser.add_argument("--python", default=sys.executable, help="interpreter with torch")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="torchparity-bench-") as tmp:
        root = Path(tmp)
        files = []
        for i in range(args.n):
            f = root / "tests" / f"test_small_{i}.py"
            f.parent.mkdir(exist_ok=True)
            f.write_text(TEST_FILE.format(i=i))
            files.append(f)
        seed_s, seed_body, seed_jobs = seed_way(args.python, files)
        warm_s, warm_body, warm_jobs, startup = warm_way(args.python, files, root / "logs")
    overhead_ms = (warm_s - startup - warm_body) / warm_jobs * 1000
    print(f"files: {args.n}  python: {args.python}")
    print(f"seed way (new interpreter per step): {seed_s:8.2f} s  ({seed_jobs} interpreters)")
    print(f"warm worker (fork per job):          {warm_s:8.2f} s  ({warm_jobs} jobs, worker start {startup:.2f} s)")
    print(f"ratio: {seed_s / warm_s:.1f}x faster")
    print(f"per-job overhead beyond test bodies: {overhead_ms:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
