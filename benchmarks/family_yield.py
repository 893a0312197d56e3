"""What each scaffold family reaches that no other family does, from kept facts.

Run from the repository root (no torch needed: only the controller's side plans):

    python benchmarks/family_yield.py OUT [--without F,G] [--lines] [--keep F,G ...] [--frontier]
        [--json FILE]

``OUT`` is a folder ``bench_scaffold.py --out OUT`` filled (``info.json`` and ``facts.json`` per
API; the facts hold each candidate family's checked outcome: its tests run on the CPU, clean and
with the API replaced by a stand-in). Per family it prints:

* ``chosen``: the APIs whose written test is that family's;
* ``kept``: the APIs where the family's plan survives its check (a test passes, and the stand-in
  is caught), whether or not it was chosen;
* ``sole``: the APIs it was chosen for where no other family's plan survives, nor is there one
  whose plan was not checked on the CPU (a family whose test needs the device): what scaffold
  would lose to ``fill-in`` without it.

``--lines`` adds what each family costs: the lines of the modules only it reaches (its module, the
scaffold modules, templates and snippets its plan imports or renders, the agent's fact gatherers of
its ``WANTS`` and what they import), and the lines it shares with other families.

``--keep F,G`` (repeatable) prices an engine with only those families: its lines (the files every
family goes through, and what those families reach) and the APIs one of them still reaches.
``--frontier`` leaves families out one at a time, each time the one that loses the fewest APIs per
line saved, and prints each step's lines and reach: how far leaving families out can go.

``--without F,G`` plans every API again with those families left out of the registry and
prints which APIs fall to ``fill-in`` and which move to another family (and to which). A family
with no ``sole`` API is dominated on that folder's names: the redesign's first candidates to
fold into a more general one. The figures hold for the names of ``OUT`` only; a family may reach
names of another draw that no other family does.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Planned:
    """One API's chosen family, the families whose plans survive their checks, and those whose plans
    were not checked (a family whose test needs the device): either would be chosen without the
    families before it."""

    api: str
    chosen: str
    kept: tuple[str, ...]
    unchecked: tuple[str, ...] = ()

    @property
    def takers(self) -> frozenset[str]:
        """The families that would take this API if they came first."""
        return frozenset(self.kept) | frozenset(self.unchecked)


def plan_one(folder: Path, leave_out: frozenset[str] = frozenset()) -> Planned:
    from torchparity.api import ApiInfo
    from torchparity.scaffold.facts import decode_facts
    from torchparity.scaffold.families import (
        REGISTRY,
        Registry,
        build_plan,
        candidate_plans,
        checked_plan,
    )

    info = ApiInfo.from_json(json.loads((folder / "info.json").read_text("utf-8")))
    facts = decode_facts(json.loads((folder / "facts.json").read_text("utf-8")), str(folder))
    backend = "torch_npu" if facts.get("device_type") == "npu" else ""
    device = "DEVICE"  # the device variable: which family is chosen does not depend on its spelling
    registry = Registry(f for f in REGISTRY.families if f.name not in leave_out)
    checked = facts.get("checked") or {}
    plans, _ = candidate_plans(info, facts, device, backend, registry)
    kept = tuple(
        p.family
        for p in plans
        if p.family in checked and not isinstance(checked_plan(p, checked[p.family]), str)
    )
    unchecked = tuple(p.family for p in plans if p.family not in checked)
    chosen = build_plan(info, facts, device, backend, registry).family
    return Planned(folder.name, chosen, kept, unchecked)


def plan_all(out: Path, leave_out: frozenset[str] = frozenset()) -> list[Planned]:
    folders = sorted(
        p.parent for p in out.glob("*/info.json") if (p.parent / "facts.json").exists()
    )
    if not folders:
        raise SystemExit(
            f"ERROR: no API folder with info.json and facts.json under {out}; "
            f"run bench_scaffold.py --out {out}"
        )
    found = []
    for n, folder in enumerate(folders, 1):
        found.append(plan_one(folder, leave_out))
        if n % 250 == 0:
            print(f"  {n}/{len(folders)}", file=sys.stderr)
    return found


@dataclass(frozen=True)
class Yield:
    family: str
    chosen: int
    kept: int
    sole: int


def yields(planned: list[Planned]) -> list[Yield]:
    chosen = Counter(p.chosen for p in planned)
    kept = Counter(f for p in planned for f in p.kept)
    sole = Counter(p.chosen for p in planned if p.takers == {p.chosen})
    names = sorted(set(chosen) | set(kept), key=lambda f: (-chosen[f], f))
    return [Yield(f, chosen[f], kept[f], sole[f]) for f in names]


def moved(before: list[Planned], after: list[Planned]) -> list[tuple[str, str, str]]:
    """(api, family before, family after) for each API whose chosen family changed."""
    now = {p.api: p.chosen for p in after}
    return [(p.api, p.chosen, now[p.api]) for p in before if now.get(p.api, p.chosen) != p.chosen]


SRC = Path(__file__).resolve().parent.parent / "src" / "torchparity"


def _imports(path: Path) -> set[Path]:
    """The modules of this package that ``path`` imports (relative imports), as files."""
    found: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        base = path.parent
        for _ in range(node.level - 1):
            base = base.parent
        parts = node.module.split(".") if node.module else []
        names = [a.name for a in node.names]
        for target in [base.joinpath(*parts)] + [base.joinpath(*parts, n) for n in names]:
            for candidate in (target.with_suffix(".py"), target / "__init__.py"):
                if candidate.is_file() and candidate != path:
                    found.add(candidate)
    return found


def _texts(path: Path) -> set[Path]:
    """The templates a module renders and the snippets it reads (by the names it spells)."""
    text = path.read_text("utf-8")
    out = {SRC / "scaffold" / "templates" / t for t in re.findall(r'"([\w]+\.py\.j2)"', text)}
    out |= {
        SRC / "scaffold" / "recipes" / "snippets" / f"{f}.py"
        for f in re.findall(r'snippet\("(\w+)"', text)
    }
    return {p for p in out if p.is_file()}


def _reach(
    start: set[Path], within: tuple[Path, ...], stop: frozenset[Path] = frozenset()
) -> set[Path]:
    """Every file ``start`` reaches by imports (inside ``within``), templates and snippets; a file of
    ``stop`` is reached but not followed (the job that gathers every fact imports every gatherer)."""
    seen: set[Path] = set()
    todo = [p for p in start if p.is_file()]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        if p.suffix == ".py" and p not in stop:
            todo += [q for q in _imports(p) | _texts(p) if any(q.is_relative_to(w) for w in within)]
    return seen


WITHIN = (SRC / "scaffold", SRC / "agent" / "facts")


@dataclass(frozen=True)
class Files:
    """The engine's files: those every family goes through, and those each family reaches beyond."""

    common: frozenset[Path]
    reached: dict[str, frozenset[Path]]

    @staticmethod
    def lines(paths: set[Path] | frozenset[Path]) -> int:
        return sum(_lines(p) for p in paths)


