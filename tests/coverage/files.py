"""Test files written for the coverage tests: one test function per form a use can take."""

from __future__ import annotations

API = "torch.autograd.grad_mode.set_grad_enabled.clone"

#: every form that must be found as a direct use of set_grad_enabled.clone (or of the API named)
FORMS = """
import unittest

import torch
import torch as t
from torch import set_grad_enabled as sge
from torch.autograd import grad_mode


def make_ctx(mode):
    return torch.set_grad_enabled(mode)


def _clone_check(case, mode):
    cloned = torch.set_grad_enabled(mode).clone()
    case.assertEqual(cloned.mode, mode)


class TestForms(unittest.TestCase):
    def setUp(self):
        self.param = torch.nn.Parameter(torch.zeros(2))
        self.opt = torch.optim.SGD([self.param], lr=0.1)

    def test_chained_call(self):
        self.assertFalse(torch.set_grad_enabled(False).clone().mode)

    def test_aliased_import(self):
        self.assertTrue(sge(True).clone().mode)

    def test_module_alias(self):
        self.assertTrue(t.set_grad_enabled(True).clone().mode)

    def test_from_module(self):
        self.assertTrue(grad_mode.set_grad_enabled(True).clone().mode)

    def test_local_variable(self):
        ctx = torch.set_grad_enabled(False)
        copy = ctx.clone()
        self.assertIsNot(ctx, copy)

    def test_context_manager(self):
        with torch.set_grad_enabled(False).clone():
            self.assertFalse(torch.is_grad_enabled())

    def test_decorator(self):
        @torch.set_grad_enabled(False).clone()
        def double(x):
            return x * 2

        self.assertFalse(double(torch.ones(1, requires_grad=True)).requires_grad)

    def test_helper_function(self):
        _clone_check(self, True)

    def test_helper_return(self):
        ctx = make_ctx(False)
        self.assertFalse(ctx.clone().mode)

    def test_inherited_method(self):
        self.opt.zero_grad()

    def test_inherited_local(self):
        opt = torch.optim.Adam([self.param])
        opt.zero_grad()

    @torch.no_grad()
    def test_decorated_test(self):
        self.assertFalse(torch.is_grad_enabled())


if __name__ == "__main__":
    unittest.main()
"""

#: forms that must NOT count as a direct use of set_grad_enabled.clone
NEGATIVES = '''
import torch


class TestNegatives:
    def test_comment_only(self):
        # torch.set_grad_enabled(False).clone() would be the call
        assert torch.is_grad_enabled()

    def test_string_only(self):
        """Checks torch.set_grad_enabled.clone in prose only."""
        code = "torch.set_grad_enabled(False).clone()"
        assert "clone" in code

    def test_parent_only(self):
        with torch.set_grad_enabled(False):
            assert not torch.is_grad_enabled()

    def test_other_clone(self):
        ctx = torch.set_grad_enabled(True)
        ctx = torch.zeros(2)
        assert ctx.clone().shape == (2,)

    def test_tensor_clone(self):
        x = torch.ones(3)
        assert x.clone().sum() == 3
'''

#: the same file on two refs: v2.7.1 adds a direct test, master does not have it
TWO_REFS_BASE = """
import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestGradMode(TestCase):
    def test_set_grad_enabled(self):
        with torch.set_grad_enabled(False):
            self.assertFalse(torch.is_grad_enabled())


if __name__ == "__main__":
    run_tests()
"""

TWO_REFS_ADDED = TWO_REFS_BASE.replace(
    """

if __name__ == "__main__":""",
    """
    def test_set_grad_enabled_clone(self):
        ctx = torch.set_grad_enabled(False)
        cloned = ctx.clone()
        self.assertEqual(cloned.mode, ctx.mode)


if __name__ == "__main__":""",
)

#: upstream PyTorch's own test of the parent
UPSTREAM = """
import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestAutograd(TestCase):
    def test_set_grad_enabled(self):
        x = torch.tensor([1.0], requires_grad=True)
        with torch.set_grad_enabled(False):
            y = x * 2
        self.assertFalse(y.requires_grad)

    def test_set_grad_enabled_wraps(self):
        @torch.set_grad_enabled(False)
        def f(x):
            return x * 2

        self.assertFalse(f(torch.ones(1, requires_grad=True)).requires_grad)
"""
