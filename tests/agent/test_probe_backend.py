"""The probe with a backend module: a fake one, named as such, registered as PrivateUse1."""

from __future__ import annotations

import site
import sys
import textwrap
import venv

import pytest

from torchparity.exec import Job, WarmWorker

FAKE_BACKEND = '''
"""fake_backend_for_tests: a stand-in backend module for torchparity's tests, not a real backend."""
import types

import torch

__version__ = "0.0.1+fake"
_state = {"initialized": False}

torch.utils.rename_privateuse1_backend("fakedev")
_mod = types.ModuleType("torch.fakedev")
_mod.is_available = lambda: True
_mod.device_count = lambda: 2
_mod.is_initialized = lambda: _state["initialized"]
_mod.get_device_name = lambda index=0: "FakeDev 9000"


def _init():
    _state["initialized"] = True


_mod.init = _init
torch._register_device_module("fakedev", _mod)
'''

CHECKS_INIT = """
import unittest
import torch


class TestDeviceReady(unittest.TestCase):
    def test_initialised_in_the_job(self):
        self.assertTrue(torch.fakedev.is_initialized())


if __name__ == "__main__":
    unittest.main()
"""


@pytest.fixture(scope="module")
def python_with_fake_backend(tmp_path_factory) -> str:
    """A venv that sees this interpreter's packages (torch) and the fake backend through a .pth."""
    home = tmp_path_factory.mktemp("fakeenv")
    venv.EnvBuilder(with_pip=False).create(home / "venv")
    pkg = home / "pkgs"
    pkg.mkdir()
    (pkg / "fake_backend_for_tests.py").write_text(textwrap.dedent(FAKE_BACKEND))
    purelib = next((home / "venv" / "lib").glob("python*/site-packages"))
    (purelib / "torchparity_tests.pth").write_text(
        "\n".join([*site.getsitepackages(), str(pkg)]) + "\n"
    )
    return str(home / "venv" / "bin" / "python")


@pytest.mark.slow
def test_probe_reports_backend_and_device_without_initialising_it_at_import(
    tmp_path, python_with_fake_backend
):
    worker = WarmWorker(python_with_fake_backend, "fake_backend_for_tests", "auto", tmp_path)
    try:
        probe = worker.run(Job("probe", {}, tmp_path / "probe.log", timeout=60))
        facts = dict(probe.result["facts"])
        assert probe.status == "OK"
        assert facts["fake_backend_for_tests_version"] == "0.0.1+fake"
        assert facts["fake_backend_for_tests_file"].endswith("fake_backend_for_tests.py")
        assert facts["device_type"] == "fakedev"
        assert facts["fakedev_available"] is True
        assert facts["fakedev_device_count"] == 2
        assert facts["fakedev_device_name"] == "FakeDev 9000"
        assert facts["device_initialized_at_import"] is False
        assert "fake_backend_for_tests_version=0.0.1+fake" in probe.output
        # each job's child initialises the device; the worker never does
        test = tmp_path / "test_ready.py"
        test.write_text(CHECKS_INIT)
        run = worker.run(
            Job("run_file", {"path": str(test), "argv": ["-v"]}, tmp_path / "run.log", timeout=60)
        )
        assert run.status == "OK", run.output
        again = worker.run(Job("probe", {}, tmp_path / "probe2.log", timeout=60))
        assert dict(again.result["facts"])["device_initialized_at_import"] is False
    finally:
        worker.close()


@pytest.mark.slow
def test_missing_backend_module_is_an_environment_error(tmp_path):
    from torchparity.errors import EnvironmentBroken

    worker = WarmWorker(sys.executable, "no_such_backend_module", "auto", tmp_path)
    with pytest.raises(EnvironmentBroken, match="import no_such_backend_module failed") as caught:
        worker.start()
    # says how to run without the module the config (or its preset) asks for
    assert 'or run without it: backend_module = "" in torchparity.toml' in str(caught.value)


@pytest.mark.slow
def test_probe_states_the_variables_that_steer_the_run(
    tmp_path, python_with_fake_backend, monkeypatch
):
    from torchparity.agent.probe import steering_environment

    for name, _ in steering_environment(
        "fakedev"
    ):  # whatever this machine sets, the test sets its own
        monkeypatch.delenv(name)
    monkeypatch.setenv("PYTORCH_TEST_WITH_SLOW", "1")
    monkeypatch.setenv("FAKEDEV_VISIBLE_DEVICES", "1")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("UNRELATED_SECRET", "x")
    worker = WarmWorker(python_with_fake_backend, "fake_backend_for_tests", "auto", tmp_path)
    try:
        probe = worker.run(Job("probe", {}, tmp_path / "probe.log", timeout=60))
    finally:
        worker.close()
    environ = [(k, v) for k, v in probe.result["facts"] if k.startswith("environ_")]
    assert environ == [
        ("environ_CUDA_VISIBLE_DEVICES", ""),
        ("environ_FAKEDEV_VISIBLE_DEVICES", "1"),
        ("environ_PYTORCH_TEST_WITH_SLOW", "1"),
    ]
    assert "environ_PYTORCH_TEST_WITH_SLOW=1\n" in probe.output


def test_probe_on_cpu_does_not_read_a_device_prefix():
    from torchparity.agent.probe import steering_environment

    env = {"CPU_FOO": "1", "TORCH_HOME": "/t", "ASCEND_RT_VISIBLE_DEVICES": "0", "PATH": "/bin"}
    assert steering_environment("cpu", env) == [
        ("ASCEND_RT_VISIBLE_DEVICES", "0"),
        ("TORCH_HOME", "/t"),
    ]
    npu = steering_environment(
        "npu", {**env, "NPU_CALCULATE_DEVICE": "3", "HCCL_CONNECT_TIMEOUT": "9"}
    )
    assert npu == [
        ("ASCEND_RT_VISIBLE_DEVICES", "0"),
        ("HCCL_CONNECT_TIMEOUT", "9"),
        ("NPU_CALCULATE_DEVICE", "3"),
        ("TORCH_HOME", "/t"),
    ]


def test_a_value_with_a_newline_cannot_forge_a_log_line():
    from torchparity.agent.probe import steering_environment

    ((name, value),) = steering_environment("cpu", {"PYTORCH_X": "a\nRESULT=PASS\r\\n"})
    assert (name, value) == ("PYTORCH_X", "a\\nRESULT=PASS\\r\\\\n")
    assert "\n" not in value
