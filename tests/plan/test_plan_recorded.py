"""``plan`` over the real agent's answers for ``torch.special`` in torch 2.13 (recorded with the ``agent``
fixture, tests/fakeagent.py; ``TORCHPARITY_RECORD_AGENT=1`` records them afresh with this interpreter):
the surface torch itself answers, the pages' names it reaches, and the scaffold family of the first
planned APIs (resolve and the scaffold facts, an agent job for them), none for the others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.plan.test_plan import list_page, plan_in_this_torch
from torchparity.batch.tasks import read_tasks
from torchparity.scaffold.families import NAMES

TESTS = """\
import unittest

import torch


class TestSpecial(unittest.TestCase):
    def test_erf(self):
        self.assertEqual(torch.special.erf(torch.zeros(1)).item(), 0.0)

    def test_expit(self):
        self.assertEqual(torch.special.expit(torch.zeros(1)).item(), 0.5)


if __name__ == "__main__":
    unittest.main()
"""


def page() -> str:
    return list_page(
        "torch.special",
        ("torch.special.xlog1py", "yyy", ()),
        ("torch.special.erf", "yyn", ()),
        ("torch.special.not_in_torch", "yyy", ()),
    )


def test_the_real_surface_of_a_module_with_families_for_the_first_two(
    agent: object, make_repo: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, out, said = plan_in_this_torch(
        make_repo, tmp_path, capsys, "torch.special", page(), TESTS, families=2
    )
    assert doc["environment"]["torch_version"].startswith("2.13")
    rows = {a["name"]: a for a in doc["apis"]}
    assert len(rows) > 40  # torch.special's __all__
    xlog1py = rows["torch.special.xlog1py"]
    assert (xlog1py["state"], xlog1py["planned"]) == ("documented", False)
    assert xlog1py["canonical"] == "torch._C._special.special_xlog1py"  # as resolve names it
    assert rows["torch.special.erf"]["state"] == "unsupported"
    assert rows["torch.special.expit"]["state"] == "missing"
    assert doc["docs"]["not_in_surface"] == [
        {"api": "torch.special.not_in_torch", "why": "its name reaches nothing in this torch"}
    ]
    ranked = [a for a in sorted(doc["apis"], key=lambda a: a["rank"]) if a["planned"]]
    # with direct tests first, ✘ before missing
    assert [a["name"] for a in ranked[:2]] == ["torch.special.erf", "torch.special.expit"]
    assert all(a["family"] in NAMES for a in ranked[:2]), ranked[:2]
    assert ranked[2]["family"] is None
    assert ranked[2]["family_note"].startswith("not computed: beyond the first 2 planned APIs")
    assert doc["families"]["asked"] == 2 and sum(doc["families"]["counts"].values()) == 2
    assert [t.api for t in read_tasks(out).tasks] == [a["api"] for a in ranked]
    assert "families of the first 2 planned APIs" in said
