"""Scaffold on a list of real task names: the family chosen, whether the test passes on the CPU,
and whether it fails once the API is replaced by a stand-in that returns a sentinel.

Run from the repository root with an interpreter that has torch (the CPU build is enough):

    PYTHONPATH=src python benchmarks/bench_scaffold.py [--list NAME|all-dev|FILE ...] [--out DIR] [--json FILE]
        [--emulate npu] [--no-run]
    python benchmarks/bench_scaffold.py --show-lists

The lists are kept in benchmarks/scaffold_draws.toml (one ``[[list]]`` each: its name, kind,
seed, pool, the figures measured on it and its names). ``--list NAME`` takes one of them
(repeatable; default: ``default``), ``--list all-dev`` every development list, and
``--list FILE`` a plain text file of names (one a line, ``#`` comments) for an ad-hoc list.
Each generated file is run twice in a child of one interpreter that imported torch (the
collector's isolated environment): as written, and after
``torchparity.agent.facts.standin.install`` replaced the API at every name it is reached by.
A test "passes and catches" when the first run passes and the second fails.

With ``--emulate npu`` the facts are measured, and the files run, on device ``npu`` of the
emulated torch_npu (its folder first on the path, the torch_npu preset), as ``--emulate npu``
does for run and verify: a dry run on the CPU, not hardware.

Each API's folder under ``--out`` keeps what its file was made from (``info.json``, the resolve
record; ``facts.json``, the agent's facts): ``scaffold_replay.py`` renders them again with the
code of the moment, in seconds, to show that a change of the controller's side writes the same files.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
RUNNER = HERE / "scaffold_runner.py"
DRAWS = HERE / "scaffold_draws.toml"


def load_draws(path: Path = DRAWS) -> list[dict[str, object]]:
    """The ``[[list]]`` tables of scaffold_draws.toml, in the file's order."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    with path.open("rb") as f:
        return list(tomllib.load(f)["list"])


def read_names(specs: list[str], draws: list[dict[str, object]] | None = None) -> list[str]:
    """The names of the lists ``specs`` names, in order, each name once.

    A spec is a list's name in scaffold_draws.toml, ``all-dev`` (every development list) or the
    path of a text file of names (one a line, ``#`` comments)."""
    draws = load_draws() if draws is None else draws
    by_name = {str(d["name"]): d for d in draws}
    names: list[str] = []
    for spec in specs:
        if spec == "all-dev":
            chosen = [list(d["names"]) for d in draws if d["kind"] == "development"]  # type: ignore[call-overload]
        elif spec in by_name:
            chosen = [list(by_name[spec]["names"])]  # type: ignore[call-overload]
        elif Path(spec).is_file():
            lines = Path(spec).read_text(encoding="utf-8").splitlines()
            chosen = [[line.split("#", 1)[0].strip() for line in lines]]
        else:
            known = ", ".join(by_name)
            raise SystemExit(
                f"ERROR: no list {spec!r}: give one of {known}, all-dev, or a file of names"
            )
        for group in chosen:
            for name in group:
                if name and name not in names:
                    names.append(name)
    return names


def show_lists(draws: list[dict[str, object]]) -> None:
    """One line per list: its kind, draw, seed, size and the last figure measured on each device."""

    def last(d: dict[str, object], device: str) -> str:
        figs = [f for f in d.get("figures", []) if f["device"].startswith(device)]  # type: ignore[attr-defined]
        return f"{figs[-1]['caught']}/{figs[-1]['apis']}" if figs else "-"

    print(
        f"{'list':10} {'kind':11} {'draw':>4} {'seed':>5} {'APIs':>4} {'cpu':>7} {'npu (em.)':>9}  last code measured"
    )
    for d in draws:
        figs = d.get("figures") or []
        code = figs[-1]["code"] if figs else "-"  # type: ignore[index]
        print(
            f"{d['name']!s:10} {d['kind']!s:11} {d.get('draw', '-')!s:>4} {d.get('seed', '-')!s:>5} "
            f"{len(d['names']):>4} {last(d, 'cpu'):>7} {last(d, 'npu'):>9}  {code}"  # type: ignore[arg-type]
        )


