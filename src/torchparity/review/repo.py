"""The facts a review reads from the repository, asked of real git once each and remembered.

``RepoView`` holds the reviewed commit (the merge, or the head of a branch), its
target branch and what the merge changed. Everything is read from git objects
(``cat-file``, ``ls-tree``, ``grep`` at a commit): nothing is checked out.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from functools import cached_property
from io import BytesIO
from pathlib import Path

from ..errors import UsageError
from ..gitrepo import git, repo_root

_MERGE_LINE = re.compile(r"^!(\d+) merge (\S+) into (\S+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Change:
    status: str  # A | M | D | ...
    path: str


class RepoView:
    """One repository seen at one commit (``mode`` says whether it is a merge or a head)."""

    def __init__(self, repo: str | Path, commit: str, mode: str, target_branch: str = "") -> None:
        self.root = repo_root(repo)
        self.mode = mode
        self._exists: dict[str, str | None] = {}
        self._blobs: dict[tuple[str, str], bytes | None] = {}
        self._ancestor: dict[tuple[str, str], bool] = {}
        self._squash: dict[str, str | None] = {}
        self._gitlinks: dict[str, dict[str, str]] = {}
        self._gitlink: dict[tuple[str, str], str | None] = {}
        self._grep: dict[tuple[str, ...], tuple[int, str]] = {}
        self.commit = self._resolve_or_fail(commit, "--merge" if mode == "merge" else "--head")
        self.given = commit
        self._target = target_branch

    # -- refs and commits ---------------------------------------------------------------------
    def _resolve_or_fail(self, ref: str, flag: str) -> str:
        found = self.resolve(ref)
        if found is None:
            raise UsageError(
                f"{flag} {ref}: no such commit or branch in {self.root}; "
                "pass a commit id or branch that exists there (see 'git log', 'git branch -a')"
            )
        return found

    def resolve(self, ref: str) -> str | None:
        """The full commit id of ``ref`` (a commit id, possibly short; a branch, local or origin/)."""
        if not ref or ref.startswith("-"):
            return None
        if ref in self._exists:
            return self._exists[ref]
        found = None
        for cand in (ref, f"origin/{ref}", ref.removeprefix("origin/")):
            res = git(
                self.root, "rev-parse", "--verify", "--quiet", f"{cand}^{{commit}}", check=False
            )
            if res.returncode == 0:
                found = res.text.strip()
                break
        self._exists[ref] = found
        return found

    def is_ancestor(self, older: str, newer: str) -> bool:
        key = (older, newer)
        if key not in self._ancestor:
            res = git(self.root, "merge-base", "--is-ancestor", older, newer, check=False)
            self._ancestor[key] = res.returncode == 0
        return self._ancestor[key]

    def on_branch(self, commit: str, branch: str) -> bool | None:
        """Whether ``commit`` is in ``branch``'s history (None when the branch is not here)."""
        tip = self.resolve(branch)
        return None if tip is None else self.is_ancestor(commit, tip)

    @cached_property
    def parents(self) -> tuple[str, ...]:
        return tuple(
            git(self.root, "rev-list", "--parents", "-n", "1", self.commit).text.split()[1:]
        )

    @cached_property
    def message(self) -> str:
        return git(self.root, "log", "-1", "--format=%B", self.commit).text

    @cached_property
    def merge_line(self) -> tuple[str, str, str] | None:
        """(PR number, source branch, target branch) of a merge bot's squash message, if it is one."""
        m = _MERGE_LINE.search(self.message)
        return (m.group(1), m.group(2), m.group(3)) if m else None

    @property
    def squashed(self) -> bool:
        """The reviewed commit is a squash of the PR (one parent: its source commits are not in history)."""
        return self.mode == "merge" and len(self.parents) == 1

    @cached_property
    def target_branch(self) -> str:
        """The branch the merge went into: given, the bot's message, else ""."""
        if self._target:
            return self._target
        if self.merge_line:
            return self.merge_line[2]
        return ""

    @property
    def base(self) -> str:
        """The state before the PR: the merge's first parent, or the head itself."""
        return self.parents[0] if self.mode == "merge" and self.parents else self.commit

    def find_squash(self, pr: str) -> str | None:
        """The squash commit the merge bot made for PR ``pr`` (``!44139 merge ... into ...``), if here."""
        if pr not in self._squash:
            res = git(
                self.root,
                "log",
                "--all",
                "-F",
                f"--grep=!{pr} merge ",
                "--format=%H",
                "-n",
                "1",
                check=False,
            )
            self._squash[pr] = res.text.strip() or None if res.returncode == 0 else None
        return self._squash[pr]

    # -- files ----------------------------------------------------------------------------------
    @cached_property
    def changes(self) -> tuple[Change, ...]:
        """What the merge changed against its first parent (a head: against its target branch's fork point)."""
        if self.mode == "merge":
            if not self.parents:
                res = git(self.root, "ls-tree", "-r", "--name-only", self.commit)
                return tuple(Change("A", p) for p in res.text.splitlines())
            res = git(
                self.root, "diff", "--no-renames", "--name-status", self.parents[0], self.commit
            )
        else:
            tip = self.resolve(self.target_branch) if self.target_branch else None
            if tip is None or tip == self.commit:
                return ()
            fork = git(self.root, "merge-base", tip, self.commit, check=False).text.strip()
            if not fork:
                return ()
            res = git(self.root, "diff", "--no-renames", "--name-status", fork, self.commit)
        out = []
        for line in res.text.splitlines():
            parts = line.split("\t")
            if len(parts) >= 2:
                out.append(Change(parts[0][:1], parts[-1]))
        return tuple(out)

    @property
    def changed_paths(self) -> tuple[str, ...]:
        return tuple(c.path for c in self.changes if c.status != "D")

    def blob(self, path: str, commit: str | None = None) -> bytes | None:
        at = commit or self.commit
        key = (at, path)
        if key not in self._blobs:
            res = git(self.root, "cat-file", "blob", f"{at}:{path}", check=False)
            self._blobs[key] = res.stdout if res.returncode == 0 else None
        return self._blobs[key]

    def sha256(self, path: str, commit: str | None = None) -> str | None:
        data = self.blob(path, commit)
        return None if data is None else hashlib.sha256(data).hexdigest()

    def locate(self, path: str, commit: str | None = None) -> str | None:
        """The repository path a path in the text means: as written, else its longest suffix that exists
        (``/tmp/x/v2.7.1/test/npu/test_a.py`` -> ``test/npu/test_a.py``)."""
        clean = path.strip().strip("`'\"").lstrip("./")
        parts = [p for p in clean.split("/") if p and p != "."]
        for i in range(len(parts)):
            cand = "/".join(parts[i:])
            if self.blob(cand, commit) is not None:
                return cand
        return None

    def gitlink(self, path: str, commit: str | None = None) -> str | None:
        """The commit a submodule path points to at ``commit`` (None when it is no gitlink there)."""
        key = (commit or self.commit, path.rstrip("/"))
        if key not in self._gitlink:
            res = git(self.root, "ls-tree", key[0], "--", key[1], check=False)
            self._gitlink[key] = None
            for line in res.text.splitlines():
                meta, _, name = line.partition("\t")
                fields = meta.split()
                if len(fields) == 3 and fields[0] == "160000" and name == key[1]:
                    self._gitlink[key] = fields[2]
                    break
        return self._gitlink[key]

    def gitlinks(self, commit: str | None = None) -> dict[str, str]:
        """Every submodule path at ``commit`` and the commit it points to."""
        at = commit or self.commit
        if at not in self._gitlinks:
            res = git(self.root, "ls-tree", "-r", at, check=False)
            found = {}
            for line in res.text.splitlines():
                meta, _, name = line.partition("\t")
                fields = meta.split()
                if len(fields) == 3 and fields[0] == "160000":
                    found[name] = fields[2]
            self._gitlinks[at] = found
        return self._gitlinks[at]

    def history_sha256(self, path: str, limit: int = 200) -> dict[str, str]:
        """SHA-256 -> a commit that has that version of ``path``, over every branch's history."""
        res = git(self.root, "log", "--all", f"-n{limit}", "--format=%H", "--", path, check=False)
        out: dict[str, str] = {}
        seen: set[str] = set()
        for commit in res.text.split():
            blob = git(
                self.root, "rev-parse", "--verify", "--quiet", f"{commit}:{path}", check=False
            ).text.strip()
            if not blob or blob in seen:
                continue
            seen.add(blob)
            data = git(self.root, "cat-file", "blob", blob, check=False).stdout
            out.setdefault(hashlib.sha256(data).hexdigest(), commit)
        return out

    def grep(self, args: list[str]) -> tuple[int, str]:
        """``git grep ARGS`` (its revision and ``--`` paths included): (exit code, output)."""
        key = tuple(args)
        if key not in self._grep:
            proc = subprocess.run(
                ["git", "-C", str(self.root), "--no-pager", "grep", "--no-color", *args],
                capture_output=True,
                check=False,
            )
            self._grep[key] = (
                proc.returncode,
                proc.stdout.decode("utf-8", "replace") or proc.stderr.decode("utf-8", "replace"),
            )
        return self._grep[key]

    def grep_def(self, name: str, commit: str | None = None) -> list[str]:
        """Files (``path``) that define ``def NAME`` at ``commit``."""
        res = git(
            self.root,
            "grep",
            "-l",
            "-E",
            rf"def {re.escape(name)}\b",
            commit or self.commit,
            "--",
            "*.py",
            check=False,
        )
        prefix = f"{commit or self.commit}:"
        return [line.removeprefix(prefix) for line in res.text.splitlines()]

    def extract(self, commit: str, folder: str, dest: Path) -> Path | None:
        """``folder`` at ``commit`` written under ``dest`` (None when it is not there)."""
        res = git(self.root, "archive", "--format=tar", commit, "--", folder, check=False)
        if res.returncode != 0:
            return None
        with tarfile.open(fileobj=BytesIO(res.stdout)) as tar:
            try:
                tar.extractall(dest, filter="data")
            except TypeError:  # pragma: no cover - Python before 3.10.12 / 3.11.4 has no filters
                tar.extractall(
                    dest, members=[m for m in tar.getmembers() if m.isfile() or m.isdir()]
                )
        return dest / folder


#: what the merge bot of Ascend/pytorch writes into each squash commit it makes (the PR text follows)
BOT_MARK = "no-merge-commit merge"
_CONSISTENCY = re.compile(r"一致性|API Consistency|api-consistency", re.IGNORECASE)


def bot_squash_commits(repo: str | Path) -> list[tuple[str, str]]:
    """(commit, message) of every squash the merge bot made, newest first, API-consistency PRs first."""
    out = git(repo, "log", "--all", f"--grep={BOT_MARK}", "--format=%H%x00%B%x01").text
    pairs = []
    for chunk in out.split("\x01"):
        if "\x00" in chunk:
            sha, body = chunk.split("\x00", 1)
            pairs.append((sha.strip(), body))
    return sorted(pairs, key=lambda p: not _CONSISTENCY.search(p[1]))


def temp_dir() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="torchparity-review-")
