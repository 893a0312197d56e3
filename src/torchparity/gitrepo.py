"""Real git, run as a subprocess, with its failures turned into one-line errors."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from .errors import EnvironmentBroken, UsageError


@dataclass(frozen=True)
class GitResult:
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", "replace")


def git(repo: str | Path, *args: str, check: bool = True, input: bytes | None = None) -> GitResult:
    try:
        proc = subprocess.run(
            ["git", "-C", str(repo), *args], input=input, capture_output=True, check=False
        )
    except FileNotFoundError as exc:
        raise EnvironmentBroken("git is not installed or not on PATH; install git") from exc
    result = GitResult(proc.returncode, proc.stdout, proc.stderr)
    if check and proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(
            f"git {' '.join(args[:3])} failed in {repo}: {msg[-1] if msg else proc.returncode}"
        )
    return result


def repo_root(path: str | Path) -> Path:
    """The top folder of the git repository at ``path``; a clear error when it is none."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"repository folder not found: {p}; pass an existing folder to --repo")
    res = git(p, "rev-parse", "--show-toplevel", check=False)
    if res.returncode != 0:
        raise UsageError(
            f"{p} is not a git repository; pass a git checkout to --repo (or omit --repo)"
        )
    return Path(res.text.strip())


def resolve_commit(repo: str | Path, ref: str) -> str:
    """The commit id ``ref`` names (branch, tag, remote branch or commit)."""
    res = git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if res.returncode != 0:
        hint = "give a branch, tag or commit that exists (see 'git branch -a' and 'git tag')"
        for remote in ("origin", "upstream"):
            if (
                git(
                    repo,
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    f"{remote}/{ref}^{{commit}}",
                    check=False,
                ).returncode
                == 0
            ):
                hint = (
                    f"did you mean {remote}/{ref}? (a remote branch; no local branch {ref} exists)"
                )
                break
        raise UsageError(f"unknown ref {ref!r} in {repo}; {hint}")
    return res.text.strip()


def blob_bytes(repo: str | Path, commit: str, path: str) -> bytes | None:
    """The bytes of ``path`` at ``commit``; None when the path does not exist there."""
    res = git(repo, "cat-file", "blob", f"{commit}:{path}", check=False)
    return res.stdout if res.returncode == 0 else None


def path_exists(repo: str | Path, commit: str, path: str) -> bool:
    """Whether the tree of ``commit`` names a file at ``path`` (its bytes are not read: a blob that
    is missing from the object store still exists here, and a checkout says what is wrong with it)."""
    res = git(repo, "ls-tree", "--full-tree", commit, "--", path, check=False)
    return res.returncode == 0 and any(
        line.split("\t", 1)[-1] == path and " blob " in line for line in res.text.splitlines()
    )


def commit_title(repo: str | Path, commit: str) -> str:
    return git(repo, "log", "-1", "--format=%s", commit).text.strip()
