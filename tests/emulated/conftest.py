"""Running code with the emulated torch_npu on the path, as ``--emulate npu`` does."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from torchparity.emulated import EMULATIONS

NPU = EMULATIONS["npu"]


def emulated_env(**extra: str) -> dict[str, str]:
    """This environment with the emulation first on the path (and nothing that steers devices)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "ASCEND_RT_VISIBLE_DEVICES", "TORCH_NPU_EMULATED_DEVICE_COUNT",
                        "TORCH_NPU_EMULATED_INIT_ON_IMPORT", "CI")}
    env.update(NPU.environ())
    env.update(extra)
    return env


def run_python(code: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter with torch and the emulated torch_npu."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=emulated_env(**extra), timeout=300)
