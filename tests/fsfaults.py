"""Real file-system faults for tests: a read-only folder, a full disk.

Both are made for real: in a user + mount namespace (``unshare -rm``) a folder is
bind-mounted read-only over itself, or a small tmpfs is mounted on it, and Python
code runs in there (as root chmod would not stop a write, and a mount does). Without
namespaces, a non-root user gets the read-only folder by ``chmod``; the full disk then
cannot be made and the test is skipped.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _namespaces() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30)
    return probe.returncode == 0


NAMESPACES = _namespaces()


def run_python(
    code: str,
    *,
    readonly: list[Path] = (),
    tmpfs: tuple[Path, str] | None = None,  # type: ignore[assignment]
    timeout: float = 120,
) -> Any:
    """Run ``code`` (which prints one JSON document last) with ``readonly`` folders and ``tmpfs``
    (folder, size such as ``1m``) in place; returns that document."""
    mounts = []
    if tmpfs is not None:
        if not NAMESPACES:
            pytest.skip("a full disk needs user namespaces (unshare -rm)")
        mounts.append(f"mount -t tmpfs -o size={tmpfs[1]} tmpfs {shlex.quote(str(tmpfs[0]))}")
    chmodded: list[tuple[Path, int]] = []
    for folder in readonly:
        q = shlex.quote(str(folder))
        if NAMESPACES:
            mounts.append(f"mount --bind {q} {q} && mount -o remount,bind,ro {q} {q}")
        elif os.geteuid() != 0:
            for p in [folder, *folder.rglob("*")]:
                chmodded.append((p, stat.S_IMODE(p.lstat().st_mode)))
                p.chmod(stat.S_IMODE(p.lstat().st_mode) & ~0o222)
        else:
            pytest.skip("a read-only folder for root needs user namespaces (unshare -rm)")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    py = f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"
    try:
        if mounts:
            cmd = ["unshare", "-rm", "sh", "-c", " && ".join([*mounts, f"exec {py}"])]
        else:
            cmd = [sys.executable, "-c", code]
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
        )
    finally:
        for p, mode in reversed(chmodded):
            p.chmod(mode)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


#: the code that ``cli_calls`` runs: ``setup``, each argv through ``torchparity.cli.main`` (its output
#: captured), then ``after``, which may set ``extra`` (a JSON-able value handed back too)
_CALLS = """
import contextlib, io, json, sys
from torchparity.cli import main
extra = None
{setup}
results = []
for argv in json.loads({calls!r}):
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8") for _ in range(2))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    out.flush(), err.flush()
    results.append({{"rc": rc, "out": out.buffer.getvalue().decode(), "err": err.buffer.getvalue().decode()}})
{after}
print(json.dumps({{"results": results, "extra": extra}}))
"""


def cli_calls(
    calls: list[list[str]], *, setup: str = "", after: str = "", **where: Any
) -> tuple[list[dict[str, Any]], Any]:
    """Run each ``torchparity`` argv in one process with the faults of ``run_python`` in place;
    returns each call's ``{rc, out, err}`` and what ``after`` left in ``extra``."""
    got = run_python(_CALLS.format(calls=json.dumps(calls), setup=setup, after=after), **where)
    return got["results"], got["extra"]
