"""Test files for the types of names: each form a receiver's type is known by, and a twin that must not be direct.

Positive tests are named ``test_<form>``; their twins ``test_not_<form>`` (the name
rebound to a non-tensor, a same-named method of an unrelated class, the call in a
string or comment, a helper nobody calls).
"""

from __future__ import annotations

#: torch.Tensor.ndimension through every form a Tensor receiver can take
TENSORS = """
import unittest

import torch


class Shape:
    def ndimension(self):
        return 1


def make_npu():
    return torch.randn(3).npu()


def _never_called():
    torch.randn(2).npu().ndimension()


def check_annotated(t: torch.Tensor):
    return t.ndimension()


def tensor():
    return torch.ones(2)


class TestTensorForms(unittest.TestCase):
    def setUp(self):
        self.x = torch.randn(3).npu()
        self.label = "x.ndimension()"

    @classmethod
    def setUpClass(cls):
        cls.shared = torch.zeros(2, 2)

    def test_factory_and_device_method(self):
        x = torch.randn(5).npu()
        self.assertEqual(x.ndimension(), 1)

    def test_not_rebound_to_a_list(self):
        x = torch.randn(5).npu()
        x = x.tolist()
        x.ndimension()

    def test_moves_and_copies(self):
        y = torch.ones(2).cuda().to("cpu").cpu().clone()
        y.ndimension()

    def test_not_an_unrelated_class(self):
        s = Shape()
        s.ndimension()

    def test_arithmetic_and_indexing(self):
        a = torch.randn(3)
        b = 2 * a + a
        c = b[0]
        c.ndimension()

    def test_not_an_int_from_a_tensor(self):
        a = torch.randn(3)
        n = a.numel() * 2
        n.ndimension()

    def test_parameter(self):
        p = torch.nn.Parameter(torch.ones(2))
        p.ndimension()

    def test_setup_attribute(self):
        self.assertEqual(self.x.ndimension(), 1)

    def test_setup_class_attribute(self):
        self.shared.ndimension()

    def test_not_a_string_attribute(self):
        self.label.ndimension()

    def test_loop_target(self):
        for t in [torch.randn(2), torch.ones(3)]:
            t.ndimension()

    def test_not_a_loop_over_strings(self):
        for t in ["a", "b"]:
            t.ndimension()

    def test_tuple_unpacking(self):
        values, indices = torch.randn(4, 2).max(0)
        values.ndimension()

    def test_not_the_int_of_a_tuple(self):
        first, count = torch.randn(2), 3
        count.ndimension()

    def test_helper_return(self):
        z = make_npu()
        z.ndimension()

    def test_not_a_helper_never_called(self):
        self.assertTrue(callable(_never_called))

    def test_annotated_parameter(self):
        check_annotated(self.x)

    def test_not_in_a_comment_or_string(self):
        # x.ndimension() on torch.randn(5).npu()
        code = "torch.randn(5).npu().ndimension()"
        self.assertIn("ndimension", code)

    def test_branches_that_agree(self):
        if self.x is None:
            w = torch.ones(2)
        else:
            w = torch.zeros(2).npu()
        w.ndimension()

    def test_not_branches_that_disagree(self):
        if self.x is None:
            w = torch.ones(2)
        else:
            w = "no tensor"
        w.ndimension()

    def test_nested_function_called(self):
        def inner(t):
            return t.ndimension()

        inner(torch.randn(2))

    def test_not_a_nested_function_never_called(self):
        def inner():
            return torch.randn(2).ndimension()

        self.assertTrue(True)


def test_fixture(tensor):
    assert tensor.ndimension() == 1
"""

#: storages, optimizers through their MRO, with targets
OTHERS = """
import torch
from torch.testing._internal.common_utils import TestCase


class TestOthers(TestCase):
    def test_untyped_storage_from_a_tensor(self):
        npu_storage = torch.tensor([1, 2]).npu().untyped_storage()
        cpu_storage = npu_storage.cpu()
        self.assertEqual(cpu_storage.nbytes(), 16)

    def test_untyped_storage_constructed(self):
        torch.UntypedStorage(4).cpu()

    def test_not_a_tensor_cpu(self):
        t = torch.randn(2).npu()
        t.cpu()

    def test_optimizer_through_mro(self):
        params = [torch.nn.Parameter(torch.ones(2))]
        optimizer = torch.optim.SGD(params, lr=0.1)
        optimizer.zero_grad()

    def test_not_a_module_zero_grad(self):
        model = torch.nn.Linear(2, 2)
        model.zero_grad()

    def test_with_target(self):
        with torch.Stream() as s:
            s.query()

    def test_class_member_through_the_class(self):
        bools = torch.BoolStorage.from_buffer(bytearray([0, 1]), "big")
        self.assertEqual(bools.size(), 2)

    def test_not_a_class_compared(self):
        for t in (torch.UntypedStorage, torch.TypedStorage):
            self.assertFalse(t == torch.BoolStorage)

    def test_not_a_with_target_that_is_none(self):
        with torch.set_grad_enabled(False) as g:
            g.clone()
"""

#: files across the test tree: shared utilities, a helper file, a base class with tests
SHARED_UTILS = """
import torch


def create_common_tensor(shape):
    cpu_input = torch.randn(*shape)
    npu_input = cpu_input.to("npu")
    return cpu_input, npu_input


def npu_optimizer(params):
    return torch.optim.SGD(params, lr=0.1)
"""

LIBRARY = """
def count_dims(x):
    return x.ndimension()
"""

HELPERS = """
import torch
from common import second_level


def make_pair():
    a = torch.randn(2).npu()
    return a, 3


def zero(opt):
    opt.zero_grad()


def calls_deeper(t):
    second_level(t)


def never_called_helper():
    torch.randn(2).npu().ndimension()
"""

COMMON = """
def second_level(t):
    return t.ndimension()
"""

BASE = """
import torch
from torch.testing._internal.common_utils import TestCase


class StorageTestBase(TestCase):
    def test_inherited_storage_cpu(self):
        s = torch.randn(2).npu().untyped_storage()
        s.cpu()
"""

ACROSS = """
import torch
from mypkg.testing.common_utils import create_common_tensor, npu_optimizer
from mypkg.ops import count_dims
from helpers import make_pair, zero, calls_deeper, never_called_helper
from base import StorageTestBase


class TestAcross(StorageTestBase):
    def test_shared_utility_tuple(self):
        cpu_input, npu_input = create_common_tensor((2, 3))
        npu_input.ndimension()

    def test_helper_file_tuple(self):
        a, n = make_pair()
        a.ndimension()

    def test_not_the_int_of_a_helper_tuple(self):
        a, n = make_pair()
        n.ndimension()

    def test_helper_with_argument(self):
        zero(torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0))

    def test_shared_utility_return_type(self):
        npu_optimizer([torch.nn.Parameter(torch.ones(1))]).zero_grad()

    def test_two_levels_deep(self):
        calls_deeper(torch.randn(2))

    def test_not_library_code(self):
        count_dims(torch.randn(2))

    def test_not_an_imported_helper_never_called(self):
        self.assertTrue(callable(never_called_helper))
"""
