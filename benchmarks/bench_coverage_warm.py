"""Warm ``torchparity coverage`` on a real repo: one API beside ``git grep``, and 1,000 APIs with --json.

    python benchmarks/bench_coverage_warm.py --repo CLONE [--ref master] [--api API] [--rounds 5]
        [--apis 1000] [--config FILE]

A clone of Ascend/pytorch is the intended repo. A first, untimed call builds the index in a new
store (a temporary folder, the working directory of every call); then, interleaved every round:

* ``torchparity coverage API --repo CLONE --ref REF`` as a user types it (a fresh process);
* ``git grep -n -E PATTERN REF -- ROOTS``, the command coverage prints and runs beside its answer
  (what a search of the tree costs at the least).

Then ``torchparity coverage --from FILE --json`` of ``--apis`` names (the names the repo's tests
use most, then names the static table knows, then a few that exist nowhere), twice: its peak memory
(the child's maximum resident set, from ``wait4``) and wall time. Targets: the single call <= 0.6 s
(median), the 1,000 APIs <= 150 MiB (the last call is judged). Children keep bytecode, as an
installed tool does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _interleave import header, interleaved, load, median, row  # noqa: E402
from bench_coverage import api_list  # noqa: E402

from torchparity.coverage import Indexer, static_table  # noqa: E402
from torchparity.coverage.grep import community_pattern  # noqa: E402
from torchparity.coverage.query import ApiName, RefQuery  # noqa: E402
from torchparity.store import Store  # noqa: E402

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
TARGETS = {"single": 0.6, "many_mib": 150.0}


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    env.pop("TORCHPARITY_STORE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode kept, as an installed tool has it
    return env


def _run(cmd: list[str], cwd: Path) -> tuple[float, float, int, bytes]:
    """(wall s, peak RSS MiB, exit code, stderr) of one child."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - started, usage.ru_maxrss / 1024, proc.returncode, err


def _own_peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--repo", type=Path, required=True, help="the backend repo (a clone of Ascend/pytorch)"
    )
    ap.add_argument("--ref", default="master", help="the ref (default master)")
    ap.add_argument("--api", default=API, help=f"the single API (default {API})")
    ap.add_argument("--roots", nargs="+", default=["test"], help="test roots (default test)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    ap.add_argument(
        "--apis", type=int, default=1000, help="APIs for the --json call (default 1000)"
    )
    ap.add_argument("--config", type=Path, help='torchparity.toml (e.g. preset = "torch_npu")')
    ap.add_argument(
        "--names-to", type=Path, help=argparse.SUPPRESS
    )  # (the child that writes the names)
    args = ap.parse_args(argv)
    repo = args.repo.resolve()
    if args.names_to:
        ix = Indexer(Store(args.names_to.parent / "names"), static_table()).index(
            repo, args.ref, args.roots
        )
        args.names_to.write_text(
            "\n".join(api_list(RefQuery(ix, static_table()), args.apis)) + "\n", "utf-8"
        )
        return 0
    work = Path(tempfile.mkdtemp(prefix="bench-coverage-warm-"))
    try:
        verb = [
            sys.executable,
            "-m",
            "torchparity",
            "coverage",
            "--repo",
            str(repo),
            "--ref",
            args.ref,
            "--tests",
            *args.roots,
        ]
        if args.config:
            verb += ["--config", str(args.config.resolve())]
        single = [*verb, args.api]
        pattern = community_pattern(ApiName.parse(args.api, static_table()).canonical)[0]
        grep = ["git", "-C", str(repo), "grep", "-n", "-E", pattern, args.ref, "--", *args.roots]
        cold, _, rc, err = _run(single, work)
        if rc not in (0, 1):
            raise SystemExit(
                f"coverage ended with exit {rc}:\n{err.decode('utf-8', 'replace')[-3000:]}"
            )
        print(
            f"repo {repo.name}@{args.ref}, API {args.api}; {os.cpu_count()} cores; load before: {load()}"
        )
        print(f"first call (index built, new store): {cold:.2f} s")

        def one(cmd: list[str]) -> None:
            subprocess.run(
                cmd,
                cwd=work,
                env=_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )

        times = interleaved(
            {
                "coverage (warm, one API)": lambda: one(single),
                "git grep (the printed command)": lambda: one(grep),
            },
            args.rounds,
        )
        print(header())
        for name, values in times.items():
            print(row(name, values))
        warm = median(times["coverage (warm, one API)"])
        # the names are made in a child: a child started from a big process inherits that process's
        # peak in its own count (Linux keeps the larger of the two across exec), so this one stays small
        api_file = work / "apis.txt"
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--repo",
                str(repo),
                "--ref",
                args.ref,
                "--roots",
                *args.roots,
                "--apis",
                str(args.apis),
                "--names-to",
                str(api_file),
            ],
            check=True,
            env=_env(),
        )
        names = api_file.read_text("utf-8").split()
        # first with this list (its alias table is new: the index is made again from the kept per-file
        # facts), then again (the index built for it is loaded)
        for how in ("first time (index made from cached facts)", "again (its index loaded)"):
            wall, mib, rc, err = _run([*verb, "--from", str(api_file), "--json"], work)
            if rc not in (0, 1):
                raise SystemExit(
                    f"coverage --from ended with exit {rc}:\n{err.decode('utf-8', 'replace')[-3000:]}"
                )
            print(
                f"coverage --from ({len(names)} APIs) --json, {how}: {wall:.2f} s, peak memory {mib:.0f} MiB"
            )
        print(
            f"load after: {load()}; this script's own peak {_own_peak_mib():.0f} MiB (a child's count "
            "is never below its starter's)"
        )
        ok_single, ok_many = warm <= TARGETS["single"], mib <= TARGETS["many_mib"]
        print(
            f"single API {warm:.2f} s (target <= {TARGETS['single']} s): {'met' if ok_single else 'MISSED'}; "
            f"{len(names)} APIs {mib:.0f} MiB (target <= {TARGETS['many_mib']:.0f} MiB): "
            f"{'met' if ok_many else 'MISSED'}"
        )
        return 0 if ok_single and ok_many else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
