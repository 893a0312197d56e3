"""Resolve/trace timings: in-agent resolution per name, and end-to-end resolve_api / trace_file.

Run from the repository root with an interpreter that has torch:
    PYTHONPATH=src python benchmarks/bench_resolve.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

TASK_LIST = [
    "torch.autograd.grad_mode.set_grad_enabled.clone",
    "torch.autograd.grad_mode.set_multithreading_enabled.clone",
    "torch._utils._get_device_index",
    "Optimizer.zero_grad",
    "Tensor.ndim",
    "torch.BoolStorage",
    "torch.nn.functional.relu",
    "torch.Tensor.add_",
    "torch.cuda.Event",
]
MORE = [
    "torch.add",
    "torch.relu",
    "torch.set_grad_enabled",
    "torch.no_grad",
    "torch.inference_mode",
    "torch.nn.functional",
    "torch.cuda",
    "torch.autograd.Function.apply",
    "torch.Tensor.__torch_function__",
    "torch.distributions.Distribution.set_default_validate_args",
    "torch.Tensor._make_subclass",
    "torch.distributions.Normal.mean",
    "torch.float32",
    "torch.UntypedStorage",
    "torch.profiler.ProfilerActivity.CPU",
    "torch.profiler.ProfilerAction.RECORD",
    "torch.nn.Linear",
    "torch.Generator",
    "torch.autograd.grad",
    "torch.Size",
]
TEST_FILE = (
    """
import unittest
import torch

class TestBench(unittest.TestCase):
"""
    + "".join(
        f"    def test_mul_{i}(self):\n        self.assertEqual((torch.ones(4) * {i}).sum().item(), {4 * i})\n"
        for i in range(50)
    )
    + """
if __name__ == "__main__":
    unittest.main()
"""
)


def _ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.1f} ms (min {min(values) * 1000:.1f}, n={len(values)})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    opts = ap.parse_args()
    names = TASK_LIST + MORE

    t0 = time.perf_counter()
    import torch  # noqa: F401

    from torchparity.agent.api import resolve as agent_resolve

    print(f"import torch in this process: {time.perf_counter() - t0:.2f} s")
    first = time.perf_counter()
    agent_resolve.resolve_many(names)
    print(
        f"in-agent resolve, {len(names)} names, first pass: {(time.perf_counter() - first) * 1000:.1f} ms"
    )
    runs = []
    for _ in range(opts.repeat):
        t = time.perf_counter()
        agent_resolve.resolve_many(names)
        runs.append((time.perf_counter() - t) / len(names))
    print(f"in-agent resolve per name (warm caches): {_ms(runs)}")

    from torchparity.api import agent_session, resolve_api, trace_file

    e2e = []
    for _ in range(opts.repeat):
        t = time.perf_counter()
        resolve_api(TASK_LIST, sys.executable)
        e2e.append(time.perf_counter() - t)
    print(
        f"resolve_api, the 9 task-list names with call-sample traces, new worker each time: {_ms(e2e)}"
    )

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "test_bench_mul.py"
        path.write_text(TEST_FILE)
        with agent_session(sys.executable) as s:
            t = time.perf_counter()
            resolve_api(["torch.add"], sys.executable, session=s)
            warm_start = time.perf_counter() - t
            per = []
            for _ in range(opts.repeat):
                t = time.perf_counter()
                tr = trace_file(path, sys.executable, session=s)
                per.append(time.perf_counter() - t)
        print(
            f"first job on a new warm worker (start + import torch + resolve): {warm_start:.2f} s"
        )
        print(f"trace_file, 50 tests ({tr.total_ops} operator calls), on a warm worker: {_ms(per)}")


if __name__ == "__main__":
    main()
