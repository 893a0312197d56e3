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

``--without F,G`` plans every API again with those families left out of the registry and
prints which APIs fall to ``fill-in`` and which move to another family (and to which). A family
with no ``sole`` API is dominated on that folder's names: the redesign's first candidates to
fold into a more general one. The figures hold for the names of ``OUT`` only; a family may reach
names of another draw that no other family does.
"""

from __future__ import annotations

import argparse
import json
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


def main(argv: list[str] | None = None) -> int:
    from torchparity.scaffold.families import REGISTRY
    from torchparity.scaffold.fill_in import FILL_IN

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="a folder bench_scaffold.py --out filled")
    ap.add_argument("--without", default="", help="families to leave out, comma-separated")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = ap.parse_args(argv)
    leave_out = frozenset(f for f in args.without.split(",") if f)
    unknown = sorted(leave_out - set(REGISTRY.names))
    if unknown:
        print(
            f"ERROR: no family called {', '.join(unknown)}; families: {', '.join(REGISTRY.names)}"
        )
        return 2
    planned = plan_all(args.out)
    table = yields(planned)
    print(f"{'family':<15} {'chosen':>6} {'kept':>6} {'sole':>6}")
    for y in table:
        print(f"{y.family:<15} {y.chosen:>6} {y.kept:>6} {y.sole:>6}")
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
