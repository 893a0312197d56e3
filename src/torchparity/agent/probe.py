"""Environment facts, in the key order the community's evidence logs use."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any, Mapping

from . import backend, state
from .protocol import TorchModule

#: variables that steer torch, its test harness or device visibility: the probe states each one set
STEERING_PREFIXES = ("PYTORCH_", "TORCH_")
STEERING_VARIABLES = (
    "CUDA_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "ASCEND_RT_VISIBLE_DEVICES",
    "ZE_AFFINITY_MASK",
    "CUBLAS_WORKSPACE_CONFIG",
    # torch's test harness: Sandcastle mode turns some skips into passes; test lists it reads
    "SANDCASTLE",
    "TW_JOB_USER",
    "SLOW_TESTS_FILE",
    "DISABLED_TESTS_FILE",
)
#: a device's runtime reads more than ``<DEVICE>_*``
DEVICE_PREFIXES = {"npu": ("ASCEND_", "HCCL_")}


def one_line(value: str) -> str:
    """A value as one log line: a newline in it could forge evidence lines."""
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def steering_environment(
    device_type: str, environ: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """``(name, value)`` of every set variable a reviewer needs to rerun the tests as they ran, sorted."""
    environ = os.environ if environ is None else environ
    prefixes: tuple[str, ...] = STEERING_PREFIXES
    if device_type and device_type != "cpu":
        prefixes = prefixes + (device_type.upper() + "_",) + DEVICE_PREFIXES.get(device_type, ())
    return sorted(
        (k, one_line(v))
        for k, v in environ.items()
        if k.startswith(prefixes) or k in STEERING_VARIABLES
    )


def probe(
    torch: TorchModule,
    backend_mod: TorchModule | None,
    backend_module: str,
    device_type: str,
    device_initialized_at_import: bool | None,
) -> list[tuple[str, Any]]:
    facts: list[tuple[str, Any]] = [
        ("python_executable", sys.executable),
        ("python_version", platform.python_version()),
        ("platform", platform.platform()),
        ("torch_version", str(torch.__version__)),
    ]
    if backend_mod is not None:
        facts.append(
            ("%s_version" % backend_module, str(getattr(backend_mod, "__version__", "unknown")))
        )
    facts.append(("torch_file", str(torch.__file__)))
    if backend_mod is not None:
        facts.append(("%s_file" % backend_module, str(getattr(backend_mod, "__file__", "unknown"))))
        # a backend that only emulates its device says on what (torchparity's emulated torch_npu: cpu)
        emulated = getattr(backend_mod, "__emulated__", None)
        if emulated:
            facts.append(("%s_emulated" % backend_module, str(emulated)))
    facts.append(("device_type", device_type))
    dev = backend.device_facts(torch, device_type)
    # The seed's spelling: npu_available / npu_device_count.
    facts.append(("%s_available" % device_type, dev.get("device_available")))
    facts.append(("%s_device_count" % device_type, dev.get("device_count")))
    if "device_name" in dev:
        facts.append(("%s_device_name" % device_type, dev["device_name"]))
    if "device_error" in dev:
        facts.append(("%s_device_error" % device_type, dev["device_error"]))
    if device_initialized_at_import is not None:
        facts.append(("device_initialized_at_import", device_initialized_at_import))
    specs, _skipped = state.usable(state.registry(device_type))
    for name, value in state.snapshot(specs).items():
        facts.append(("initial_%s" % ("grad_enabled" if name == "grad_mode" else name), value))
    for name, value in steering_environment(device_type):
        facts.append(("environ_%s" % name, value))
    return facts
