"""How long reports take: build the model and render every kind for many targets; evaluate a checklist.

Run: PYTHONPATH=src python benchmarks/bench_report.py [TARGETS]
Figures are wall-clock medians of a few repetitions (time.perf_counter).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from torchparity.checks import evaluate_checklist
from torchparity.collect.evidence import render_log
from torchparity.collect.outcomes import parse_outcomes
from torchparity.config import load_preset
from torchparity.records.target import Step, TargetRecord, TestFile
from torchparity.report import build_report, render
from torchparity.store import Store, read_run

OUTPUT = "".join(f"test_case_{i} (__main__.TestX.test_case_{i}) ... ok\n" for i in range(20)) + (
    "\n" + "-" * 70 + "\nRan 20 tests in 0.5s\n\nOK\n"
)


def record(i: int) -> TargetRecord:
    facts = [
        ["python_version", "3.11.7"],
        ["torch_version", "2.13.0+cpu"],
        ["torch_file", "/x/torch/__init__.py"],
        ["device_type", "cpu"],
        ["cpu_available", True],
        ["cpu_device_count", 1],
    ]
    full = Step(
        name="full",
        status="OK",
        exit_code=0,
        command="python test/test_x.py -v",
        output=OUTPUT,
        test_file="test/test_x.py",
        tests=[
            {"id": o.id, "outcome": o.outcome, "detail": o.detail} for o in parse_outcomes(OUTPUT)
        ],
    )
    iso = Step(
        name="isolation:grad_mode",
        status="OK",
        exit_code=0,
        test_file="test/test_x.py",
        result={
            "title": "GRAD MODE",
            "state": "grad_mode",
            "passed": True,
            "runs": [
                {"initial": v, "before": v, "after": v, "tests_run": 20, "successful": True}
                for v in (False, True)
            ],
        },
    )
    return TargetRecord(
        label=f"ref{i}@env",
        ref=f"ref{i}",
        commit="c" * 40,
        env="env",
        python="python",
        mode="warm",
        device="cpu",
        test_files=[TestFile("test/test_x.py", "/w/test/test_x.py", "s" * 64)],
        probe=Step(name="probe", status="OK", exit_code=0, result={"facts": facts}),
        full=[full],
        isolation=[iso],
        result="PASS",
        started=0.0,
        finished=1.0,
    )


def median(fn: Callable[[], object], n: int = 5) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    targets = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "store")
        rid = store.new_run(
            "run", ["run", "--api", "torch.autograd.grad_mode.set_grad_enabled.clone"]
        )
        for i in range(targets):
            rec = record(i)
            store.add_target(
                rid,
                label=rec.label,
                ref=rec.ref,
                env=rec.env,
                result=rec.result,
                log=render_log(rec).encode(),
                record=rec.to_json(),
            )
        store.finish_run(rid, "PASS")
        model = build_report([read_run(store, rid)])
        print(f"{targets} targets x 20 tests")
        print(
            f"  build_report            {median(lambda: build_report([read_run(store, rid)])) * 1000:8.1f} ms"
        )
        for kind in ("pr", "comment", "markdown-summary", "junit", "json"):
            print(
                f"  render {kind:<16} {median(lambda k=kind: render(model, k, 'zh')) * 1000:8.1f} ms"
            )

        repo = Path(tmp) / "repo"
        env = dict(
            os.environ,
            GIT_AUTHOR_NAME="b",
            GIT_AUTHOR_EMAIL="b@x",
            GIT_COMMITTER_NAME="b",
            GIT_COMMITTER_EMAIL="b@x",
        )
        (repo / "test").mkdir(parents=True)
        (repo / "README").write_text("x\n")
        for args in (["init", "-q", "-b", "master"], ["add", "-A"], ["commit", "-qm", "init"]):
            subprocess.run(["git", "-C", str(repo), *args], check=True, env=env)
        (repo / "test" / "test_x.py").write_text(
            '"""torch.autograd.grad_mode.set_grad_enabled.clone"""\nimport torch\n'
            "from torch.testing._internal.common_utils import TestCase, run_tests\n\n\n"
            "class T(TestCase):\n    def test_a(self):\n        torch.set_grad_enabled(False).clone()\n\n\n"
            "if __name__ == '__main__':\n    run_tests()\n"
        )
        for args in (["add", "-A"], ["commit", "-qm", "test: x"]):
            subprocess.run(["git", "-C", str(repo), *args], check=True, env=env)
        cfg = load_preset("default")
        secs = median(
            lambda: evaluate_checklist(
                repo,
                "master..HEAD",
                ["test/test_x.py"],
                api="torch.autograd.grad_mode.set_grad_enabled.clone",
                config=cfg,
            )
        )
        print(f"  evaluate_checklist      {secs * 1000:8.1f} ms (1 file, real git)")


if __name__ == "__main__":
    main()
