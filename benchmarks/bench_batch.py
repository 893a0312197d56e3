"""batch vs a loop of verify: N APIs x 2 refs on this machine, pairs interleaved.

The script builds its own backend repo with real git (branches master and
v2.11.0, one test file per API holding a direct test of it), then times, per
pair, one ``torchparity batch TASKS`` and N sequential ``torchparity verify API``
calls (the loop a user would script), each from a fresh store, alternating
which goes first. Both run the same stages on the same targets with the test
interpreter (this one, with torch), CLI start included.

    python benchmarks/bench_batch.py [--n 20] [--pairs 2] [--python PY] [--jobs 0] [--style unittest]

Prints every timing, the medians, the ratio (loop / batch) of the medians and of
each pair (the load of a shared machine drifts between pairs), and what the batch
shared (resolve jobs, coverage builds, checkouts, warm workers started).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: (API, a call that returns a tensor of the input's shape)
APIS = [
    ("torch.add", "torch.add(x, 1)"),
    ("torch.sub", "torch.sub(x, 1)"),
    ("torch.mul", "torch.mul(x, 2)"),
    ("torch.div", "torch.div(x, 2)"),
    ("torch.abs", "torch.abs(x)"),
    ("torch.neg", "torch.neg(x)"),
    ("torch.exp", "torch.exp(x)"),
    ("torch.log1p", "torch.log1p(x)"),
    ("torch.sin", "torch.sin(x)"),
    ("torch.cos", "torch.cos(x)"),
    ("torch.tanh", "torch.tanh(x)"),
    ("torch.sigmoid", "torch.sigmoid(x)"),
    ("torch.relu", "torch.relu(x)"),
    ("torch.sqrt", "torch.sqrt(x)"),
    ("torch.square", "torch.square(x)"),
    ("torch.clamp", "torch.clamp(x, 0, 1)"),
    ("torch.floor", "torch.floor(x)"),
    ("torch.ceil", "torch.ceil(x)"),
    ("torch.round", "torch.round(x)"),
    ("torch.sign", "torch.sign(x)"),
    ("torch.trunc", "torch.trunc(x)"),
    ("torch.frac", "torch.frac(x)"),
    ("torch.reciprocal", "torch.reciprocal(x + 1)"),
    ("torch.rsqrt", "torch.rsqrt(x + 1)"),
]

#: the test files: plain unittest (what a job costs is the test), or torch's common_utils TestCase as
#: backends write them (each job then also imports common_utils in its forked child: seconds)
STYLES = {
    "unittest": ("import unittest\n\nimport torch\n", "unittest.TestCase", "unittest.main()"),
    "common_utils": (
        "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests\n",
        "TestCase",
        "run_tests()",
    ),
}

TEST = """{imports}

class Test{cls}({base}):
    def test_{name}(self):
        x = torch.rand(4)
        self.assertEqual({call}.shape, x.shape)


if __name__ == "__main__":
    {main}
