"""The test tree of a commit, as files: ``git archive COMMIT ROOTS`` unpacked into a temporary folder.

The job carries the files of the ref itself (the test file, its fixture modules and
data, the disabled list), so a file that is missing there is missing from the
repo. The repository is only read (no worktree is registered in it), and the
folder is removed on every way out.
"""

from __future__ import annotations

import io
import sys
import tarfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..errors import UsageError
from ..exec.interrupt import temporary_dir
from ..gitrepo import git


def _extract(data: bytes, dest: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        if sys.version_info >= (3, 12) or hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
        else:  # pragma: no cover - Python 3.10 before the filters: git archive writes plain members
            tar.extractall(dest)  # noqa: S202


@contextmanager
def test_tree(repo: Path, commit: str, roots: Sequence[str], label: str) -> Iterator[Path]:
    """A folder holding ``roots`` of ``repo`` at ``commit`` (the folder stands for the repo root)."""
    present = [
        r
        for r in roots
        if git(repo, "cat-file", "-e", f"{commit}:{r.rstrip('/')}", check=False).returncode == 0
    ]
    if not present:
        raise UsageError(
            f"{repo} has none of {', '.join(roots)} at {label} ({commit[:12]}); "
            "set test_roots in torchparity.toml to the folder that holds its tests"
        )
    res = git(repo, "archive", "--format=tar", commit, "--", *present, check=False)
    if res.returncode != 0:
        msg = res.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(
            f"git archive of {', '.join(present)} at {label} failed in {repo}: "
            f"{msg[-1] if msg else res.returncode}"
        )
    with temporary_dir("upstream") as tmp:
        _extract(res.stdout, tmp)
        yield tmp


__all__ = ["test_tree"]