def run_files(
    jobs: list[dict[str, object]], tmp: Path, emulated: str = "", backend: str = ""
) -> list[dict[str, object]]:
    import os

    from torchparity.exec.ship import isolated_env

    spec, out = tmp / "jobs.json", tmp / "results.json"
    spec.write_text(json.dumps(jobs))
    src = str(Path(__file__).resolve().parent.parent / "src")
    env = dict(
        isolated_env(),
        PYTHONPATH=os.pathsep.join(p for p in (emulated, src) if p),
        BENCH_BACKEND_MODULE=backend,
    )
    proc = subprocess.run(
        [sys.executable, str(RUNNER), str(spec), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if proc.returncode != 0:
        raise SystemExit(f"the runner failed: {proc.stderr[-2000:]}")
    return list(json.loads(out.read_text()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument(
        "--list",
        dest="lists",
        action="append",
        metavar="NAME|all-dev|FILE",
        help="a list of scaffold_draws.toml, all-dev (every development list) or a file of "
        "names; repeatable (default: default)",
    )
    parser.add_argument(
        "--show-lists", action="store_true", help="print the lists of scaffold_draws.toml and exit"
    )
    parser.add_argument("--out", type=Path, default=None, help="folder for the generated files")
    parser.add_argument("--json", type=Path, default=None, help="write the rows as JSON here")
    parser.add_argument("--emulate", default="", help="run on this emulated backend's device (npu)")
    parser.add_argument(
        "--no-run",
        action="store_true",
        help="write the files and what they were made from, and do not run them (for the replay)",
    )
    args = parser.parse_args()
    draws = load_draws()
    if args.show_lists:
        show_lists(draws)
        return
    names = read_names(args.lists or ["default"], draws)

    from torchparity.api import UnresolvedApi, agent_session, resolve_api
    from torchparity.config import load_preset
    from torchparity.scaffold import scaffold_facts_many, scaffold_test

    out = args.out or Path(tempfile.mkdtemp(prefix="bench-scaffold-"))
    out.mkdir(parents=True, exist_ok=True)
    from torchparity.emulated import runner_settings

    first = runner_settings(args.emulate, "", "cpu" if not args.emulate else "auto")
    backend, device, environ = first.backend_module, first.device, first.environ
    config = load_preset("torch_npu" if backend == "torch_npu" else "default")
    rows: dict[str, dict[str, object]] = {
        n: {"api": n, "family": "", "passes": None, "caught": None} for n in names
    }
    t0 = time.perf_counter()
    with agent_session(sys.executable, backend, device, environ=environ) as session:
        infos = []
        for name in names:
            try:
                infos.append(
                    resolve_api(
                        [name], sys.executable, backend, device, trace=False, session=session
                    )[0]
                )
            except UnresolvedApi as exc:
                rows[name]["family"] = "unresolved"
                rows[name]["why"] = str(exc).splitlines()[0][:160]
        t_resolve = time.perf_counter() - t0
        t = time.perf_counter()
        facts = scaffold_facts_many(infos, session, backend_module=backend)
        t_facts = time.perf_counter() - t
    jobs, owners = [], []
    for info, f in zip(infos, facts, strict=True):
        sub = out / info.resolution.query  # unique: two names of the list may resolve to one API
        result = scaffold_test(
            info,
            config,
            python=sys.executable,
            device=device,
            backend_module=backend,
            out_dir=sub,
            facts=f,
        )
        (sub / "facts.json").write_text(json.dumps(f, indent=1, default=str))
        (sub / "info.json").write_text(json.dumps(info.to_json(), indent=1))
        row = rows[info.resolution.query]
        row.update(
            family=result.family,
            file=result.path,
            tests=len(result.methods),
            fill_in=result.fill_in[0][:1200] if result.fill_in else "",
        )
        if result.fill_in:
            continue
        res = dict(dataclasses.asdict(info.resolution), spelled=result.spelling)
        jobs += [{"file": result.path, "standin": None}, {"file": result.path, "standin": res}]
        owners.append(row)
    if args.no_run:
        fams = Counter(str(r["family"]) for r in rows.values())
        print(f"APIs: {len(rows)}; files written under {out}, not run (--no-run)")
        print("families: " + ", ".join(f"{k} {v}" for k, v in fams.most_common()))
        print(f"time: resolve {t_resolve:.1f} s, facts + agent checks {t_facts:.1f} s")
        return
    t = time.perf_counter()
    results = run_files(jobs, out, environ.get("PYTHONPATH", ""), backend) if jobs else []
    t_run = time.perf_counter() - t
    for n, row in enumerate(owners):
        clean, broken = results[2 * n], results[2 * n + 1]
        row["passes"] = clean["exit_code"] == 0 and clean["summary"].startswith("OK")
        row["caught"] = broken["exit_code"] != 0 if broken.get("replaced") else None
        row["standin"] = broken.get("standin_problem", "")
        row["caught_by"] = broken.get("first_failure", "") if row["caught"] else ""
        if not row["passes"]:
            row["why"] = clean["summary"] + " " + clean.get("first_failure", "")
    where = f"{device} (emulated on CPU)" if args.emulate else "CPU"
    print(f"device: {where}")
    print(f"{'API':78} {'family':14} {'pass':5} {'caught':6}")
    for row in rows.values():
        caught = {True: "yes", False: "NO", None: "n/a"}[row["caught"]] if row["passes"] else "-"
        passes = {True: "pass", False: "FAIL", None: "-"}[row["passes"]]
        print(f"{row['api'][:78]:78} {row['family']:14} {passes:5} {caught:6}")
    total = len(rows)
    real = [r for r in rows.values() if r["passes"] and r["caught"]]
    fams = Counter(str(r["family"]) for r in rows.values())
    print()
    print(
        f"APIs: {total}; a real test that passes on the {where} and fails with the API replaced: "
        f"{len(real)} ({100.0 * len(real) / max(total, 1):.0f} %)"
    )
    print("families: " + ", ".join(f"{k} {v}" for k, v in fams.most_common()))
    print(
        f"passes: {sum(1 for r in rows.values() if r['passes'])}; "
        f"fails: {sum(1 for r in rows.values() if r['passes'] is False)}; "
        f"caught: {len(real)}; "
        f"not caught: {sum(1 for r in rows.values() if r['passes'] and r['caught'] is False)}; "
        f"stand-in not installable: {sum(1 for r in rows.values() if r['passes'] and r['caught'] is None)}"
    )
    print(
        f"time: resolve {t_resolve:.1f} s, facts + agent checks {t_facts:.1f} s, "
        f"running the files twice {t_run:.1f} s"
    )
    if args.json:
        args.json.write_text(json.dumps(list(rows.values()), indent=1))


if __name__ == "__main__":
    main()
