"""Fixtures for coverage search: real git repositories written by the tests themselves."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import git  # noqa: F401  (the coverage tests import it from here)


def put(repo: Path, rel: str, content: str | bytes) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(textwrap.dedent(content).lstrip("\n"))


RepoFactory = Callable[..., Path]


@pytest.fixture
def cov_repo(tmp_path: Path) -> RepoFactory:
    """cov_repo({"master": {path: text}, "v2.7.1": {path: text | None}}) -> a repo, one commit a branch.

    Each later branch starts from the first; a None text deletes the file on that branch.
    """

    def _make(branches: dict[str, dict[str, str | bytes | None]], name: str = "repo") -> Path:
        repo = tmp_path / name
        repo.mkdir()
        first = next(iter(branches), "master")
        git(repo, "init", "-q", "-b", first)
        for i, (branch, files) in enumerate(branches.items()):
            if i:
                git(repo, "checkout", "-q", "-B", branch, first)
            for rel, text in files.items():
                if text is None:
                    (repo / rel).unlink()
                else:
                    put(repo, rel, text)
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "--allow-empty", "-m", f"{branch}: tests")
        git(repo, "checkout", "-q", first)
        return repo

    return _make
