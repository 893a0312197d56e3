"""Whether the scaffold tries the families in the same order as another version of the code.

Every name of every list of benchmarks/scaffold_draws.toml (and, with ``--surface``, every public API
of torch; with ``--names FILE``, the names of a file) is resolved once (in the agent, with
an interpreter that has torch, as ``torchparity resolve`` does; no trace) and kept in a cache;
``candidates(info, backend_module)`` is then asked of the code at hand, for the CPU
(``backend_module=""``) and for ``torch_npu``, and compared with the orders another version gave:

    # on the old code: resolve the names and write their orders
    PYTHONPATH=src python benchmarks/check_family_order.py --infos /tmp/infos.json --dump old.json
    # on the new code: the same names, compared
    PYTHONPATH=src python benchmarks/check_family_order.py --infos /tmp/infos.json --against old.json

``--ref GIT_REF`` compares instead with ``src/torchparity/scaffold/families.py`` as it is at that
ref (while that file stood alone), loaded into this process beside the code at hand. Prints the
number of names compared and each name whose order differs; exits 1 when some differ.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parent
BACKENDS = ("", "torch_npu")
#: names resolved per agent call
CHUNK = 200

Candidates = Callable[[Any, str], list[str]]


def all_names() -> list[str]:
    sys.path.insert(0, str(HERE))
    from bench_scaffold import load_draws

    names: list[str] = []
    for d in load_draws():
        names += [str(n) for n in d["names"]]  # type: ignore[attr-defined]
    return list(dict.fromkeys(n for n in names if n))


def surface_names(session: Any) -> list[str]:
    """Every public API of the environment's torch, as ``torchparity plan`` walks it."""
    from torchparity.plan.surface import read_surface

    return [a.name for a in read_surface(session).apis]


def resolve_all(
    names: list[str], surface: bool
) -> tuple[list[str], dict[str, Any], dict[str, str]]:
    """The names (with the public surface's), the resolve records (JSON) of those that resolve, and
    why the others do not."""
    from torchparity.api import agent_session
    from torchparity.api.classify import classify
    from torchparity.api.records import ApiInfo, Resolution
    from torchparity.api.resolve import RESOLVE_TIMEOUT

    infos: dict[str, Any] = {}
    unresolved: dict[str, str] = {}
    with agent_session(sys.executable, "", "cpu") as session:
        if surface:
            names = list(dict.fromkeys([*names, *surface_names(session)]))
        for start in range(0, len(names), CHUNK):
            chunk = names[start : start + CHUNK]
            answer = session.call("resolve", {"names": chunk, "trace": False}, RESOLVE_TIMEOUT)
            device_type = str(answer.get("device_type", ""))
            for name, item in zip(chunk, answer.get("results", []), strict=True):
                if item.get("status") != "ok":
                    unresolved[name] = str(item.get("status"))
                    continue
                res = Resolution.from_json(item["resolution"])
                info = ApiInfo(res, classify(res, None, device_type, ""), None, device_type)
                infos[name] = info.to_json()
            print(f"resolved {min(start + CHUNK, len(names))}/{len(names)}", file=sys.stderr)
    return names, infos, unresolved


def load_infos(
    path: Path, refresh: bool, extra: list[str], surface: bool
) -> tuple[dict[str, Any], dict[str, str]]:
    """The resolved names (from the cache ``path`` when it holds them, else resolved into it)."""
    key = {"extra": extra, "surface": surface}
    if path.is_file() and not refresh:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("key", {"extra": [], "surface": False}) == key:
            return doc["infos"], doc["unresolved"]
    _, infos, unresolved = resolve_all(list(dict.fromkeys(all_names() + extra)), surface)
    doc = {"key": key, "infos": infos, "unresolved": unresolved}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return infos, unresolved


def orders(candidates: Candidates, infos: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    from torchparity.api.records import ApiInfo

    out: dict[str, dict[str, list[str]]] = {b: {} for b in BACKENDS}
    for name, doc in infos.items():
        info = ApiInfo.from_json(doc)
        for backend in BACKENDS:
            out[backend][name] = candidates(info, backend)
    return out


def candidates_at(ref: str) -> Candidates:
    """``candidates`` of ``scaffold/families.py`` at a git ref, as a module of the package at hand."""
    source = subprocess.run(
        ["git", "show", f"{ref}:src/torchparity/scaffold/families.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    import torchparity.scaffold

    name = "torchparity.scaffold._families_at_ref"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = torchparity.scaffold.__name__
    sys.modules[name] = module
    exec(compile(source, f"{ref}:families.py", "exec"), module.__dict__)
    found: Candidates = module.candidates
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--infos", type=Path, required=True, help="cache of the resolved names")
    parser.add_argument("--refresh", action="store_true", help="resolve again into --infos")
    parser.add_argument("--names", type=Path, help="more names to compare, one a line (# comments)")
    parser.add_argument(
        "--surface", action="store_true", help="every public API of torch as well (plan's walk)"
    )
    parser.add_argument("--dump", type=Path, help="write the orders of the code at hand here")
    parser.add_argument("--against", type=Path, help="compare with orders --dump wrote")
    parser.add_argument("--ref", help="compare with scaffold/families.py at this git ref")
    args = parser.parse_args()
    t0 = time.perf_counter()
    extra = []
    if args.names:
        lines = args.names.read_text(encoding="utf-8").splitlines()
        extra = [n for n in (line.split("#", 1)[0].strip() for line in lines) if n]
    infos, unresolved = load_infos(args.infos, args.refresh, extra, args.surface)
    print(f"{len(infos)} names resolved, {len(unresolved)} not ({time.perf_counter() - t0:.1f} s)")
    from torchparity.scaffold.families import candidates

    now = orders(candidates, infos)
    if args.dump:
        args.dump.write_text(json.dumps(now, indent=0, sort_keys=True), encoding="utf-8")
        print(f"orders written to {args.dump}")
    if args.against:
        old = json.loads(args.against.read_text(encoding="utf-8"))
    elif args.ref:
        old = orders(candidates_at(args.ref), infos)
    else:
        return
    differ = 0
    for backend in BACKENDS:
        label = backend or "cpu"
        for name in infos:
            before, after = old[backend].get(name), now[backend][name]
            if before != after:
                differ += 1
                print(f"DIFFERS [{label}] {name}\n  before: {before}\n  after:  {after}")
    compared = len(infos) * len(BACKENDS)
    print(
        f"{compared} orders compared ({len(infos)} names x {len(BACKENDS)} backends): {differ} differ"
    )
    raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
