"""Fixtures for the api tests: the agent modules in-process (real torch), fixture test files."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def torch_mod():
    return pytest.importorskip("torch")


@pytest.fixture(scope="session")
def agent_resolve(torch_mod):
    from torchparity.agent.api import resolve

    return resolve


@pytest.fixture(scope="session")
def agent_trace(torch_mod):
    from torchparity.agent import trace

    return trace


MUL_TESTS = """
import unittest

import torch


class TestMul(unittest.TestCase):
    def test_mul_cpu_tensors(self):
        a = torch.full((3,), 2.0)
        b = torch.full((3,), 4.0)
        self.assertEqual((a * b).tolist(), [8.0, 8.0, 8.0])

    def test_grad_mode_only(self):
        with torch.autograd.grad_mode.set_grad_enabled(False).clone():
            self.assertFalse(torch.is_grad_enabled())
        torch.set_grad_enabled(True)


if __name__ == "__main__":
    unittest.main()
"""

SEED_TESTS = """
import unittest

import torch


class TestGradModeClone(unittest.TestCase):
    def test_set_grad_enabled_clone(self):
        prev = torch.is_grad_enabled()
        try:
            for mode in (False, True):
                original = torch.autograd.grad_mode.set_grad_enabled(mode)
                copy = original.clone()
                self.assertIsInstance(copy, torch.autograd.grad_mode.set_grad_enabled)
                self.assertEqual(copy.mode, original.mode)
                torch.set_grad_enabled(not mode)
                with copy:
                    self.assertEqual(torch.is_grad_enabled(), mode)
        finally:
            torch.set_grad_enabled(prev)

    def test_set_multithreading_enabled_clone(self):
        prev = torch.autograd.is_multithreading_enabled()
        try:
            for mode in (False, True):
                copy = torch.autograd.grad_mode.set_multithreading_enabled(mode).clone()
                self.assertEqual(copy.mode, mode)
                with copy:
                    self.assertEqual(torch.autograd.is_multithreading_enabled(), mode)
        finally:
            torch.autograd.grad_mode.set_multithreading_enabled(prev)


if __name__ == "__main__":
    unittest.main()
"""


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.fixture(scope="session")
def test_files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("apitests")
    return {
        "mul": _write(folder, "test_mul_fixture.py", MUL_TESTS),
        "seed": _write(folder, "test_grad_mode_clone_fixture.py", SEED_TESTS),
    }
