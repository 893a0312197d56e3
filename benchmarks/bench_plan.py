"""``torchparity plan`` over the whole public surface of torch, warm; and the regex baseline for every
API of it, one scan of the tree (``grep_many``) beside one search per API (``TreeText.grep``).

    python benchmarks/bench_plan.py --repo CLONE --ref master --version 2.13.0 [--python PY]
        [--emulate npu] [--rounds 3] [--module torch]
    python benchmarks/bench_plan.py                  # a generated repo and pages (a smoke run)

A first, untimed call builds the coverage index of the ref in a new store (a temporary folder, the
working directory of every call); then ``--rounds`` calls of ``torchparity plan ... --families 0`` as
a user types them (a fresh process each: the agent's surface job, the pages, the index loaded, every
API's direct tests and regex count), each with its wall time and the plan's own step times. Then, in
this process, the regex baseline of every API of the surface on the ref: ``grep_many`` (each blob
scanned once for all of them) and ``TreeText.grep`` per API (each blob scanned once per API), CPU
seconds, and whether their answers are the same. Target (issue 38): the warm plan under 60 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _interleave import load, median  # noqa: E402

from torchparity.config import load_config  # noqa: E402
from torchparity.coverage import Indexer  # noqa: E402
from torchparity.coverage.grep import (  # noqa: E402
    BlobTexts,
    TreeText,
    community_pattern,
    grep_many,
    needle,
)
from torchparity.coverage.query import ApiName  # noqa: E402
from torchparity.coverage.spellings import assemble  # noqa: E402
from torchparity.plan.surface import SurfaceApi  # noqa: E402
from torchparity.store import Store  # noqa: E402

TARGET = 60.0

CONFIG = """\
backend_module = ""
device = "cpu"
test_roots = ["test"]

[docs]
root = "docs/native_api"

