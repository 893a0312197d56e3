"""How many APIs ``resolve`` classifies when no call sample is given, on a list of real task names.

Run from the repository root with an interpreter that has torch (the CPU build is enough):

    PYTHONPATH=src python benchmarks/bench_resolve_classify.py [--list NAME|all-dev|FILE ...] [--json FILE]

The names come from benchmarks/scaffold_draws.toml (``--list``, repeatable; default: ``dev15``
and ``dev16``, 300 names; read with bench_scaffold's ``read_names``). Every name is resolved with
its trace (``resolve_api(..., trace=True)``) in one agent session, a few names a job (a name that
does not resolve is asked alone and counted apart), and nothing else is given: no test file, no
``--call``. A name is *classified* when the classifier reaches a definite class, that is when its
conclusion does not say the class is "not established" (a Python API with no trace, a C binding or
device-runtime API whose trace is missing or failed). Printed: the share classified, how its trace
was got (built-in call sample, a call the facts probe built, none), the time, and for the rest the
reasons, grouped.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bench_scaffold import read_names  # noqa: E402

#: what a conclusion says when its class is not established
NOT_ESTABLISHED = "not established"
#: names per resolve job
CHUNK = 10
MAX_REASONS = 15


def classified(info: Any) -> bool:
    return NOT_ESTABLISHED not in info.classification.conclusion_en


def _source(info: Any) -> str:
    t = info.trace
    if t is None:
        return "none"
    return getattr(t, "source", "") or "sample"


def _reason(info: Any) -> str:
    """Why an API was left unclassified, in a few words (ids, numbers and names folded)."""
    t = info.trace
    if t is None:
        why = "no trace (no call sample)"
    elif t.status == "no-sample":
        why = f"no call: {t.error}"
    else:
        why = f"trace {t.status}: {t.error}"
    why = why.replace(info.canonical, "API")
    why = re.sub(r"\(\d+ tried\)", "(N tried)", why)
    why = re.sub(r"0x[0-9a-f]+", "0x…", why)
    return why[:160]


def resolve_names(names: list[str], python: str) -> tuple[list[Any], list[str]]:
    from torchparity.api import UnresolvedApi, agent_session, resolve_api

    infos: list[Any] = []
    unresolved: list[str] = []
    with agent_session(python, device="cpu") as session:
        for i in range(0, len(names), CHUNK):
            chunk = names[i : i + CHUNK]
            try:
                infos += resolve_api(chunk, python, trace=True, session=session)
            except UnresolvedApi:  # each name of the chunk alone
                for name in chunk:
                    try:
                        infos += resolve_api([name], python, trace=True, session=session)
                    except UnresolvedApi:
                        unresolved.append(name)
            print(f"  {min(i + CHUNK, len(names))}/{len(names)}", file=sys.stderr, flush=True)
    return infos, unresolved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="append", dest="lists", metavar="NAME|all-dev|FILE")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--json", type=Path, help="write each API's category, source and reason here")
    opts = ap.parse_args()
    lists = opts.lists or ["dev15", "dev16"]
    names = read_names(lists)
    t0 = time.perf_counter()
    infos, unresolved = resolve_names(names, opts.python)
    wall = time.perf_counter() - t0
    done = [i for i in infos if classified(i)]
    rest = [i for i in infos if not classified(i)]
    n = len(infos)
    print(f"lists: {', '.join(lists)}: {len(names)} names, {n} resolved, {len(unresolved)} not")
    print(
        f"classified with no call sample given: {len(done)}/{n} ({100.0 * len(done) / max(n, 1):.1f}%)"
    )
    by_source = Counter(_source(i) for i in infos)
    done_by_source = Counter(_source(i) for i in done)
    print(
        "trace from: "
        + ", ".join(
            f"{src} {by_source[src]} ({done_by_source[src]} classified)"
            for src in sorted(by_source)
        )
    )
    print(
        "categories: "
        + ", ".join(f"{c} {k}" for c, k in Counter(i.category for i in done).most_common())
    )
    print(f"wall: {wall:.1f} s ({1000.0 * wall / max(len(names), 1):.0f} ms a name)")
    reasons = Counter(_reason(i) for i in rest)
    print(f"not classified ({len(rest)}), by reason:")
    for why, k in reasons.most_common(MAX_REASONS):
        print(f"  {k:4d}  {why}")
    if len(reasons) > MAX_REASONS:
        print(f"  {sum(k for _, k in reasons.most_common()[MAX_REASONS:]):4d}  (other reasons)")
    if opts.json:
        rows = [
            {
                "api": i.canonical,
                "category": i.category,
                "classified": classified(i),
                "source": _source(i),
                "reason": "" if classified(i) else _reason(i),
            }
            for i in infos
        ]
        opts.json.write_text(json.dumps({"apis": rows, "unresolved": unresolved}, indent=1))


if __name__ == "__main__":
    main()
