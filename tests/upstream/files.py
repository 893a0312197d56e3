"""Files of the fixture backend repo: upstream-style test files, a disabled list in Ascend's shape."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git, write

API = "torch.autograd.grad_mode.set_grad_enabled.clone"

#: device-generic (instantiate_device_type_tests): tests that call the API and tests that do not
DEVICE_GENERIC = "test/test_grad_mode.py"
DEVICE_GENERIC_TEXT = """
import torch
from torch.testing._internal.common_utils import TestCase, load_tests, run_tests
from torch.testing._internal.common_device_type import instantiate_device_type_tests, dtypes

# torch's load_tests protocol, as upstream files use it (it checks tests against the running script)
load_tests = load_tests


class TestGradModeClone(TestCase):
    def test_set_grad_enabled_clone(self, device):
        x = torch.ones(2, device=device, requires_grad=True)
        ctx = torch.set_grad_enabled(False).clone()
        torch.set_grad_enabled(True)
        with ctx:
            self.assertFalse((x * 2).requires_grad)

    @dtypes(torch.float32, torch.float64)
    def test_set_grad_enabled_clone_dtype(self, device, dtype):
        x = torch.ones(2, device=device, dtype=dtype, requires_grad=True)
        with torch.set_grad_enabled(True).clone():
            self.assertTrue((x * 2).requires_grad)

    def test_set_grad_enabled_clone_wrong(self, device):
        cloned = torch.set_grad_enabled(True).clone()
        self.assertEqual(cloned.mode, False)

    def test_set_grad_enabled_clone_skips(self, device):
        torch.set_grad_enabled(True).clone()
        self.skipTest("needs two devices")

    def test_unrelated(self, device):
        self.fail("never selected: it does not use the API")


instantiate_device_type_tests(TestGradModeClone, globals())


class TestPlain(TestCase):
    def test_plain_clone(self):
        with torch.set_grad_enabled(False).clone():
            self.assertFalse(torch.is_grad_enabled())

    def test_other(self):
        self.fail("never selected: it does not use the API")


if __name__ == "__main__":
    run_tests()
"""

#: a file whose fixture module is missing from the repo (its package is there, the module is not)
NEEDS_FIXTURE = "test/test_needs_fixture.py"
NEEDS_FIXTURE_TEXT = """
import torch
from torch.testing._internal.common_utils import TestCase, run_tests
from fixture_helpers.grad_cases import CASES


class TestNeedsFixture(TestCase):
    def test_set_grad_enabled_clone_cases(self):
        for mode in CASES:
            self.assertEqual(torch.set_grad_enabled(mode).clone().mode, mode)


if __name__ == "__main__":
    run_tests()
"""

#: the backend's own test (not vendored): never an official test
OWN = "test/npu/test_npu_clone.py"
OWN_TEXT = """
import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestNpuClone(TestCase):
    def test_set_grad_enabled_clone_npu(self):
        torch.set_grad_enabled(True).clone()


if __name__ == "__main__":
    run_tests()
"""

LIST = "test/unsupported_test_cases/.pytorch-disabled-tests.json"
TYPES = "test/unsupported_test_cases/disabled_tests_type.json"
NAMES = "test/unsupported_test_cases/error_type.json"

#: the JSON key of the stale entry (every test it disables passes)
STALE_KEY = "test_set_grad_enabled_clone_dtype (__main__.TestGradModeCloneCPU)"
#: an entry that still holds: its test fails without the list
HOLDS_KEY = "test_set_grad_enabled_clone_wrong_cpu (__main__.TestGradModeCloneCPU)"
HOLDS_REASON = "clone keeps the wrong mode on this device"

#: the same entries for the npu, spelled as Ascend's list spells them: the template's name under the
#: class's ``NPU`` alias (``TestGradModeClonePRIVATEUSE1`` is its instantiated name), or the instance's
STALE_KEY_NPU = "test_set_grad_enabled_clone_dtype (__main__.TestGradModeCloneNPU)"
HOLDS_KEY_NPU = "test_set_grad_enabled_clone_wrong_npu (__main__.TestGradModeClonePRIVATEUSE1)"
#: per device type: the stale key, the key that holds
KEYS = {"cpu": (STALE_KEY, HOLDS_KEY), "npu": (STALE_KEY_NPU, HOLDS_KEY_NPU)}

DISABLED = {
    # tagged A2: it applies everywhere but on a 910A (Ascend's rule), so on the cpu too
    STALE_KEY: ["", ["A2"]],
    HOLDS_KEY: [HOLDS_REASON, [""]],
    STALE_KEY_NPU: ["", ["A2"]],
    HOLDS_KEY_NPU: [HOLDS_REASON, [""]],
    # tagged 910A: not on this machine, so the test runs
    "test_set_grad_enabled_clone_cpu (__main__.TestGradModeClone)": ["only on 910A", ["910A"]],
    "test_set_grad_enabled_clone_npu (__main__.TestGradModeCloneNPU)": ["only on 910A", ["910A"]],
    # a test that does not use the API: never selected, counted among the file's disabled tests
    "test_unrelated_cpu (__main__.TestGradModeCloneCPU)": ["", [""]],
    "test_unrelated_npu (__main__.TestGradModeCloneNPU)": ["", [""]],
    "a key of another shape": ["", [""]],
}
TYPES_DOC = {
    key: doc
    for keys in KEYS.values()
    for key, doc in zip(
        keys, ({"DTYPE": "float64 not supported"}, {"VALUE": "mode is lost"}), strict=True
    )
}
NAMES_DOC = {"DTYPE": "some data types cannot be supported", "VALUE": "value error"}

CONFIG = """
preset = "torch_npu"
backend_module = ""
device = "cpu"
active_branches = ["master"]
"""


def repo_files() -> dict[str, str]:
    return {
        "torchparity.toml": CONFIG,
        DEVICE_GENERIC: DEVICE_GENERIC_TEXT,
        NEEDS_FIXTURE: NEEDS_FIXTURE_TEXT,
        "test/fixture_helpers/__init__.py": "",
        OWN: OWN_TEXT,
        LIST: json.dumps(DISABLED, indent=1),
        TYPES: json.dumps(TYPES_DOC),
        NAMES: json.dumps(NAMES_DOC),
    }


def make_backend(root: Path) -> Path:
    """The fixture backend repo (one commit on master) in ``root/backend``."""
    repo = root / "backend"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "master")
    for rel, text in repo_files().items():
        write(repo / rel, text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "vendored upstream tests and the disabled list")
    return repo