[[docs.products]]
code = "910b"
name = "Atlas A2训练系列产品"
"""

#: (API, a call of it) for the generated repo's tests and pages
APIS = [
    ("torch.optim.SGD", "torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=0.1)"),
    ("torch.optim.Adam", "torch.optim.Adam([torch.nn.Parameter(torch.ones(2))])"),
    ("torch.optim.lr_scheduler.StepLR", "torch.optim.lr_scheduler.StepLR"),
    ("torch.optim.Optimizer.zero_grad", "torch.optim.SGD([torch.ones(1)], lr=1).zero_grad()"),
]


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    env.pop("TORCHPARITY_STORE", None)
    return env


def generate(root: Path) -> tuple[Path, str, str]:
    """A repo with a test file per API and 2.13.0 pages listing half of them (one ✘)."""
    repo = root / "generated"
    pages = repo / "docs" / "native_api" / "pytorch_2-13-0"
    (repo / "test").mkdir(parents=True)
    pages.mkdir(parents=True)
    (repo / "torchparity.toml").write_text(CONFIG, "utf-8")
    entries = []
    for i, (api, call) in enumerate(APIS):
        (repo / "test" / f"test_{i}.py").write_text(
            f"import unittest\n\nimport torch\n\n\nclass T(unittest.TestCase):\n"
            f"    def test_{i}(self):\n        self.assertIsNotNone({call})\n",
            "utf-8",
        )
        if i % 2 == 0:
            mark = "不支持" if i == 0 else "支持"
            entries.append(
                f"### {api}\n\n<div>\n\n**产品支持情况**：\n\n"
                f"- <term>Atlas A2训练系列产品</term>：{mark}\n\n</div>\n"
            )
    (pages / "torch-optim.md").write_text("# torch.optim\n\n" + "\n".join(entries), "utf-8")
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
    )
    for args in (["init", "-q", "-b", "master"], ["add", "-A"], ["commit", "-q", "-m", "tests"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)
    return repo, "master", "2.13.0"


def plan_once(args: argparse.Namespace, work: Path, n: int) -> tuple[float, dict[str, object]]:
    """(wall seconds, the summary) of one ``torchparity plan`` in a fresh process."""
    out = work / f"plan-{n}.toml"
    cmd = [
        sys.executable,
        "-m",
        "torchparity",
        "plan",
        *("--repo", str(args.repo), "--ref", args.ref, "--version", args.version),
        *("--python", args.python, "--families", "0", "--tasks", str(out)),
    ]
    for m in args.module or []:
        cmd += ["--module", m]
    if args.emulate:
        cmd += ["--emulate", args.emulate]
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=work, env=_env(), capture_output=True, text=True)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"plan ended with exit {proc.returncode}:\n{proc.stderr[-3000:]}")
    return wall, json.loads(out.with_suffix(".json").read_text("utf-8"))


def regex_both_ways(args: argparse.Namespace, work: Path, doc: dict[str, object]) -> None:
    """The baseline of every API of the surface: one scan for all, and one search per API."""
    apis = [SurfaceApi.from_json(a) for a in doc["apis"]]  # type: ignore[attr-defined]
    cfg = load_config(None, args.repo)
    table = assemble([a.name for a in apis], cfg, resolutions=apis).table
    ix = Indexer(Store(work / ".torchparity"), table).index(args.repo, args.ref, cfg.test_roots)
    queries = []
    for api in apis:
        pattern, parent, leaf = community_pattern(ApiName.parse(api.name, table).canonical)
        queries.append((pattern, needle(parent, leaf), parent or leaf))
    tree = TreeText(ix.repo, args.ref, ix.entries, ix.roots, BlobTexts())
    started = time.process_time()
    many = grep_many([tree], queries)
    one_scan = time.process_time() - started
    started = time.process_time()
    each = [tree.grep(*q) for q in queries]
    per_api = time.process_time() - started
    same = sum(1 for m, e in zip(many, each, strict=True) if m[0] == e)
    print(
        f"regex baseline of {len(queries):,} APIs at {args.ref} ({tree.pool.size / 1e6:.1f} MB of "
        f"{len(ix.entries):,} files): one scan (grep_many) {one_scan:.1f} s CPU, "
        f"one search per API (TreeText.grep) {per_api:.1f} s CPU; same answers: "
        f"{same:,}/{len(queries):,}"
    )
    if same != len(queries):
        raise SystemExit("the two ways answered differently")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repo", type=Path, help="the backend repo (default: a generated one)")
    ap.add_argument("--ref", default="master")
    ap.add_argument("--version", default="2.13.0", help="the pages' version (default 2.13.0)")
    ap.add_argument("--python", default=sys.executable, help="interpreter with torch")
    ap.add_argument("--emulate", help="e.g. npu, where the repo's config names torch_npu")
    ap.add_argument("--module", action="append", help="plan only under this module")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-plan-"))
    try:
        if args.repo is None:
            args.repo, args.ref, args.version = generate(work)
        args.repo = args.repo.resolve()
        print(f"load average before: {load()}; {os.cpu_count()} cores; repo {args.repo}@{args.ref}")
        cold, _ = plan_once(args, work, 0)
        print(f"first plan (builds the coverage index in a new store): {cold:.1f} s")
        walls, doc = [], {}
        for n in range(1, args.rounds + 1):
            wall, doc = plan_once(args, work, n)
            walls.append(wall)
            steps = ", ".join(f"{k} {v:.1f} s" for k, v in doc["timings"].items())  # type: ignore[attr-defined]
            print(f"warm plan {n}: {wall:.1f} s wall ({steps})")
        counts = doc["counts"]
        print(
            f"surface: {counts['total']:,} APIs ({counts['missing']:,} missing, "  # type: ignore[index]
            f"{counts['unsupported']:,} unsupported, {counts['documented']:,} documented)"  # type: ignore[index]
        )
        best = median(walls)
        print(f"warm plan: median {best:.1f} s, min {min(walls):.1f} s (target {TARGET:.0f} s)")
        regex_both_ways(args, work, doc)
        print(f"load average after: {load()}")
        print("target met" if best <= TARGET else "TARGET MISSED")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
