"""An operator's OpInfo-driven official tests, chosen by the OpInfo name (real torch, op_db)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import git, write
from torchparity.cli import main
from torchparity.store import Store, read_run

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow

OPS_FILE = "test/test_ops_fixture.py"
OPS_TEXT = """
import torch
from torch.testing._internal.common_utils import TestCase, run_tests
from torch.testing._internal.common_device_type import instantiate_device_type_tests, ops
from torch.testing._internal.common_methods_invocations import op_db


class TestOpsFixture(TestCase):
    @ops([o for o in op_db if o.name in ("add", "mul")], allowed_dtypes=(torch.float32,))
    def test_samples_run(self, device, dtype, op):
        for sample in op.sample_inputs(device, dtype):
            op(sample.input, *sample.args, **sample.kwargs)


instantiate_device_type_tests(TestOpsFixture, globals(), only_for="cpu")

if __name__ == "__main__":
    run_tests()
"""


def test_the_instances_for_the_apis_opinfo_run(tmp_path: Path) -> None:
    repo = tmp_path / "backend"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "master")
    write(repo / "torchparity.toml", 'preset = "cpu"\n[upstream]\nvendored = ["test/test_*.py"]\n')
    write(repo / OPS_FILE, OPS_TEXT)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "ops")
    store = tmp_path / "store"
    code = main(
        [
            "upstream",
            "torch.add",
            "--repo",
            str(repo),
            "--ref",
            "master",
            "--python",
            sys.executable,
            "--store",
            str(store),
        ]
    )
    rec = read_run(Store(store), 1).upstream
    assert rec is not None and rec.opinfos == ("add",)
    assert [(t.id, t.status, t.opinfo) for t in rec.targets[0].tests] == [
        ("__main__.TestOpsFixtureCPU.test_samples_run_add_cpu_float32", "passed", "add")
    ]
    assert rec.targets[0].files[0].tests_for_device == 2 and code == 0