@functools.cache
def _lines(path: Path) -> int:
    return len(path.read_text("utf-8").splitlines())


@functools.cache
def family_files() -> Files:
    """Every file of the engine (``scaffold/`` and ``agent/facts/``): the ones no family reaches of
    its own (choosing among them, writing and checking a test, the job that gathers facts), and
    per family the ones its module, its templates and snippets and the gatherers of its ``WANTS``
    reach."""
    from torchparity.agent.facts import gather
    from torchparity.scaffold.families import REGISTRY

    gatherers = {}  # a name gather.py imports -> the module it comes from
    gather_path = Path(gather.__file__)
    for node in ast.parse(gather_path.read_text("utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for a in node.names:
                module = gather_path.parent.joinpath(*node.module.split("."))
                gatherers[a.asname or a.name] = module.with_suffix(".py")
    stop = frozenset({gather_path})
    reached: dict[str, set[Path]] = {}
    for f in REGISTRY.families:
        start = {SRC.parent / (f.module.replace(".", "/") + ".py")}
        for want in f.wants:
            fact = gather.FACTS[want]
            names = set(fact.gather.__code__.co_names) | set(fact.gather.__code__.co_freevars)
            start |= {gatherers[n] for n in names if n in gatherers}
        reached[f.name] = _reach(start, WITHIN, stop)
    every = {
        p for w in WITHIN for p in w.rglob("*") if p.suffix in (".py", ".j2", ".toml", ".json")
    }
    common = every - set().union(*reached.values())
    common |= _reach({SRC / "scaffold" / "families" / "__init__.py"} | common, WITHIN, stop)
    return Files(frozenset(common), {k: frozenset(v - common) for k, v in reached.items()})


def costs(files: Files | None = None) -> dict[str, tuple[int, int]]:
    """Per family: (lines only it reaches, lines it shares with another family)."""
    files = files or family_files()
    out = {}
    for name, own in files.reached.items():
        others = set().union(*(v for k, v in files.reached.items() if k != name))
        out[name] = (files.lines(own - others), files.lines(own & others))
    return out


def engine_lines(keep: frozenset[str], files: Files | None = None) -> int:
    """The lines of an engine with only the families ``keep``: the common files, and what they reach."""
    files = files or family_files()
    return files.lines(files.common.union(*(files.reached[k] for k in keep)))


@dataclass(frozen=True)
class Engine:
    """An engine with only some families: its lines, and the APIs one of them still reaches."""

    families: tuple[str, ...]
    lines: int
    reached: int
    apis: int


def engine(planned: list[Planned], keep: frozenset[str], out: Path) -> Engine:
    """What an engine of the families ``keep`` costs and reaches on the names of ``out``: an API is
    reached where a family of ``keep`` is chosen once the others are left out (not ``fill-in``)."""
    from torchparity.scaffold.families import REGISTRY
    from torchparity.scaffold.fill_in import FILL_IN

    everyone = frozenset(f.name for f in REGISTRY.families)
    left = everyone - keep
    after = plan_all(out, left) if left else planned
    families = tuple(f.name for f in REGISTRY.families if f.name in keep)
    reached = sum(1 for p in after if p.chosen != FILL_IN)
    return Engine(families, engine_lines(keep), reached, len(after))


def reached_by(planned: list[Planned], keep: frozenset[str]) -> int:
    """The APIs an engine of the families ``keep`` reaches, read from each API's families that would
    take it (re-planning with the others left out chooses the first of ``keep`` among them, and
    reaches the same APIs: ``engine`` does that)."""
    return sum(1 for p in planned if not keep.isdisjoint(p.takers))


@dataclass(frozen=True)
class Step:
    """One step of the frontier: the family left out, and the engine without it and the ones before."""

    left_out: str
    lines: int
    reached: int


def _cost(planned: list[Planned], files: Files, keep: frozenset[str], f: str) -> tuple[float, int]:
    """What leaving ``f`` out of ``keep`` costs: names lost per line saved, then more lines saved
    first."""
    saved = engine_lines(keep, files) - engine_lines(keep - {f}, files)
    lost = reached_by(planned, keep) - reached_by(planned, keep - {f})
    if not saved:  # nothing saved: first where nothing is lost either, never where something is
        return (0.0 if not lost else float("inf"), 0)
    return (lost / saved, -saved)


def frontier(planned: list[Planned], files: Files | None = None) -> list[Step]:
    """Families left out one at a time, each time the one whose lines cost the most per API only it
    reaches (the fewest APIs lost per line saved; ties: the most lines saved), down to one family:
    the fewest lines an engine of these families needs for each reach."""
    from torchparity.scaffold.families import REGISTRY

    files = files or family_files()
    keep = frozenset(f.name for f in REGISTRY.families)
    steps = []
    while len(keep) > 1:
        out = min(sorted(keep), key=lambda f, k=keep: _cost(planned, files, k, f))
        keep = keep - {out}
        steps.append(Step(out, engine_lines(keep, files), reached_by(planned, keep)))
    return steps


def main(argv: list[str] | None = None) -> int:
    from torchparity.scaffold.families import REGISTRY
    from torchparity.scaffold.fill_in import FILL_IN

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="a folder bench_scaffold.py --out filled")
    ap.add_argument("--without", default="", help="families to leave out, comma-separated")
    ap.add_argument("--lines", action="store_true", help="add the lines each family costs")
    ap.add_argument(
        "--keep",
        action="append",
        default=[],
        metavar="F,G",
        help="an engine with only these families: its lines and the APIs it reaches (repeatable)",
    )
    ap.add_argument(
        "--frontier",
        action="store_true",
        help="leave families out one at a time, the cheapest in APIs per line first",
    )
    ap.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = ap.parse_args(argv)
    leave_out = frozenset(f for f in args.without.split(",") if f)
    keeps = [frozenset(f for f in k.split(",") if f) for k in args.keep]
    known = [f.name for f in REGISTRY.families]  # fill-in is no family to leave out
    unknown = sorted((leave_out | frozenset().union(*keeps)) - set(known))
    if unknown:
        print(
            f"ERROR: no family called {', '.join(unknown)}; families: {', '.join(known)}",
            file=sys.stderr,
        )
        return 2
    planned = plan_all(args.out)
    table = yields(planned)
    cost = costs() if args.lines else {}
    head = f" {'own lines':>9} {'shared':>6}" if cost else ""
    print(f"{'family':<15} {'chosen':>6} {'kept':>6} {'sole':>6}" + head)
    for y in table:
        own, shared = cost.get(y.family, (0, 0))
        tail = f" {own:>9} {shared:>6}" if cost else ""
        print(f"{y.family:<15} {y.chosen:>6} {y.kept:>6} {y.sole:>6}" + tail)
    print(f"{len(planned)} APIs; {sum(1 for p in planned if p.chosen == FILL_IN)} fill-in")
    changes: list[tuple[str, str, str]] = []
    if leave_out:
        changes = moved(planned, plan_all(args.out, leave_out))
        lost = [c for c in changes if c[2] == FILL_IN]
        print(
            f"without {', '.join(sorted(leave_out))}: {len(changes)} APIs change family, "
            f"{len(lost)} fall to {FILL_IN}"
        )
        for api, old, new in changes:
            print(f"  {api}: {old} -> {new}")
    engines = [engine(planned, keep, args.out) for keep in keeps]
    if engines:
        print(f"{'engine':<40} {'lines':>6} {'reached':>8} {'share':>6}")
    for e in engines:
        said = ",".join(e.families) if len(e.families) < len(known) else "every family"
        print(f"{said[:40]:<40} {e.lines:>6} {e.reached:>8} {e.reached / e.apis:>6.1%}")
    steps = frontier(planned) if args.frontier else []
    if steps:
        whole = reached_by(planned, frozenset(known))
        print(f"frontier: every family, {engine_lines(frozenset(known))} lines, {whole} reached")
        print(f"{'left out':<15} {'lines':>6} {'reached':>8} {'share':>6} {'points':>7}")
    for step in steps:
        points = 100 * (whole - step.reached) / len(planned)
        share = step.reached / len(planned)
        print(
            f"{step.left_out:<15} {step.lines:>6} {step.reached:>8} {share:>6.1%} {-points:>7.1f}"
        )
    if args.json:
        figures = {
            "yields": [asdict(y) for y in table],
            "moved": changes,
            "engines": [asdict(e) for e in engines],
            "frontier": [asdict(s) for s in steps],
        }
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
