"""``plan`` with the real agent in this machine's torch (the slow tier): the surface of torch.optim by
PyTorch's rules, the names a page writes reaching the API of the object they name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.plan.test_plan import list_page, plan_in_this_torch
from torchparity.batch.tasks import read_tasks

pytestmark = pytest.mark.slow

TESTS = """\
import unittest

import torch


class TestOptim(unittest.TestCase):
    def test_sgd_zero_grad(self):
        p = torch.nn.Parameter(torch.ones(2))
        opt = torch.optim.SGD([p], lr=0.1)
        opt.zero_grad()
        self.assertIsNone(p.grad)
"""


def page() -> str:
    return list_page(
        "torch.optim",
        ("torch.optim.Optimizer", "yyy", (("step", "yyy"),)),
        # an inherited member as the pages write it: the base class's API
        ("torch.optim.AdamW.zero_grad", "yyn", ()),
        ("torch.optim.SGD", "yyy", ()),
    )


def test_the_surface_of_torch_optim_in_this_torch(
    make_repo: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, out, said = plan_in_this_torch(
        make_repo, tmp_path, capsys, "torch.optim", page(), TESTS, families=0
    )
    rows = {a["name"]: a for a in doc["apis"]}
    zero_grad = rows["torch.optim.Optimizer.zero_grad"]
    assert zero_grad["canonical"] == "torch.optim.optimizer.Optimizer.zero_grad"
    assert (zero_grad["state"], zero_grad["entry"]) == (
        "unsupported",
        "torch.optim.AdamW.zero_grad",
    )
    assert zero_grad["direct"] >= 1
    assert "torch.optim.AdamW.zero_grad" not in rows  # inherited: the base class's API
    assert rows["torch.optim.Optimizer.step"]["state"] == "documented"
    assert rows["torch.optim.SGD"]["state"] == "documented"
    assert rows["torch.optim.Adam"]["state"] == "missing"
    assert rows["torch.optim.Adam.step"]["kind"] == "method"
    assert rows["torch.optim.lr_scheduler.StepLR"]["module"] == "torch.optim.lr_scheduler"
    assert doc["docs"]["not_in_surface"] == []
    tasks = [t.api for t in read_tasks(out).tasks]
    # ✘ with a direct test: the first task, named as the page writes it
    assert tasks[0] == "torch.optim.AdamW.zero_grad"
