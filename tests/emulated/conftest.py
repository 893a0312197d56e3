"""Running code with the emulated torch_npu on the path, as ``--emulate npu`` does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from torchparity.emulated import EMULATIONS
from torchparity.store import Store

NPU = EMULATIONS["npu"]


def emulated_env(**extra: str) -> dict[str, str]:
    """This environment with the emulation first on the path (and nothing that steers devices)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "PYTHONPATH",
            "ASCEND_RT_VISIBLE_DEVICES",
            "TORCH_NPU_EMULATED_DEVICE_COUNT",
            "TORCH_NPU_EMULATED_INIT_ON_IMPORT",
            "CI",
        )
    }
    env.update(NPU.environ())
    env.update(extra)
    return env


def run_python(code: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter with torch and the emulated torch_npu."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=emulated_env(**extra),
        timeout=300,
    )


def single_target(store_dir: Path) -> tuple[str, dict[str, Any]]:
    """(log, record) of the one target of the one run in a store."""
    store = Store(store_dir)
    (run,) = store.runs()
    (target,) = store.targets(run.id)
    return store.blobs.read(target.log_sha).decode(), store.read_json(target.record_sha)


def log_keys(log: str) -> dict[str, str]:
    """The first value of every ``KEY=VALUE`` line of an evidence log."""
    found: dict[str, str] = {}
    for key, value in re.findall(r"^([A-Za-z0-9_.]+)=(.*)$", log, re.M):
        found.setdefault(key, value)
    return found
