"""Warm worker vs the seed's way: N small test files with the isolation probe, interleaved.

    python benchmarks/bench_warm.py [--n 10] [--rounds 3] [--python PY]

Two kinds of file, N of each: built on torch's ``TestCase``/``run_tests`` (as every backend test
file is, directly or through the backend's TestCase: its ``TestCase.run`` imports the compiler
in every test), and plain ``unittest``. For each kind, run in rotated order every round:

* the seed's way: three fresh interpreters per file (the environment probe, the whole file, the
  isolation probe from both start values of the grad mode), as contributors run it by hand;
* the warm worker: one interpreter (torch, its test framework and compiler imported once), a
  forked child per job (probe, whole file, isolation probe per file);
* for the TestCase files also ``torchparity run FILES --isolation --state grad_mode`` end to end
  (the probe once, then each file and its isolation probe; the store, the evidence logs).

Prints medians and minimums, the load average, the ratios (target: >= 15x for the TestCase files)
and the per-job overhead beyond the test bodies (target: <= 50 ms): the worker's wall time minus
its start minus the runner's own "Ran N tests in Xs" figures, over the jobs.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _interleave import check, header, interleaved, load, machine, median, row  # noqa: E402
from bench_verify import SEED_ISOLATION, SEED_PROBE  # noqa: E402

from torchparity.exec import Job, WarmWorker  # noqa: E402
from torchparity.exec.ship import isolated_env  # noqa: E402

BODY = """
    def test_set_grad_enabled_clone(self):
        initial = torch.is_grad_enabled()
        with torch.set_grad_enabled(initial):
            for mode in (False, True):
                cloned = torch.set_grad_enabled(mode).clone()
                self.assertEqual(cloned.mode, mode)
        self.assertEqual(torch.is_grad_enabled(), initial)

    def test_add(self):
        self.assertEqual(torch.add(torch.ones(3), {i}).tolist(), [{i} + 1.0] * 3)
"""

TESTCASE_FILE = (
    """
import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestSmall{i}(TestCase):"""
    + BODY
    + """

if __name__ == "__main__":
    run_tests()
"""
)

PLAIN_FILE = (
    """
import unittest
import torch


class TestSmall{i}(unittest.TestCase):"""
    + BODY
    + """

if __name__ == "__main__":
    unittest.main()
"""
)

_RAN = re.compile(r"Ran \d+ tests? in ([\d.]+)s")


def _body_seconds(output: str) -> float:
    return sum(float(s) for s in _RAN.findall(output))


class Measured:
    """What the last warm-worker run spent besides the wall time (for the per-job overhead)."""

    def __init__(self) -> None:
        self.startup = 0.0
        self.body = 0.0
        self.jobs = 0


def seed_way(python: str, files: list[Path]) -> None:
    env = isolated_env()
    for f in files:
        for argv in (
            [python, "-c", SEED_PROBE],
            [python, str(f), "-v"],
            [python, "-c", SEED_ISOLATION, str(f), "test_"],
        ):
            check(
                subprocess.run(argv, env=env, capture_output=True, text=True, cwd=f.parent),
                f"seed step {argv[1]}",
            )


def warm_way(python: str, files: list[Path], logs: Path, measured: Measured) -> None:
    worker = WarmWorker(python, "", "auto", logs)
    started = time.perf_counter()
    worker.start()
    measured.startup = time.perf_counter() - started
    measured.body, measured.jobs = 0.0, 0
    try:
        for i, f in enumerate(files):
            for op, args in (
                ("probe", {}),
                ("run_file", {"path": str(f), "argv": ["-v"]}),
                ("isolation", {"path": str(f), "state": "grad_mode", "patterns": ["test_"]}),
            ):
                res = worker.run(
                    Job(op, args, logs / f"{i}-{op}.log", timeout=120, cwd=str(f.parent))
                )
                if res.status != "OK":
                    raise SystemExit(f"warm job {op} failed on {f}:\n{res.output}")
                measured.body += _body_seconds(res.output)
                measured.jobs += 1
    finally:
        worker.close()


def run_verb(python: str, files: list[Path], store: Path) -> None:
    argv = [
        python,
        "-m",
        "torchparity",
        "run",
        *map(str, files),
        "--isolation",
        "--state",
        "grad_mode",
        "-k",
        "test_",
        "--store",
        str(store),
    ]
    check(
        subprocess.run(
            argv, capture_output=True, text=True, cwd=files[0].parent, env=isolated_env()
        ),
        "torchparity run",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=10, help="test files of each kind (default 10)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds (each runs every way once; default 3)"
    )
    parser.add_argument("--python", default=sys.executable, help="interpreter with torch")
    args = parser.parse_args(argv)
    before = load()
    results: dict[str, tuple[dict[str, list[float]], list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="torchparity-bench-") as tmp:
        root = Path(tmp)
        for kind, text in (("TestCase", TESTCASE_FILE), ("plain", PLAIN_FILE)):
            folder = root / kind / "tests"
            folder.mkdir(parents=True)
            files = []
            for i in range(args.n):
                f = folder / f"test_small_{i}.py"
                f.write_text(text.format(i=i))
                files.append(f)
            measured = Measured()
            overheads: list[float] = []

            def warm(
                files: list[Path] = files,
                measured: Measured = measured,
                kind: str = kind,
                overheads: list[float] = overheads,
            ) -> None:
                started = time.perf_counter()
                warm_way(args.python, files, root / kind / "logs", measured)
                wall = time.perf_counter() - started
                overheads.append((wall - measured.startup - measured.body) / measured.jobs)

            ways = {
                f"{kind}: seed's way ({3 * args.n} interpreters)": lambda files=files: seed_way(
                    args.python, files
                ),
                f"{kind}: warm worker ({3 * args.n} jobs)": warm,
            }
            if kind == "TestCase":
                ways[f"{kind}: torchparity run ({2 * args.n + 1} jobs)"] = (
                    lambda files=files, kind=kind: run_verb(
                        args.python, files, root / kind / "store"
                    )
                )
            results[kind] = (interleaved(ways, args.rounds), overheads)
    print(f"machine: {machine(args.python)}; load average before: {before}, after: {load()}")
    print(f"files: {args.n} of each kind; rounds: {args.rounds}, the order rotated every round")
    print(header(44))
    for times, _ in results.values():
        for name, values in times.items():
            print(row(name, values, 44))
    for kind, (times, overheads) in results.items():
        seed, warm, *verb = times.values()
        line = (
            f"ratio ({kind}): seed's way / warm worker {median(seed) / median(warm):.1f}x (median), "
            f"{min(seed) / min(warm):.1f}x (min)"
        )
        if verb:
            line += f"; seed's way / torchparity run {median(seed) / median(verb[0]):.1f}x (median)"
        print(line + ("  [target >= 15x]" if kind == "TestCase" else ""))
        print(
            f"per-job overhead beyond test bodies ({kind}): {median(overheads) * 1000:.1f} ms (median), "
            f"{min(overheads) * 1000:.1f} ms (min)  [target <= 50 ms]"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
