"""``--upstream-repo``: a PyTorch clone's test/ at the tag of the environment's torch version, with
the backend's disabled list; a clone without that tag is said, not guessed (real torch and git)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import git, write
from tests.lazy import torch
from tests.upstream import files
from tests.upstream.files import make_backend
from torchparity.cli import main
from torchparity.store import Store, read_run
from torchparity.upstream.find import torch_tag

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow


def _tag() -> str:
    return torch_tag(torch.__version__)


def _clone(root: Path, tag: str | None) -> Path:
    repo = root / "pytorch"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo / files.DEVICE_GENERIC, files.DEVICE_GENERIC_TEXT)
    write(repo / "torch" / "__init__.py", "")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "tests")
    if tag:
        git(repo, "tag", tag)
    return repo


def test_the_clones_tests_at_the_environments_tag_with_the_backends_list(tmp_path: Path) -> None:
    TAG = _tag()
    assert TAG is not None, "the test interpreter's torch is a release build"
    backend, clone = make_backend(tmp_path), _clone(tmp_path, TAG)
    store = tmp_path / "store"
    code = main(
        [
            "upstream",
            files.API,
            "--repo",
            str(backend),
            "--upstream-repo",
            str(clone),
            "--python",
            sys.executable,
            "--store",
            str(store),
        ]
    )
    rec = read_run(Store(store), 1).upstream
    assert rec is not None
    backend_t, clone_t = rec.targets
    assert (clone_t.source, clone_t.ref, clone_t.label) == (
        "pytorch",
        TAG,
        f"pytorch-{TAG}@{sys.executable}",
    )
    assert clone_t.commit == git(clone, "rev-parse", f"{TAG}^{{commit}}")
    # the backend's list applies to PyTorch's own copy of the file too
    assert (
        clone_t.disabled_list == files.LIST
        and clone_t.disabled_list_sha256 == backend_t.disabled_list_sha256
    )
    by = {x.id: x.status for x in clone_t.tests}
    assert by == {x.id: x.status for x in backend_t.tests if x.file == files.DEVICE_GENERIC}
    assert by["__main__.TestPlain.test_plain_clone"] == "passed"
    # without --recheck-disabled no entry is stale, and nothing failed; the clone's copy ran whole, the
    # backend's test whose fixture module it lacks did not start: partly run, no pass (exit 1)
    assert (clone_t.result, backend_t.result, rec.result, code) == ("PASS", "PARTIAL", "PARTIAL", 1)


def test_a_clone_without_the_tag_is_said(tmp_path: Path) -> None:
    TAG = _tag()
    clone = _clone(tmp_path, None)
    store = tmp_path / "store"
    code = main(
        [
            "upstream",
            files.API,
            "--upstream-repo",
            str(clone),
            "--python",
            sys.executable,
            "--store",
            str(store),
        ]
    )
    rec = read_run(Store(store), 1).upstream
    assert rec is not None and rec.targets == () and code == 1
    assert any(f"has no tag {TAG}" in n and "fetch" in n for n in rec.notes)
