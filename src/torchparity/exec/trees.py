"""A ref's files as bytes for another host: ``git archive`` of the paths its jobs need.

A remote host never runs from its own copy of the backend's source (a trimmed
upload that lacks a test file or a fixture is how official tests fail to start
there): each job carries the test roots of the ref, archived by git from the
commit, compressed, and unpacked next to the worker that runs it. A commit git
cannot archive (a missing blob) is ``ArchiveFailed`` with git's own lines.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path

from ..errors import EnvironmentBroken
from ..gitrepo import git


class ArchiveFailed(EnvironmentBroken):
    def __init__(self, ref: str, commit: str, paths: Sequence[str], stderr: bytes) -> None:
        lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        said = "; ".join(lines) or "no output"
        super().__init__(
            f"git archive of {', '.join(paths)} at {ref} ({commit[:12]}) failed: {said}"
        )


def present(repo: Path, commit: str, paths: Sequence[str]) -> list[str]:
    """The ``paths`` that exist at ``commit`` (git archive refuses a pathspec that matches nothing)."""
    return [
        p
        for p in dict.fromkeys(paths)
        if git(repo, "cat-file", "-e", f"{commit}:{p.strip('/')}", check=False).returncode == 0
    ]


def archive(repo: Path, commit: str, ref: str, paths: Sequence[str]) -> bytes:
    """``git archive`` of ``paths`` at ``commit`` as a gzip'd tar."""
    chosen = present(repo, commit, paths)
    res = (
        git(repo, "archive", "--format=tar", commit, "--", *chosen, check=False) if chosen else None
    )
    if res is not None and res.returncode != 0:
        raise ArchiveFailed(ref, commit, chosen, res.stderr)
    data = res.stdout if res is not None else _empty_tar()
    return gzip.compress(data, compresslevel=1, mtime=0)


def _empty_tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w"):
        pass
    return buf.getvalue()


def tree_key(commit: str, paths: Sequence[str]) -> str:
    return hashlib.sha256((commit + "\0" + "\0".join(sorted(paths))).encode()).hexdigest()[:20]


def unpack(data: bytes, dest: Path) -> Path:
    """Unpack an ``archive`` into ``dest`` (made whole in a staging folder, then renamed)."""
    if dest.exists():
        return dest
    staging = dest.with_name(dest.name + f".staging-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r") as tar:
        if sys.version_info >= (3, 12) or hasattr(tarfile, "data_filter"):
            tar.extractall(staging, filter="data")
        else:  # pragma: no cover - older Pythons: git's own archive, members checked by hand
            for m in tar.getmembers():
                if (
                    m.name.startswith("/")
                    or ".." in Path(m.name).parts
                    or not (m.isfile() or m.isdir())
                ):
                    raise EnvironmentBroken(f"refusing archive member {m.name!r}")
            tar.extractall(staging)
    os.rename(staging, dest)
    return dest


__all__ = ["ArchiveFailed", "archive", "present", "tree_key", "unpack"]
