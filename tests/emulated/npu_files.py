"""Backend test files in the torch_npu conventions, run on the emulated NPU by the end-to-end tests."""

SEED_LIKE = """
import torch
from torch_npu.testing.testcase import TestCase, run_tests

device = "npu:0"
torch.npu.set_device(device)


class TestLDGComputation(TestCase):
    def test_no_grad(self):
        x = torch.tensor([1.0], device=device, requires_grad=True)
        with torch.no_grad():
            self.assertFalse((x * 2).requires_grad)

    def test_set_grad_enabled_clone(self):
        initial = torch.is_grad_enabled()
        with torch.set_grad_enabled(initial):
            for mode in (False, True):
                ctx = torch.set_grad_enabled(mode)
                cloned = ctx.clone()
                self.assertIsNot(ctx, cloned)
                self.assertEqual(cloned.mode, mode)
        self.assertEqual(torch.is_grad_enabled(), initial)

    def test_set_grad_enabled_clone_decorator(self):
        initial = torch.is_grad_enabled()
        x = torch.tensor([1.0], device=device, requires_grad=True)
        with torch.set_grad_enabled(initial):

            @torch.set_grad_enabled(False).clone()
            def doubled(t):
                return t * 2

            with torch.enable_grad():
                out = doubled(x)
            self.assertEqual(out.device, x.device)
            self.assertFalse(out.requires_grad)
        self.assertEqual(torch.is_grad_enabled(), initial)


if __name__ == "__main__":
    run_tests()
"""

LEAKY = """
import torch
from torch_npu.testing.testcase import TestCase, run_tests


# torch's TestCase restores grad mode after each test; autograd multithreading it leaves alone
class TestLeaky(TestCase):
    def test_multithreading_leaks(self):
        x = torch.ones(2, device="npu:0", requires_grad=True)
        torch.autograd.set_multithreading_enabled(False)
        (x * 2).sum().backward()
        self.assertEqual(x.grad.device, x.device)

    def test_clean(self):
        self.assertEqual(torch.ones(1, device="npu:0").device.type, "npu")


if __name__ == "__main__":
    run_tests()
"""

HANGING = """
import time

import torch
from torch_npu.testing.testcase import TestCase, run_tests


class TestHang(TestCase):
    def test_hang(self):
        torch.ones(1, device="npu:0")
        time.sleep(600)


if __name__ == "__main__":
    run_tests()
"""

ABORTING = """
import os

import torch
from torch_npu.testing.testcase import TestCase, run_tests


class TestAbort(TestCase):
    def test_abort(self):
        torch.ones(1, device="npu:0")
        os.abort()


if __name__ == "__main__":
    run_tests()
"""

TWO_DEVICES = """
import torch
import torch_npu
from torch_npu.testing.testcase import TestCase, run_tests


class TestTwoDevices(TestCase):
    def test_second_device(self):
        self.assertEqual(torch.npu.device_count(), 2)
        x = torch.arange(4.0, device="npu:1")
        self.assertEqual(x.device, torch.device("npu:1"))
        self.assertEqual((x + 1).device.index, 1)
        with torch_npu.npu.device(1):
            self.assertEqual(torch.npu.current_device(), 1)
            self.assertEqual(torch.zeros(1, device="npu").device.index, 1)
        self.assertEqual(x.to("npu:0").device.index, 0)

    def test_streams_and_events_per_device(self):
        stream = torch.npu.Stream(device="npu:1")
        event = torch.npu.Event()
        event.record(stream)
        stream.synchronize()
        self.assertTrue(event.query())
        self.assertEqual(stream.device, torch.device("npu:1"))


if __name__ == "__main__":
    run_tests()
"""
