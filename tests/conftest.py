"""Shared fixtures: tiny real git repos and interpreters written by the tests themselves."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import venv
from pathlib import Path
from typing import Any

import pytest

from .tiers import FastTierPlugin

pytest_plugins = [
    "pytester",
    "tests.fakeagent",
]  # pytester: the tier guard's tests; the `agent` fixture


def pytest_configure(config: pytest.Config) -> None:
    # the fast tier imports no torch and starts no interpreter: tests/tiers.py holds it to that
    config.pluginmanager.register(FastTierPlugin(), "torchparity-fast-tier")


GIT_ENV = {
    "GIT_AUTHOR_NAME": "torchparity tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "torchparity tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
}


def git(
    repo: Path,
    *args: str,
    input: str | None = None,
    env: dict[str, str] | None = None,
    completed: bool = False,
) -> Any:
    """``git -C repo *args`` with ``input`` on its stdin, as the tests' author (``env``, on top of this
    process's environment, replaces ``GIT_ENV``: another author, fixed dates). Its stdout, stripped, and an
    error if it fails; with ``completed``, the ``CompletedProcess`` whatever its exit status."""
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        check=not completed,
        capture_output=True,
        text=True,
        env=dict(os.environ, **(GIT_ENV if env is None else env)),
        input=input,
    )
    return proc if completed else proc.stdout.strip()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


@pytest.fixture
def make_repo(tmp_path: Path):
    """make_repo({"master": {path: text}, "v2.7.1": {path: text}}) -> repo with one commit per branch."""

    def _make(branches: dict[str, dict[str, str]], name: str = "repo") -> Path:
        repo = tmp_path / name
        repo.mkdir()
        git(repo, "init", "-q", "-b", "master")
        first = True
        for branch, files in branches.items():
            if not first:
                git(repo, "checkout", "-q", "-B", branch, "master")
            for rel, text in files.items():
                write(repo / rel, text)
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "--allow-empty", "-m", f"{branch}: test files")
            first = False
        git(repo, "checkout", "-q", "master")
        return repo

    return _make


@pytest.fixture(scope="session")
def python_with_torch() -> str:
    """The interpreter running the tests: it has torch 2.13.0 (CPU)."""
    return sys.executable


@pytest.fixture(scope="session")
def python_without_torch(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh venv (no site packages): importing torch there fails."""
    home = tmp_path_factory.mktemp("notorch")
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(home)
    return str(home / "bin" / "python")


def _ruff_bin() -> str:
    """ruff's own binary (``python -m ruff`` would start an interpreter only to exec it)."""
    from ruff.__main__ import find_ruff_bin

    return str(find_ruff_bin())


RUFF_BIN = _ruff_bin()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """With TORCHPARITY_TEST_TIMES=FILE, each test phase's seconds go to FILE as it ends (the shares of a
    long run, read while it runs; benchmarks/bench_ci.py sums them)."""
    path = os.environ.get("TORCHPARITY_TEST_TIMES")
    if path and not os.environ.get(
        "PYTEST_XDIST_WORKER"
    ):  # with -n, the controller writes each report once
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{report.duration:.3f}\t{report.when}\t{report.outcome}\t{report.nodeid}\n")


@pytest.fixture
def store_contents():
    """What the ``store`` fixture puts in its fresh store: ``None`` (nothing) here; a test module that
    wants it filled overrides this fixture with a function of the store that fills it."""
    return None


@pytest.fixture
def store(tmp_path: Path, store_contents):
    """A real store under ``tmp_path``, holding what ``store_contents`` writes into it."""
    from torchparity.store import Store

    st = Store(tmp_path / "store")
    if store_contents is not None:
        store_contents(st)
    return st
