"""What each scaffold family reaches that no other family does, from kept facts.

Run from the repository root (no torch needed: only the controller's side plans):

    python benchmarks/family_yield.py OUT [--without F,G] [--json FILE]

``OUT`` is a folder ``bench_scaffold.py --out OUT`` filled (``info.json`` and ``facts.json`` per
API; the facts hold each candidate family's checked outcome: its tests run on the CPU, clean and
with the API replaced by a stand-in). Per family it prints:

* ``chosen``: the APIs whose written test is that family's;
* ``kept``: the APIs where the family's plan survives its check (a test passes, and the stand-in
  is caught), whether or not it was chosen;
* ``sole``: the APIs it was chosen for where no other family's plan survives: what scaffold would
  lose to ``fill-in`` without it.

``--lines`` adds what each family costs: the lines of the modules only it reaches (its module, the
scaffold modules, templates and snippets its plan imports or renders, the agent's fact gatherers of
its ``WANTS`` and what they import), and the lines it shares with other families.

``--without F,G`` plans every API again with those families left out of the registry and
prints which APIs fall to ``fill-in`` and which move to another family (and to which). A family
with no ``sole`` API is dominated on that folder's names: the redesign's first candidates to
fold into a more general one. The figures hold for the names of ``OUT`` only; a family may reach
names of another draw that no other family does.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Planned:
    """One API's chosen family, and the families whose plans survive their checks."""

    api: str
    chosen: str
    kept: tuple[str, ...]


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
    chosen = build_plan(info, facts, device, backend, registry).family
    return Planned(folder.name, chosen, kept)


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
    sole = Counter(p.chosen for p in planned if p.kept == (p.chosen,))
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


def _reach(start: set[Path], within: tuple[Path, ...]) -> set[Path]:
    """Every file ``start`` reaches by imports (inside ``within``), templates and snippets."""
    seen: set[Path] = set()
    todo = [p for p in start if p.is_file()]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        if p.suffix == ".py":
            todo += [q for q in _imports(p) | _texts(p) if any(q.is_relative_to(w) for w in within)]
    return seen


def costs() -> dict[str, tuple[int, int]]:
    """Per family: (lines only it reaches, lines it shares with another family)."""
    from torchparity.agent.facts import gather
    from torchparity.scaffold.families import REGISTRY

    gatherers = {}  # a name gather.py imports -> the module it comes from
    gather_path = Path(gather.__file__)
    for node in ast.parse(gather_path.read_text("utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for a in node.names:
                module = gather_path.parent.joinpath(*node.module.split("."))
                gatherers[a.asname or a.name] = module.with_suffix(".py")
    within = (SRC / "scaffold", SRC / "agent" / "facts")
    # what every family goes through: choosing among them, and the one job that gathers facts
    common = _reach({SRC / "scaffold" / "families" / "__init__.py"}, within) | {gather_path}
    reached: dict[str, set[Path]] = {}
    for f in REGISTRY.families:
        start = {SRC.parent / (f.module.replace(".", "/") + ".py")}
        for want in f.wants:
            fact = gather.FACTS[want]
            names = set(fact.gather.__code__.co_names) | set(fact.gather.__code__.co_freevars)
            start |= {gatherers[n] for n in names if n in gatherers}
        reached[f.name] = _reach(start, within) - common
    lines = {p: len(p.read_text("utf-8").splitlines()) for ps in reached.values() for p in ps}
    out = {}
    for name, files in reached.items():
        others = set().union(*(v for k, v in reached.items() if k != name))
        own = sum(lines[p] for p in files - others)
        out[name] = (own, sum(lines[p] for p in files & others))
    return out


def main(argv: list[str] | None = None) -> int:
    from torchparity.scaffold.families import REGISTRY
    from torchparity.scaffold.fill_in import FILL_IN

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="a folder bench_scaffold.py --out filled")
    ap.add_argument("--without", default="", help="families to leave out, comma-separated")
    ap.add_argument("--lines", action="store_true", help="add the lines each family costs")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = ap.parse_args(argv)
    leave_out = frozenset(f for f in args.without.split(",") if f)
    known = [f.name for f in REGISTRY.families]  # fill-in is no family to leave out
    unknown = sorted(leave_out - set(known))
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
    if args.json:
        args.json.write_text(
            json.dumps({"yields": [asdict(y) for y in table], "moved": changes}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
