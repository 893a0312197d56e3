"""Shared fixtures: tiny real git repos and interpreters written by the tests themselves."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "torchparity tests", "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "torchparity tests", "GIT_COMMITTER_EMAIL": "tests@example.invalid",
}


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, **GIT_ENV)
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


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
