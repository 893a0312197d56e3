"""Render again, from kept facts, what scaffold wrote: every candidate family's file and the chosen one.

Run from the repository root (no torch needed: only the controller's side renders):

    python benchmarks/scaffold_replay.py OUT --save MANIFEST      # what the code of the moment writes
    python benchmarks/scaffold_replay.py OUT --compare MANIFEST   # the same, held against a manifest

``OUT`` is a folder ``bench_scaffold.py --out OUT`` filled: one folder per API with ``info.json``
(the resolve record) and ``facts.json`` (the agent's facts, with the outcome of each candidate's
check). The agent is not asked again, so this shows only what the controller's code does with the
same facts: a refactor of ``scaffold/`` that keeps every text keeps every family, pass and catch of
the benchmark run the facts came from. A change on the agent's side needs ``bench_scaffold.py``.

``--compare`` prints each API whose chosen file or any candidate's file differs (with the first
lines of the difference) and exits 1 if one does, 0 if none.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any


def render_one(folder: Path) -> dict[str, object]:
    """The chosen family and file, and each candidate's file, rendered from ``folder``'s records."""
    from torchparity.api import ApiInfo
    from torchparity.config import load_preset
    from torchparity.scaffold import scaffold_test
    from torchparity.scaffold.check import check_items

    try:
        from torchparity.scaffold.facts import decode_facts
    except ImportError:  # the code before the facts schema (a baseline): the answer as it came

        def decode_facts(doc: object, where: str = "") -> Any:
            return doc

    info = ApiInfo.from_json(json.loads((folder / "info.json").read_text("utf-8")))
    # read as the agent's answer is, once: the candidates and scaffold_test see the same facts
    facts = decode_facts(json.loads((folder / "facts.json").read_text("utf-8")), str(folder))
    backend = "torch_npu" if facts.get("device_type") == "npu" else ""
    config = load_preset("torch_npu" if backend else "default")
    candidates = {
        str(item["key"]): str(item["source"]) for item in check_items(info, facts, backend)
    }
    with tempfile.TemporaryDirectory() as tmp:
        try:
            result = scaffold_test(
                info,
                config,
                python=sys.executable,
                backend_module=backend,
                out_dir=tmp,
                facts=facts,
                write=False,
                year=2000,
            )
            chosen: dict[str, object] = {"family": result.family, "content": result.content}
        except Exception as exc:  # a crash is an outcome to compare, not the end of the replay
            chosen = {"family": "", "content": f"{type(exc).__name__}: {exc}"}
    return {**chosen, "candidates": candidates}


def replay(out: Path) -> dict[str, dict[str, object]]:
    folders = sorted(p.parent for p in out.glob("*/info.json"))
    if not folders:
        raise SystemExit(
            f"ERROR: no API folder with info.json under {out}; run bench_scaffold.py --out {out}"
        )
    out_: dict[str, dict[str, object]] = {}
    for n, folder in enumerate(folders, 1):
        out_[folder.name] = render_one(folder)
        if n % 250 == 0:
            print(f"  {n}/{len(folders)}", file=sys.stderr)
    return out_


def _diff(a: str, b: str, limit: int = 30) -> str:
    lines = list(
        difflib.unified_diff(a.splitlines(), b.splitlines(), "manifest", "now", lineterm="")
    )
    return "\n".join(lines[:limit]) + ("\n..." if len(lines) > limit else "")


def compare(old: dict[str, dict[str, object]], new: dict[str, dict[str, object]]) -> int:
    differ = 0
    for api in sorted(set(old) | set(new)):
        a, b = old.get(api), new.get(api)
        if a is None or b is None:
            print(f"{api}: only in the {'manifest' if b is None else 'replay'}")
            differ += 1
            continue
        what = []
        if a["family"] != b["family"]:
            what.append(f"family {a['family']} -> {b['family']}")
        if a["content"] != b["content"]:
            what.append("chosen file:\n" + _diff(str(a["content"]), str(b["content"])))
        ca, cb = a["candidates"], b["candidates"]
        assert isinstance(ca, dict) and isinstance(cb, dict)
        for key in sorted(set(ca) | set(cb)):
            if ca.get(key) != cb.get(key):
                what.append(
                    f"candidate {key}:\n" + _diff(str(ca.get(key, "")), str(cb.get(key, "")))
                )
        if what:
            differ += 1
            print(f"== {api}: " + "\n".join(what))
    print(f"{len(new)} APIs replayed; {differ} differ")
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="a folder bench_scaffold.py --out filled")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path, help="write the manifest here")
    group.add_argument("--compare", type=Path, help="hold the replay against this manifest")
    args = parser.parse_args()
    now = replay(args.out)
    if args.save:
        args.save.write_text(json.dumps(now, indent=1, sort_keys=True), "utf-8")
        print(f"{len(now)} APIs replayed; manifest written to {args.save}")
        return
    sys.exit(compare(json.loads(args.compare.read_text("utf-8")), now))


if __name__ == "__main__":
    main()
