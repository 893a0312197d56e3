"""The community's baseline: ``git grep -n -E 'P.*L|L.*P|test_.*P.*L' REF -- test`` and its count.

Run literally (``git``) for a few APIs, or matched in process (``fast``) over the
same blobs with the same pattern and git's own output format when a batch
asks for hundreds: one ``git grep`` with hundreds of patterns takes minutes.
Tests check that both give the same lines.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from ..errors import UsageError
from ..gitrepo import git
from ..records.coverage import GrepResult
from .gitobjects import TreeEntry, read_blobs

#: the most match lines a record keeps (the count is always exact)
MAX_MATCHES = 200
#: git's test for a binary file: a NUL byte in its first 8000 bytes
_BINARY_PROBE = 8000


def community_pattern(canonical: str) -> tuple[str, str, str]:
    """(pattern, parent word, leaf word) the way contributors write it by hand today."""
    segs = canonical.split(".")
    leaf = segs[-1]
    parent = segs[-2] if len(segs) > 1 else ""
    if not parent:
        return leaf, "", leaf
    return f"{parent}.*{leaf}|{leaf}.*{parent}|test_.*{parent}.*{leaf}", parent, leaf


def command(pattern: str, ref: str, roots: Sequence[str]) -> str:
    return " ".join(["git grep -n -E", shlex.quote(pattern), shlex.quote(ref), "--",
                     *(shlex.quote(r) for r in roots)])


def git_grep(repo: Path, ref: str, pattern: str, roots: Sequence[str]) -> GrepResult:
    """Run the printed command itself (exit 1 means no line matched)."""
    res = git(repo, "grep", "-n", "-E", pattern, ref, "--", *roots, check=False)
    if res.returncode not in (0, 1):
        lines = [ln.strip() for ln in res.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        why = lines[-1] if lines else f"exit {res.returncode}"
        raise UsageError(f"git grep at {ref} failed in {repo}: {why}; check the ref and the repository, "
                         "or pass --grep fast (or off)")
    lines = [ln for ln in res.stdout.decode("utf-8", "replace").split("\n") if ln]
    return GrepResult(command(pattern, ref, roots), pattern, len(lines), tuple(lines[:MAX_MATCHES]), "git grep")


class TreeText:
    """Every file under a ref's test roots, held once, searched like ``git grep`` does."""

    def __init__(self, repo: Path, ref: str, entries: Sequence[TreeEntry], roots: Sequence[str]) -> None:
        self.ref = ref
        self.roots = tuple(roots)
        data = read_blobs(repo, [e.blob for e in entries])
        # git prints files in path order; latin-1 keeps every byte one character, like git's C regex
        self._files: list[tuple[str, str, bool]] = []
        for e in sorted(entries, key=lambda e: e.path.encode("utf-8", "surrogateescape")):
            raw = data.get(e.blob, b"")
            binary = b"\0" in raw[:_BINARY_PROBE]
            self._files.append((e.path, raw.decode("latin-1"), binary))

    def grep(self, pattern: str, needle: str) -> GrepResult:
        """Lines matching ``pattern``; each contains ``needle``, so only lines with it are tried."""
        rx = re.compile(pattern)
        out: list[str] = []
        count = 0
        for path, text, binary in self._files:
            pos = text.find(needle)
            if pos == -1:
                continue
            if binary:
                if rx.search(text):  # ``.`` never crosses a newline: some line matches
                    count += 1
                    if len(out) < MAX_MATCHES:
                        out.append(f"Binary file {self.ref}:{path} matches")
                continue
            line_no, counted_to = 1, 0
            while pos != -1:
                start = text.rfind("\n", 0, pos) + 1
                end = text.find("\n", pos)
                if end == -1:
                    end = len(text)
                line = text[start:end]
                if rx.search(line):
                    line_no += text.count("\n", counted_to, start)
                    counted_to = start
                    count += 1
                    if len(out) < MAX_MATCHES:
                        shown = line.encode("latin-1").decode("utf-8", "replace")
                        out.append(f"{self.ref}:{path}:{line_no}:{shown}")
                pos = text.find(needle, end + 1)
        return GrepResult(command(pattern, self.ref, self.roots), pattern, count, tuple(out), "in-process")


#: words on nearly every line of a torch test file: a poor needle
_COMMON = frozenset({"torch", "Tensor", "self", "nn", "functional", "test", "assert", "x"})


def needle(parent_word: str, leaf: str) -> str:
    """The word to look for first: both occur in every matching line; prefer the rarer."""
    if not parent_word or parent_word in _COMMON:
        return leaf
    if leaf in _COMMON:
        return parent_word
    return max(parent_word, leaf, key=len)
