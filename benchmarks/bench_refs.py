"""``torchparity run`` of one test file of a real backend repo on 1 ref and on 4 refs, interleaved.

    python benchmarks/bench_refs.py --repo CLONE [--file test/npu/test_generators.py]
        [--ref master --ref v2.7.1 --ref v2.11.0 --ref v2.12.0] [--rounds 5] [--config FILE]
        [--checkout sparse] [--checkout roots]

A clone of Ascend/pytorch is the intended repo. Its test files import torch_npu; without it the
run goes on the cpu (``--device cpu --allow-cpu-fallback``) with the config's ``backend_module``
emptied (a config written here unless ``--config`` is given), so each file fails at its import:
what is measured is the machinery around the tests (the worker, the checkouts, the jobs, the
store), which is what more refs cost. Each round runs the 1-ref and the 4-ref command once per
checkout kind (``--checkout``, repeatable: ``sparse``, the default, writes the test files and what
they read; ``roots`` writes the test roots whole, as before issue 34; set through
``TORCHPARITY_CHECKOUT``), in rotated order; prints medians and minimums, the load average, the
ratio per kind (target <= 1.3x) and what each kind's checkout of each ref holds (files, MB).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _interleave import check, header, interleaved, load, machine, median, row  # noqa: E402

from torchparity.collect.ref_checkouts import KIND_VARIABLE  # noqa: E402
from torchparity.collect.sparse import BlobCache, write_checkout  # noqa: E402
from torchparity.exec.ship import isolated_env  # noqa: E402
from torchparity.gitrepo import resolve_commit  # noqa: E402

REFS = ["master", "v2.7.1", "v2.11.0", "v2.12.0"]
KINDS = ("sparse", "roots")
TARGET = 1.3
CONFIG = 'preset = "torch_npu"\nbackend_module = ""\n'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--repo", required=True, help="the backend repo (a clone of Ascend/pytorch)"
    )
    parser.add_argument(
        "--file", default="test/npu/test_generators.py", help="a test file at every ref"
    )
    parser.add_argument("--ref", action="append", help=f"refs (default {' '.join(REFS)})")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument(
        "--config", help="torchparity.toml to use (default: torch_npu preset, no backend module)"
    )
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter with torch and torchparity"
    )
    parser.add_argument(
        "--checkout",
        action="append",
        choices=KINDS,
        help="checkout kind to measure (repeatable; default sparse)",
    )
    args = parser.parse_args(argv)
    refs = args.ref or REFS
    kinds = list(dict.fromkeys(args.checkout or ["sparse"]))
    before = load()
    with tempfile.TemporaryDirectory(prefix="torchparity-bench-") as tmp:
        work = Path(tmp)
        config = Path(args.config) if args.config else work / "torchparity.toml"
        if not args.config:
            config.write_text(CONFIG)

        def run(these: list[str], kind: str) -> None:
            argv = [
                args.python,
                "-m",
                "torchparity",
                "run",
                args.file,
                "--repo",
                args.repo,
                *[a for r in these for a in ("--ref", r)],
                "--device",
                "cpu",
                "--allow-cpu-fallback",
                "--config",
                str(config),
                "--store",
                str(work / "store"),
            ]
            check(
                subprocess.run(
                    argv,
                    capture_output=True,
                    text=True,
                    cwd=work,
                    env=isolated_env({KIND_VARIABLE: kind}),
                ),
                f"run on {', '.join(these)} ({kind})",
                ok=(0, 1),
            )

        ways = {}
        for kind in kinds:
            ways[f"{kind}: run on 1 ref ({refs[0]})"] = lambda k=kind: run(refs[:1], k)
            ways[f"{kind}: run on {len(refs)} refs ({', '.join(refs)})"] = lambda k=kind: run(
                refs, k
            )
        times = interleaved(ways, args.rounds)
        held = {kind: contents(Path(args.repo), refs, args.file, kind, work) for kind in kinds}
    print(f"machine: {machine(args.python)}; load average before: {before}, after: {load()}")
    print(f"file: {args.file}; rounds: {args.rounds}, the order rotated every round")
    print(header(66))
    for name, values in times.items():
        print(row(name, values, 66))
    values = list(times.values())
    for i, kind in enumerate(kinds):
        one, many = values[2 * i], values[2 * i + 1]
        print(
            f"{kind}: {len(refs)} refs / 1 ref: {median(many) / median(one):.2f}x (median), "
            f"{min(many) / min(one):.2f}x (min)  [target <= {TARGET}x]"
        )
        print(f"{kind}: each ref's checkout: {held[kind]}")
    return 0


def contents(repo: Path, refs: list[str], file: str, kind: str, work: Path) -> str:
    """What the run's checkout of each ref holds (files, MB), made as the run makes them."""
    cache = BlobCache()
    out = []
    for ref in refs:
        dest = work / f"checkout-{kind}"
        top = [Path(file).parts[0]] if len(Path(file).parts) > 1 else []
        report = write_checkout(
            repo,
            resolve_commit(repo, ref),
            dest,
            top,
            [file],
            whole_roots=kind == "roots",
            cache=cache,
        )
        shutil.rmtree(dest)
        out.append(f"{ref} {report.files} files ({report.bytes / 2**20:.1f} MiB)")
    return ", ".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
