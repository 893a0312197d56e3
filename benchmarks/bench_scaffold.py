"""Scaffold timings: facts per API and in one batch, rendering, and running the generated tests.

Run from the repository root with an interpreter that has torch:
    PYTHONPATH=src python benchmarks/bench_scaffold.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

APIS = [
    "torch.autograd.grad_mode.set_grad_enabled.clone", "torch.autograd.grad_mode.set_multithreading_enabled.clone",
    "torch.autograd.grad_mode.inference_mode.clone", "torch.no_grad", "torch.inference_mode",
    "torch.autograd.grad_mode.set_grad_enabled.__enter__", "torch.nn.functional.relu", "torch.add", "torch.mul",
    "torch.Tensor.add_", "torch.Tensor.ndim", "torch.Tensor.ndimension", "torch.Tensor.item",
    "torch._utils._get_device_index", "torch.promote_types", "torch.is_nonzero", "torch.set_default_dtype",
    "torch.BoolStorage", "torch.UntypedStorage", "torch.cpu.device_count", "torch.cpu.synchronize",
    "torch.cpu.current_stream", "torch.Stream",
]


def main() -> None:
    from torchparity.api import agent_session, resolve_api
    from torchparity.config import load_preset
    from torchparity.scaffold import scaffold_facts, scaffold_facts_many, scaffold_test

    config = load_preset("default")
    out = Path(tempfile.mkdtemp(prefix="bench-scaffold-"))
    t0 = time.perf_counter()
    with agent_session(sys.executable, "", "cpu") as session:
        infos = resolve_api(APIS, sys.executable, "", "cpu", trace=False, session=session)
        t_resolve = time.perf_counter() - t0
        per_api = []
        for info in infos:
            t = time.perf_counter()
            scaffold_facts(info, session)
            per_api.append(time.perf_counter() - t)
        t = time.perf_counter()
        facts = scaffold_facts_many(infos, session)
        t_batch = time.perf_counter() - t
    renders = []
    for info, f in zip(infos, facts, strict=True):
        t = time.perf_counter()
        scaffold_test(info, config, python=sys.executable, device="cpu", out_dir=out, facts=f)
        renders.append(time.perf_counter() - t)
    files = sorted(out.glob("test_*.py"))
    runs = []
    for path in files:
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
        runs.append(time.perf_counter() - t)
        assert proc.returncode == 0, proc.stderr[-2000:]
    print(f"APIs: {len(APIS)}")
    print(f"warm worker start + resolve (no trace): {t_resolve:.2f} s")
    print(f"facts, one job per API: total {sum(per_api):.2f} s, median {statistics.median(per_api):.2f} s, "
          f"max {max(per_api):.2f} s")
    print(f"facts, one batch job: {t_batch:.2f} s")
    print(f"plan + render + write per API: median {statistics.median(renders) * 1000:.1f} ms, "
          f"max {max(renders) * 1000:.1f} ms")
    print(f"generated files run as `python FILE` (fresh interpreter each): total {sum(runs):.1f} s, "
          f"median {statistics.median(runs):.2f} s")
    print(f"generated test lines: {sum(len(p.read_text().splitlines()) for p in files)} in {len(files)} files")


if __name__ == "__main__":
    main()
