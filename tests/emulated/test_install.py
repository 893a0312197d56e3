"""The emulated torch_npu travels with torchparity: in a non-editable install, and as its own package."""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.emulated import npu_files
from tests.emulated.conftest import NPU

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _tracked_tree(dest: Path) -> Path:
    """A copy of the project's tracked files (a build must not write into the checkout)."""
    files = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "pyproject.toml", "README.md", "src"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for rel in files:
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    return dest


def _venv_seeing_this_one(home: Path) -> tuple[str, Path]:
    """A new venv whose own site-packages come first, then this venv's (torch, the tool's deps)."""
    venv.EnvBuilder(with_pip=False).create(home)
    purelib = next((home / "lib").glob("python*/site-packages"))
    (purelib / "zz_torchparity_tests.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return str(home / "bin" / "python"), purelib


def test_a_non_editable_install_runs_its_own_shipped_emulation(tmp_path: Path) -> None:
    tree = _tracked_tree(tmp_path / "tree")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(tree),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("torchparity-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for rel in (
        "torch_npu/__init__.py",
        "torch_npu/_dispatch.py",
        "torch_npu/npu/__init__.py",
        "torch_npu/testing/testcase.py",
    ):
        assert f"torchparity/emulated/npu/{rel}" in names
    python, purelib = _venv_seeing_this_one(tmp_path / "venv")
    zipfile.ZipFile(wheel).extractall(purelib)  # what pip does with a pure wheel
    test = tmp_path / "test_grad.py"
    test.write_text(npu_files.SEED_LIKE)
    res = subprocess.run(
        [
            python,
            "-m",
            "torchparity",
            "run",
            str(test),
            "--python",
            python,
            "--emulate",
            "npu",
            "--store",
            str(tmp_path / "store"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    shown = subprocess.run(
        [python, "-m", "torchparity", "show", "1", "--store", str(tmp_path / "store")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    ).stdout
    installed = purelib / "torchparity" / "emulated" / "npu"
    assert f"torch_npu_file={installed / 'torch_npu' / '__init__.py'}" in shown
    assert f"PYTHONPATH={installed} " in shown and "DEVICE=npu (emulated on CPU)" in shown
    assert str(ROOT / "src") not in shown  # nothing came from the checkout


def test_the_emulation_installs_as_its_own_package(tmp_path: Path) -> None:
    project = shutil.copytree(
        NPU.root, tmp_path / "project", ignore=shutil.ignore_patterns("__pycache__")
    )
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(project),
        ],
        check=True,
        capture_output=True,
    )
    assert next(target.glob("torch_npu-0.0.0+emulated.dist-info"), None) is not None
    res = subprocess.run(
        [
            sys.executable,
            "-c",
            "import torch, torch_npu; print(torch_npu.__file__, torch_npu.__version__, "
            "torch.ones(1, device='npu:0').device)",
        ],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [
        str(target / "torch_npu" / "__init__.py"),
        "0.0.0+emulated",
        "npu:0",
    ]
