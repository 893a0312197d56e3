"""Coverage search speed: cold index, a second branch, 1,000 API queries; git grep per API beside them.

    python benchmarks/bench_coverage.py                       # generates a repo of 1,000 test files
    python benchmarks/bench_coverage.py --repo R --ref A --ref B [--roots test]
    python benchmarks/bench_coverage.py --many --repo R --ref A --ref B --ref C --ref D
        # `torchparity coverage --from FILE` with 1,000 APIs x the refs: cold (new store), warm (index built)
    python benchmarks/bench_coverage.py --recall benchmarks/coverage_recall_sample.txt --repo R
        # per-test recall on API-consistency commits: their added test_* functions are the truth

Targets (2-core machine): cold index <= 30 s, a second branch sharing most
blobs <= 3 s, 1,000 API queries <= 5 s. Timings are wall clock
(time.perf_counter); each phase starts from what a new run would have (a new
Indexer over the same store), so nothing is shared in memory between phases.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from torchparity.coverage import Indexer, coverage_for, static_table  # noqa: E402
from torchparity.coverage.grep import TreeText, community_pattern, git_grep, needle  # noqa: E402
from torchparity.coverage.query import ApiName, RefQuery, query_ref  # noqa: E402
from torchparity.store import Store  # noqa: E402

TARGETS = {"cold": 30.0, "second": 3.0, "queries": 5.0}

# -- a generated repository -----------------------------------------------------------------

_FNS = """abs exp sigmoid tanh relu neg sqrt sin cos log1p floor ceil round sign square erf expm1 trunc
frac reciprocal add sub mul div matmul mm bmm sum mean std var max min argmax argmin cumsum cumprod
prod norm dist cat stack split chunk flatten squeeze unsqueeze transpose permute reshape narrow
index_select masked_select gather scatter where clamp lerp addmm addmv baddbmm outer cross dot
tril triu diag trace flip roll sort topk kthvalue unique cdist einsum logsumexp softmax log_softmax
isnan isinf isfinite allclose equal eq ne lt gt le ge logical_and logical_or bitwise_and fmod
remainder atan2 hypot pow rsqrt sinh cosh asin acos atan deg2rad rad2deg nan_to_num histc bincount
searchsorted bucketize repeat_interleave tile broadcast_to meshgrid cartesian_prod combinations
""".split()
_METHODS = """clone add_ mul_ sub_ div_ zero_ fill_ copy_ normal_ uniform_ detach requires_grad_ backward
contiguous view reshape t transpose permute expand repeat sum mean max min abs exp sqrt to cpu float
double half int long bool numpy tolist item size dim numel stride storage_offset is_contiguous
""".split()


def _vocab() -> tuple[list[str], list[str]]:
    table = static_table()
    modules = sorted(
        k.rsplit(".", 1)[1]
        for k in table.aliases
        if k.startswith("torch.nn.") and k.count(".") == 2 and k.rsplit(".", 1)[1][:1].isupper()
    )
    optims = sorted(
        k.rsplit(".", 1)[1]
        for k in table.aliases
        if k.startswith("torch.optim.")
        and k.count(".") == 2
        and k.rsplit(".", 1)[1][:1].isupper()
        and k != "torch.optim.Optimizer"
    )
    return modules, optims


_MODULES, _OPTIMS = _vocab()
_TOPICS = ["Autograd", "GradMode", "Optim", "Unary", "Modules", "Dispatch", "Npu", "Amp"]

_CALLS = [
    "y = torch.{fn}(self.x)",
    "y = t.{fn}(self.x)",
    "y = self.x.{meth}()",
    "y = torch.{fn}(x).{meth}()",
    "m = torch.nn.{module}()",
    "out = F.{ffn}(self.x)",
    "opt = torch.optim.{optim}([p]); opt.zero_grad()",
    "self.assertTrue(torch.{fn}(x) is not None)",
    "with torch.no_grad():\n            z = torch.{fn}(x)",
    "ctx = sge({flag}); c = ctx.clone()",
    "helper_{n}(self, torch.{fn})",
    "self.assertEqual(x.{meth}().shape, x.shape)  # torch.{fn}(x).{meth}()",
    "msg = 'torch.{fn} on device {k}'",
]


def _body(rnd: random.Random, n: int, i: int) -> str:
    lines = [
        f"    def test_{rnd.choice(_FNS)}_{i}(self):",
        f"        x = torch.randn({rnd.randint(1, 9)}, {rnd.randint(1, 9)})",
        "        p = torch.nn.Parameter(torch.ones(3))",
    ]
    for _ in range(rnd.randint(3, 12)):
        call = rnd.choice(_CALLS).format(
            fn=rnd.choice(_FNS),
            meth=rnd.choice(_METHODS),
            module=rnd.choice(_MODULES),
            ffn=rnd.choice(
                ["relu", "gelu", "softmax", "dropout", "linear", "conv2d", "pad", "normalize"]
            ),
            optim=rnd.choice(_OPTIMS),
            flag=rnd.choice(["True", "False"]),
            n=n,
            k=rnd.randint(0, 7),
        )
        lines.append(f"        {call}")
    return "\n".join(lines) + "\n\n"


_HEADER = '''# Generated test file {n} for the coverage benchmark.
"""Tests for {topic} ({n}); mentions torch.{fn} in prose."""
import unittest

import torch
import torch as t
import torch.nn.functional as F
from torch import set_grad_enabled as sge


def helper_{n}(case, fn):
    case.assertIsNotNone(fn(torch.ones(2)))


class Test{topic}{n}(unittest.TestCase):
    def setUp(self):
        self.x = torch.randn(4, 4)
        self.model = torch.nn.Linear(4, 4)

'''


def _file(n: int, rnd: random.Random, tests: int) -> str:
    out = [_HEADER.format(n=n, topic=rnd.choice(_TOPICS), fn=rnd.choice(_FNS))]
    out += [_body(rnd, n, i) for i in range(tests)]
    out.append('\nif __name__ == "__main__":\n    unittest.main()\n')
    return "".join(out)


def generate(root: Path, files: int, seed: int = 7) -> tuple[Path, str, str]:
    """A repo with ``files`` test files on master and a branch v2 that changes about 5% of them."""
    rnd = random.Random(seed)
    repo = root / "generated"
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
    )

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)

    repo.mkdir(parents=True)
    git("init", "-q", "-b", "master")
    paths = []
    for n in range(files):
        sub = repo / "test" / f"area{n % 12}"
        sub.mkdir(parents=True, exist_ok=True)
        path = sub / f"test_gen_{n}.py"
        path.write_text(_file(n, rnd, rnd.randint(15, 45)))
        paths.append(path)
    git("add", "-A")
    git("commit", "-q", "-m", "generated tests")
    git("checkout", "-q", "-b", "v2")
    for path in rnd.sample(paths, files // 20):
        path.write_text(
            path.read_text().replace("\nif __name__", _body(rnd, 0, 999) + "\nif __name__")
        )
    for n in range(files, files + files // 100):
        (repo / "test" / f"test_new_{n}.py").write_text(_file(n, rnd, 10))
    git("add", "-A")
    git("commit", "-q", "-m", "v2 changes")
    git("checkout", "-q", "master")
    return repo, "master", "v2"


# -- the API list -----------------------------------------------------------------------------


def api_list(index_query: RefQuery, count: int) -> list[str]:
    """The names tests use most, then names the static table knows, then a few that exist nowhere."""
    q = index_query
    q.files_using("")
    used = Counter({name: len(files) for name, files in (q._names or {}).items()})
    names = [n for n, _ in used.most_common() if "." in n][: count * 7 // 10]
    for name in static_table().names():
        if len(names) >= count * 95 // 100:
            break
        if name not in names:
            names.append(name)
    i = 0
    while len(names) < count:
        names.append(f"torch_npu.npu.not_a_real_api_{i}")
        i += 1
    return names[:count]


# -- the measurements -------------------------------------------------------------------------


def _t(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, help="A real repository (a checkout or a bare repo).")
    ap.add_argument(
        "--ref", action="append", help="Two refs: the cold one, then the second branch."
    )
    ap.add_argument("--roots", nargs="+", default=["test"])
    ap.add_argument(
        "--files", type=int, default=1000, help="Test files to generate without --repo."
    )
    ap.add_argument("--apis", type=int, default=1000)
    ap.add_argument(
        "--grep-sample",
        type=int,
        default=0,
        help="Run git grep for this many APIs and scale to --apis (0: all of them).",
    )
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument(
        "--many",
        action="store_true",
        help="Time the verb on --apis APIs x every --ref (needs --repo).",
    )
    ap.add_argument(
        "--recall",
        type=Path,
        metavar="SAMPLE",
        help="Measure recall on the commits listed (needs --repo).",
    )
    ap.add_argument(
        "--config",
        type=Path,
        help='torchparity.toml for --many/--recall (e.g. preset = "torch_npu").',
    )
    ap.add_argument(
        "--show-direct",
        action="store_true",
        help="With --recall: list every direct test (to check by hand).",
    )
    args = ap.parse_args(argv)
    if args.many or args.recall:
        if not args.repo:
            ap.error("--many and --recall need --repo")
        return many(args) if args.many else recall(args)

    work = Path(tempfile.mkdtemp(prefix="bench-coverage-"))
    try:
        if args.repo:
            repo, refs = args.repo, (args.ref or ["HEAD"])
            if len(refs) < 2:
                ap.error("with --repo give two --ref: the cold one and a second branch")
            ref_a, ref_b = refs[0], refs[1]
        else:
            seconds, (repo, ref_a, ref_b) = _t(lambda: generate(work, args.files))
            print(f"generated {args.files} test files (+ branch v2) in {seconds:.1f} s at {repo}")
        store = Store(work / "store")
        table = static_table()
        cold, ix_a = _t(
            lambda: Indexer(store, table, jobs=args.jobs).index(repo, ref_a, args.roots)
        )
        second, ix_b = _t(
            lambda: Indexer(store, table, jobs=args.jobs).index(repo, ref_b, args.roots)
        )
        shared = len({b for _, b in ix_a.files} & {b for _, b in ix_b.files})
        warm, ix_a2 = _t(
            lambda: Indexer(store, table, jobs=args.jobs).index(repo, ref_a, args.roots)
        )

        apis = api_list(RefQuery(ix_a2, table), args.apis)
        q = RefQuery(ix_a2, table)

        def run_queries() -> int:
            n = 0
            for api in apis:
                n += len(query_ref(q, ApiName.parse(api, table)).direct)
            return n

        queries, direct_total = _t(run_queries)
        lib, report = _t(
            lambda: coverage_for(apis, repo, [ref_a], store, tests=args.roots, grep="off")
        )
        texts_t, texts = _t(lambda: TreeText(ix_a2.repo, ref_a, ix_a2.entries, ix_a2.roots))
        pats = [community_pattern(ApiName.parse(a, table).canonical) for a in apis]
        fast_t, fast = _t(lambda: [texts.grep(p, needle(pw, lw)) for p, pw, lw in pats])
        sample = pats if not args.grep_sample else pats[: args.grep_sample]
        grep_t, real = _t(
            lambda: [git_grep(ix_a2.repo, ref_a, p, ix_a2.roots) for p, _, _ in sample]
        )
        scale = len(pats) / len(sample)
        agree = sum(1 for r, f in zip(real, fast, strict=False) if r.count == f.count)
        b_grep_sample = sample[: max(1, len(sample) // 10)]
        grep_b_t, _ = _t(
            lambda: [git_grep(ix_b.repo, ref_b, p, ix_b.roots) for p, _, _ in b_grep_sample]
        )

        files_a = len(ix_a.files)
        mb = texts.pool.size / 1e6
        print(
            f"repo {repo} — {ref_a}: {files_a} Python test files, {ix_a.tests} tests, "
            f"{len(ix_a.entries)} files under {' '.join(args.roots)} ({mb:.1f} MB); "
            f"{ref_b}: {len(ix_b.files)} files, {shared} blobs shared with {ref_a}, {ix_b.parsed} parsed"
        )
        print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
        print()
        print(f"{'':44}{'index':>12}{'target':>10}{'git grep per API':>22}")
        print(f"{'cold index, ' + ref_a:44}{cold:>10.2f} s{TARGETS['cold']:>8.0f} s{'-':>22}")
        print(
            f"{'second branch ' + ref_b + ' (same store)':44}{second:>10.2f} s{TARGETS['second']:>8.0f} s"
            f"{f'{grep_b_t / len(b_grep_sample) * len(pats):.1f} s (est.)':>22}"
        )
        print(f"{'same ref again (a new run)':44}{warm:>10.2f} s{'':>10}{'-':>22}")
        print(
            f"{f'{len(apis):,} API queries on ' + ref_a:44}{queries:>10.2f} s{TARGETS['queries']:>8.0f} s"
            f"{f'{grep_t * scale:.1f} s':>22}"
        )
        print(
            f"{f'{len(apis):,} APIs, coverage_for (load + query)':44}{lib:>10.2f} s{'':>10}{'':>22}"
        )
        print(
            f"{f'{len(apis):,} regex baselines in process':44}{texts_t + fast_t:>10.2f} s{'':>10}"
            f"{f'{grep_t / len(sample) * 1000:.0f} ms per API':>22}"
        )
        print()
        print(
            f"git grep measured on {len(sample)} of {len(pats)} APIs on {ref_a}"
            f"{'' if scale == 1 else f' (x{scale:.0f})'} and {len(b_grep_sample)} on {ref_b} (scaled); "
            f"in-process regex count == git grep count for {agree}/{len(sample)}"
        )
        print(
            f"direct tests found over {len(apis)} APIs: {direct_total}; APIs with a direct test: "
            f"{sum(1 for a in report.apis if a.refs[0].direct)}"
        )
        ok = (
            cold <= TARGETS["cold"]
            and second <= TARGETS["second"]
            and queries <= TARGETS["queries"]
        )
        print("all targets met" if ok else "TARGET MISSED")
        return 0 if ok and agree == len(sample) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- many APIs through the verb ----------------------------------------------------------------


def _verb(
    args: argparse.Namespace, cwd: Path, api_file: Path, grep: str, *, keep: bool = False
) -> tuple[float, float, int]:
    """(wall s, CPU s of the process, exit code) of one `torchparity coverage --from FILE --json` run in
    ``cwd`` (its default store, the parse cache, lives there); ``keep``: --store too (a record per API)."""
    cmd = [
        sys.executable,
        "-m",
        "torchparity",
        "coverage",
        "--from",
        str(api_file),
        "--repo",
        str(args.repo),
        "--grep",
        grep,
        "--json",
    ]
    if keep:
        cmd += ["--store", str(cwd / ".torchparity")]
    for r in args.ref:
        cmd += ["--ref", r]
    cmd += ["--tests", *args.roots[:1]]
    if args.config:
        cmd += ["--config", str(args.config.resolve())]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    env.pop("TORCHPARITY_STORE", None)
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd, check=False
    )
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    if proc.returncode:
        sys.stderr.write(proc.stderr.decode("utf-8", "replace")[-2000:])
    return wall, cpu, proc.returncode


def many(args: argparse.Namespace) -> int:
    """1,000 APIs x the refs in one process: cold (a new store) and warm (the index built), with and
    without the regex baseline; git grep per API beside them."""
    work = Path(tempfile.mkdtemp(prefix="bench-coverage-many-"))
    try:
        refs = args.ref or ["HEAD"]
        store = Store(work / "probe")
        ix = Indexer(store, static_table(), jobs=args.jobs).index(args.repo, refs[0], args.roots)
        apis = api_list(RefQuery(ix, static_table()), args.apis)
        api_file = work / "apis.txt"
        api_file.write_text("\n".join(apis) + "\n", "utf-8")
        rows = []
        rows.append(("cold (new store), --grep off", *_verb(args, work, api_file, "off")))
        rows.append(("warm (index built), --grep off", *_verb(args, work, api_file, "off")))
        rows.append(
            ("warm, regex baseline in process (--grep fast)", *_verb(args, work, api_file, "fast"))
        )
        rows.append(
            (
                "warm, --grep off, --store (a record per API)",
                *_verb(args, work, api_file, "off", keep=True),
            )
        )
        sample = apis[: args.grep_sample or 20]
        pats = [community_pattern(ApiName.parse(a, static_table()).canonical)[0] for a in sample]
        grep_t, _ = _t(lambda: [git_grep(ix.repo, r, p, ix.roots) for r in refs for p in pats])
        per_api = grep_t / len(sample)
        print(
            f"repo {args.repo}, refs {' '.join(refs)}, {len(apis)} APIs; machine: {os.cpu_count()} CPUs, "
            f"Python {sys.version.split()[0]}"
        )
        print(f"{'':48}{'wall':>10}{'CPU':>10}{'exit':>6}")
        for label, wall, cpu, rc in rows:
            print(f"{label:48}{wall:>8.1f} s{cpu:>8.1f} s{rc:>6}")
        print(
            f"{'git grep, one per API and ref (measured on ' + str(len(sample)) + ')':48}"
            f"{per_api * len(apis):>8.1f} s{'':>10}   ({per_api / len(refs) * 1000:.0f} ms per API and ref)"
        )
        ok = all(rc == 0 for *_, rc in rows) and rows[1][1] <= 20.0
        print("warm target (<= 20 s) met" if ok else "TARGET MISSED (warm > 20 s or a run failed)")
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- recall on API-consistency commits ---------------------------------------------------------


def _added_tests(repo: Path, commit: str, roots: list[str]) -> list[str]:
    """The test functions a commit adds (path::Class::test), by the AST of each changed file."""
    import ast

    def git_out(*a: str) -> bytes:
        return subprocess.run(["git", "-C", str(repo), *a], capture_output=True, check=False).stdout

    def tests_of(data: bytes) -> set[str]:
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            return set()
        out: set[str] = set()

        def walk(body: list[ast.stmt], prefix: str) -> None:
            for n in body:
                if isinstance(n, ast.ClassDef):
                    walk(n.body, f"{prefix}{n.name}::")
                elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith(
                    "test"
                ):
                    out.add(prefix + n.name)

        walk(tree.body, "")
        return out

    changed = (
        git_out("diff", "--name-only", "--diff-filter=AM", f"{commit}^", commit, "--", *roots)
        .decode()
        .split()
    )
    added: list[str] = []
    for f in (c for c in changed if c.endswith(".py")):
        new, old = (
            tests_of(git_out("show", f"{commit}:{f}")),
            tests_of(git_out("show", f"{commit}^:{f}")),
        )
        added += [f"{f}::{t}" for t in sorted(new - old)]
    return added


def recall(args: argparse.Namespace) -> int:
    """Per-test recall: each listed commit's added tests, found as direct for its API at that commit."""
    from torchparity.config import load_config
    from torchparity.coverage.spellings import assemble

    cfg = load_config(args.config, None)
    rows = [ln.split("#", 1)[0].split() for ln in args.recall.read_text("utf-8").splitlines()]
    rows = [r for r in rows if len(r) >= 2]
    work = Path(tempfile.mkdtemp(prefix="bench-coverage-recall-"))
    total = found = 0
    try:
        store = Store(work / "store")
        print(f"{'commit':10} {'API':58} {'found':>7} {'direct':>7}")
        for commit, *apis in rows:
            truth = _added_tests(args.repo, commit, args.roots)
            table = assemble(apis, cfg).table
            report = coverage_for(
                apis, args.repo, [commit], store, tests=args.roots, aliases=table, grep="off"
            )
            direct: dict[str, str] = {}
            for a in report.apis:
                for h in a.refs[0].direct:
                    direct.setdefault(h.test, f"{a.api}: {h.how}")
            hit = [t for t in truth if t in direct]
            total += len(truth)
            found += len(hit)
            print(
                f"{commit[:10]:10} {' '.join(apis)[:58]:58} {len(hit):>3}/{len(truth):<3} {len(direct):>7}"
            )
            for t in truth:
                if t not in direct:
                    print(f"    missed {t}")
            if args.show_direct:
                for t, how in direct.items():
                    print(f"    direct {t}  {how}")
        print(f"recall {found}/{total} = {found / max(total, 1):.1%} over {len(rows)} commits")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
