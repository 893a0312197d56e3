"""Embedded verify of the seed API against the floor and the seed's way, interleaved in one run.

    python benchmarks/bench_verify.py [--rounds 5] [--api API] [--python PY]

Three ways, each a fresh process as a user starts it, run in rotated order every round:

* floor: ``python FILE -v`` of the test file verify scaffolds (what a run cannot go below: one
  interpreter, torch, torch's test framework, the tests);
* seed's way: three fresh interpreters, as the seed document ran it by hand: the environment
  probe, the whole file, the isolation probe (the selected tests from each start value of the
  grad mode);
* verify: ``torchparity verify API`` with no ``--repo`` (resolve, scaffold, probe, the file,
  the isolation probe, the dispatch trace, checklist, reports, evidence in the store).

The file is the one a first, untimed verify scaffolds. Prints medians and minimums, the load
average, and the two ratios (targets: verify <= 1.5x the floor, and >= 2x faster than the seed).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _interleave import check, header, interleaved, load, machine, median, row  # noqa: E402

from torchparity.exec.ship import isolated_env  # noqa: E402

API = "torch.autograd.grad_mode.set_grad_enabled.clone"

SEED_PROBE = textwrap.dedent(
    """
    import platform, sys, torch
    print("python_executable=" + sys.executable)
    print("python_version=" + platform.python_version())
    print("platform=" + platform.platform())
    print("torch_version=" + torch.__version__)
    print("torch_file=" + torch.__file__)
    print("cpu_available=True")
    print("initial_grad_enabled=" + str(torch.is_grad_enabled()))
    """
)

#: the seed's isolation probe: the API's tests, once from each start value, state before == after
SEED_ISOLATION = textwrap.dedent(
    """
    import importlib.util, sys, unittest, torch
    path, pattern = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("isolation_test_module", path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    def tests(suite):
        for t in suite:
            if isinstance(t, unittest.TestSuite):
                yield from tests(t)
            else:
                yield t
    chosen = [t for t in tests(unittest.defaultTestLoader.loadTestsFromModule(mod)) if pattern in t.id()]
    original, ok = torch.is_grad_enabled(), True
    print("PROCESS_ORIGINAL_GRAD_MODE=%s" % original)
    for initial in (False, True):
        torch.set_grad_enabled(initial)
        before = torch.is_grad_enabled()
        result = unittest.TextTestRunner(verbosity=2).run(unittest.TestSuite(chosen))
        after = torch.is_grad_enabled()
        torch.set_grad_enabled(original)
        ok = ok and result.wasSuccessful() and result.testsRun > 0 and before == after
        print("ISOLATION_RESULT=initial:%s,before:%s,after:%s,tests_run:%d,successful:%s"
              % (initial, before, after, result.testsRun, result.wasSuccessful()))
    sys.exit(0 if ok else 1)
    """
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="rounds (each runs every way once; default 5)"
    )
    parser.add_argument("--api", default=API, help=f"API to verify (default {API})")
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter with torch and torchparity"
    )
    args = parser.parse_args(argv)
    env = isolated_env()
    before = load()
    with tempfile.TemporaryDirectory(prefix="torchparity-bench-") as tmp:
        work = Path(tmp)
        verify = [
            args.python,
            "-m",
            "torchparity",
            "verify",
            args.api,
            "--store",
            str(work / "store"),
            "--out",
            str(work / "out"),
        ]
        first = subprocess.run(
            [*verify, "--json"], capture_output=True, text=True, cwd=work, env=env
        )
        check(first, "the first (untimed) verify")
        test_file = Path(json.loads(first.stdout)["outputs"]["test"])
        pattern = test_file.stem.removeprefix("test_")

        def run(argv: list[str], what: str) -> None:
            proc = subprocess.run(argv, capture_output=True, text=True, cwd=work, env=env)
            check(proc, what)

        ways = {
            "floor: python FILE -v": lambda: run([args.python, str(test_file), "-v"], "the floor"),
            "seed's way: probe, file, isolation (3 interpreters)": lambda: [
                run([args.python, "-c", SEED_PROBE], "the seed's probe"),
                run([args.python, str(test_file), "-v"], "the seed's full run"),
                run(
                    [args.python, "-c", SEED_ISOLATION, str(test_file), pattern],
                    "the seed's isolation probe",
                ),
            ],
            "torchparity verify (embedded, warm worker)": lambda: run(verify, "verify"),
        }
        times = interleaved(ways, args.rounds)
    floor, seed, ours = (times[k] for k in ways)
    print(f"machine: {machine(args.python)}; load average before: {before}, after: {load()}")
    print(f"API: {args.api}; test file: {test_file.name} (scaffolded, torch's TestCase)")
    print(f"rounds: {args.rounds}, the order rotated every round")
    print(header(52))
    for name, values in times.items():
        print(row(name, values, 52))
    print(
        f"verify / floor: {median(ours) / median(floor):.2f}x (median), "
        f"{min(ours) / min(floor):.2f}x (min)  [target <= 1.5x]"
    )
    print(
        f"seed's way / verify: {median(seed) / median(ours):.2f}x faster (median), "
        f"{min(seed) / min(ours):.2f}x (min)  [target >= 2x]"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
