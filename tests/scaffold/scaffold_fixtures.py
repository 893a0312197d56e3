"""Hand-written records and files for the scaffold unit tests (no torch needed)."""

from __future__ import annotations

from torchparity.api.records import ApiInfo, Classification, Resolution


def resolution(
    canonical: str,
    kind: str,
    *,
    aliases: tuple[str, ...] = (),
    owner: str | None = None,
    owner_kind: str | None = None,
    module: str = "torch",
    signature: str | None = None,
) -> Resolution:
    return Resolution(
        query=canonical,
        path=canonical,
        canonical=canonical,
        aliases=aliases,
        kind=kind,
        kind_detail=kind,
        signature=signature,
        module=module,
        source="torch/x.py:1",
        public=True,
        public_reason="",
        docs_name=canonical,
        docs_url="",
        owner_class=owner,
        owner_kind=owner_kind,
        defined_in=None,
        resolved_via="",
        torch_version="2.13.0+cpu",
    )


def api_info(res: Resolution, category: str = "python-state") -> ApiInfo:
    return ApiInfo(res, Classification(category, "", "", "resolution"), None, "cpu")


def _scenario(**kw):
    """A measured scenario as the agent gives it, with ``kw`` set."""
    doc = {
        "setup": [],
        "call": "_API_()",
        "receiver": "",
        "checks": [],
        "teardown": [],
        "listify": False,
        "statement": False,
        "context": False,
        "remove_handle": False,
        "varies": "",
    }
    doc.update(kw)
    return doc


#: a test file as people write them: header comment, odd spacing, comments, a helper, main guard
EXISTING = '''\
# Copyright (c) 2024 Someone
# keep this comment exactly   as it is
"""Existing gradient-mode tests."""
import torch

from torch.testing._internal.common_utils import TestCase, run_tests   # the project's base class


def helper(x):
    return x  *  2   # odd spacing kept


class TestGradModes(TestCase):
    def test_no_grad(self):
        with torch.no_grad():
            self.assertFalse(torch.is_grad_enabled())

    # a trailing comment inside the class
    def test_enable_grad(self) :
        with torch.enable_grad():
            self.assertTrue(torch.is_grad_enabled())
        # the last line of the class body


if __name__ == "__main__":
    run_tests()
'''

TWO_SPACE = """\
import torch
from torch.testing._internal.common_utils import TestCase, run_tests

DEVICE = "cpu"


class TestTwo(TestCase):
  def test_one(self):
    self.assertEqual(torch.ones(1, device=DEVICE).item(), 1.0)


if __name__ == "__main__":
  run_tests()"""
