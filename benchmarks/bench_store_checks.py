"""What the store's self-checks cost: reading runs with every row, record, log and seal checked.

    python benchmarks/bench_store_checks.py [--runs 50] [--targets 4] [--log-kib 200] [--records 3]

Fills a store with RUNS runs of TARGETS targets (random logs of LOG_KIB KiB each, the
records naming their run, as the collector writes them) and RECORDS stage records each
(task, resolve, verify ...: rows the seal names), then times, in one process:
``Store.runs()`` cold (every record read, every log hashed, every seal compared),
again (logs hashed once per process unless they change: checked by size, mtime, inode),
and ``run(id)`` + ``targets(id)`` + ``records(id)`` of one run (what ``report`` reads).
Target (2-core machine): the cold ``runs()`` of 50 x 4 x 200 KiB within 1 s.
Wall clock, time.perf_counter.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from torchparity.store import Store  # noqa: E402

TARGET_COLD_S = 1.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--targets", type=int, default=4)
    ap.add_argument("--log-kib", type=int, default=200)
    ap.add_argument("--records", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        store = Store(Path(tmp) / "store")
        t0 = time.perf_counter()
        for _ in range(args.runs):
            rid = store.new_run("run", ["run", "t.py"])
            for j in range(args.targets):
                label = f"master@e{j}"
                store.add_target(
                    rid,
                    label=label,
                    ref="master",
                    env=f"e{j}",
                    result="PASS",
                    log=os.urandom(args.log_kib << 10),
                    record={"label": label, "result": "PASS", "run_id": rid},
                )
            for k in range(args.records):
                store.put_record(f"stage{k}", "torch.add", {"stage": k, "run": rid}, run_id=rid)
            store.finish_run(rid, "PASS")
        fill = time.perf_counter() - t0
        total_mib = args.runs * args.targets * args.log_kib / 1024
        cold = Store(store.root, create=False)
        t0 = time.perf_counter()
        rows = cold.runs(limit=args.runs)
        t_cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        cold.runs(limit=args.runs)
        t_warm = time.perf_counter() - t0
        one = Store(store.root, create=False)
        t0 = time.perf_counter()
        one.run(rows[0].id)
        one.targets(rows[0].id)
        one.records(rows[0].id)
        t_one = time.perf_counter() - t0
    print(
        f"store: {args.runs} runs x {args.targets} targets x {args.records} records, {total_mib:.0f} MiB of logs "
        f"(filled in {fill:.2f} s)"
    )
    print(f"runs() cold, everything checked: {t_cold:.3f} s (target <= {TARGET_COLD_S} s)")
    print(f"runs() again in the same process: {t_warm:.3f} s")
    print(f"run(id) + targets(id) + records(id) of one run, cold: {t_one:.3f} s")
    return 0 if t_cold <= TARGET_COLD_S else 1


if __name__ == "__main__":
    sys.exit(main())
