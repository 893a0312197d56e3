"""Fixtures for the docs tests: a native_api folder of fixture pages (see docs_pages.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.docs.docs_pages import write_docs


@pytest.fixture
def docs_dir(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "native_api")


@pytest.fixture
def docs_repo(docs_dir: Path) -> Path:
    """The fixture folder as a git repository with one commit (for git diff --check)."""
    assert git(docs_dir, "init", "-q", completed=True).returncode == 0
    git(docs_dir, "add", "-A", completed=True)
    assert git(docs_dir, "commit", "-qm", "pages", completed=True).returncode == 0
    return docs_dir