"""

CONFIG = 'device = "cpu"\ntest_roots = ["test"]\nactive_branches = ["master", "v2.11.0"]\n'


def _git(repo: Path, *args: str) -> None:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
    )
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def make_repo(root: Path, apis: list[tuple[str, str]], style: str = "unittest") -> Path:
    repo = root / "backend"
    (repo / "test").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "master")
    (repo / "torchparity.toml").write_text(CONFIG)
    for api, call in apis:
        name = api.rsplit(".", 1)[1]
        imports, base, run = STYLES[style]
        (repo / "test" / f"test_{name}.py").write_text(
            TEST.format(
                imports=imports, base=base, main=run, cls=name.title(), name=name, call=call
            )
        )
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "tests")
    _git(repo, "checkout", "-q", "-b", "v2.11.0")
    (repo / "test" / "__init__.py").write_text("")  # a commit of its own: the two refs differ
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "v2.11.0")
    _git(repo, "checkout", "-q", "master")
    return repo


def _run(argv: list[str], cwd: Path) -> None:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(argv[2:5])} ... exited {proc.returncode}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
        )


def run_batch(
    python: str, repo: Path, tasks: Path, work: Path, jobs: int
) -> tuple[float, dict[str, int]]:
    store, out = work / "store", work / "out"
    started = time.perf_counter()
    _run(
        [
            python,
            "-m",
            "torchparity",
            "batch",
            str(tasks),
            "--repo",
            str(repo),
            "--python",
            python,
            "--store",
            str(store),
            "--out",
            str(out),
            "--jobs",
            str(jobs),
        ],
        work,
    )
    seconds = time.perf_counter() - started
    doc = json.loads((out / "batch-summary.json").read_text())
    bad = [t["task"] for t in doc["tasks"] if t["result"] != "PASS"]
    if bad:
        raise SystemExit(f"batch: not PASS: {bad}")
    shared = {}
    from torchparity.store import Store  # the controller's own view of what it shared

    for run in Store(store).runs():
        if run.kind == "batch":
            shared = run.summary.get("shared") or {}
    return seconds, shared


def run_loop(python: str, repo: Path, apis: list[str], work: Path) -> float:
    store = work / "store"
    started = time.perf_counter()
    for api in apis:
        _run(
            [
                python,
                "-m",
                "torchparity",
                "verify",
                api,
                "--repo",
                str(repo),
                "--python",
                python,
                "--store",
                str(store),
                "--out",
                str(work / "out" / api),
            ],
            work,
        )
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--n", type=int, default=20, help=f"number of APIs (default 20, at most {len(APIS)})"
    )
    parser.add_argument(
        "--pairs", type=int, default=2, help="batch/loop pairs, interleaved (default 2)"
    )
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter with torch (default: this one)"
    )
    parser.add_argument(
        "--jobs", type=int, default=0, help="batch --jobs (default 0: the CPU count)"
    )
    parser.add_argument(
        "--style",
        choices=sorted(STYLES),
        default="unittest",
        help="how the test files are written (default unittest)",
    )
    args = parser.parse_args(argv)
    apis = APIS[: args.n]
    batch_s: list[float] = []
    loop_s: list[float] = []
    shared: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="torchparity-bench-batch-") as tmp:
        root = Path(tmp)
        repo = make_repo(root, apis, args.style)
        tasks = root / "tasks.txt"
        tasks.write_text("".join(f"{api}\n" for api, _ in apis))
        for pair in range(args.pairs):
            order = ("batch", "loop") if pair % 2 == 0 else ("loop", "batch")
            for which in order:
                work = root / f"{which}-{pair}"
                work.mkdir()
                if which == "batch":
                    s, shared = run_batch(args.python, repo, tasks, work, args.jobs)
                    batch_s.append(s)
                else:
                    s = run_loop(args.python, repo, [a for a, _ in apis], work)
                    loop_s.append(s)
                print(f"pair {pair + 1} {which:5s}: {s:8.1f} s", flush=True)
    b, lo = statistics.median(batch_s), statistics.median(loop_s)
    pairs = [x / y for x, y in zip(loop_s, batch_s, strict=True)]
    print(
        f"APIs: {len(apis)}  refs: 2  environments: 1  test files: {args.style}  cores: {os.cpu_count()}  "
        f"python: {args.python}"
    )
    print(f"batch (median of {len(batch_s)}): {b:8.1f} s  ({b / len(apis):.1f} s per API)")
    print(
        f"loop of verify (median of {len(loop_s)}): {lo:8.1f} s  ({lo / len(apis):.1f} s per API)"
    )
    print(
        f"ratio: {lo / b:.1f}x faster (medians); per pair: {', '.join(f'{r:.1f}x' for r in pairs)}"
    )
    print("batch shared: " + ", ".join(f"{k}={v}" for k, v in shared.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
