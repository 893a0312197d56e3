"""Test files used by the collector tests (written into fixture repos)."""

SEED_LIKE = """
import unittest
import torch


class TestLDGComputation(unittest.TestCase):
    def test_no_grad(self):
        with torch.no_grad():
            self.assertFalse(torch.is_grad_enabled())

    def test_set_grad_enabled_clone(self):
        initial = torch.is_grad_enabled()
        with torch.set_grad_enabled(initial):
            for mode in (False, True):
                ctx = torch.set_grad_enabled(mode)
                cloned = ctx.clone()
                self.assertIsNot(ctx, cloned)
                self.assertIsInstance(cloned, torch.autograd.grad_mode.set_grad_enabled)
                self.assertEqual(cloned.mode, mode)
        self.assertEqual(torch.is_grad_enabled(), initial)

    def test_set_grad_enabled_clone_decorator(self):
        initial = torch.is_grad_enabled()
        x = torch.tensor([1.0], requires_grad=True)
        # constructing set_grad_enabled(False) switches grad mode off at once: scope it
        with torch.set_grad_enabled(initial):

            @torch.set_grad_enabled(False).clone()
            def doubled(t):
                return t * 2

            with torch.enable_grad():
                self.assertFalse(doubled(x).requires_grad)
        self.assertEqual(torch.is_grad_enabled(), initial)


if __name__ == "__main__":
    unittest.main()
"""

FAILING = """
import unittest


class TestBroken(unittest.TestCase):
    def test_ok(self):
        self.assertTrue(True)

    def test_wrong(self):
        self.assertEqual(1, 2)


if __name__ == "__main__":
    unittest.main()
"""

HANGING = """
import time
import unittest


class TestHang(unittest.TestCase):
    def test_hang(self):
        time.sleep(600)


if __name__ == "__main__":
    unittest.main()
"""

ABORTING = """
import os
import unittest


class TestAbort(unittest.TestCase):
    def test_abort(self):
        os.abort()


if __name__ == "__main__":
    unittest.main()
"""

LEAKY = """
import unittest
import torch


class TestLeaky(unittest.TestCase):
    def test_set_grad_enabled_clone_leaks(self):
        torch.set_grad_enabled(False).clone()
        torch.set_grad_enabled(False)

    def test_clean(self):
        self.assertTrue(True)


if __name__ == "__main__":
    unittest.main()
"""

SPAWNS_CHILD = """
import subprocess
import sys
import time
import unittest


class TestSpawn(unittest.TestCase):
    def test_spawn_and_hang(self):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(sys.argv[0] + ".childpid", "w") as fh:
            fh.write(str(child.pid))
        time.sleep(600)


if __name__ == "__main__":
    unittest.main()
"""

PYTEST_STYLE = """
import pytest
import torch


def test_add():
    assert torch.add(torch.ones(2), 1).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("n", [1, 2])
def test_sizes(n):
    assert torch.zeros(n).numel() == n


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-v", "-p", "no:cacheprovider"]))
"""

KILLS_WORKER = """
import os
import signal
import unittest


class TestKillsWorker(unittest.TestCase):
    def test_kill_parent_worker(self):
        with open("/proc/%d/cmdline" % os.getppid(), "rb") as fh:
            parent = fh.read()
        # only ever kill a torchparity warm worker, never whoever else runs this file
        if b"torchparity_agent.py" in parent and b"serve" in parent:
            os.kill(os.getppid(), signal.SIGKILL)


if __name__ == "__main__":
    unittest.main()
"""

TORCH_RUN_TESTS = """
import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestWithTorchRunner(TestCase):
    def test_add(self):
        self.assertEqual(torch.ones(2) + 1, torch.full((2,), 2.0))


if __name__ == "__main__":
    run_tests()
"""
