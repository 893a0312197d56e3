"""The community's baseline: ``git grep -n -E 'P.*L|L.*P|test_.*P.*L' REF -- test`` and its count.

Run literally (``git``) for a few APIs, or matched in process (``fast``) over the
same blobs with the same pattern and git's own output format when a batch
asks for hundreds: one ``git grep`` with hundreds of patterns takes minutes.
Tests check that both give the same lines.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path

from ..errors import EnvironmentBroken, UsageError
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
    return PendingGrep(repo, ref, pattern, roots).result()


class PendingGrep:
    """The printed command, started now (so that it runs while the index loads); ``result`` waits."""

    def __init__(self, repo: Path, ref: str, pattern: str, roots: Sequence[str]) -> None:
        self.repo, self.ref, self.pattern, self.roots = repo, ref, pattern, tuple(roots)
        try:
            self.proc = subprocess.Popen(["git", "-C", str(repo), "grep", "-n", "-E", pattern, ref, "--", *roots],
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except FileNotFoundError as exc:
            raise EnvironmentBroken("git is not installed or not on PATH; install git") from exc
        self._result: GrepResult | None = None

    def result(self) -> GrepResult:
        if self._result is None:
            out, err = self.proc.communicate()
            if self.proc.returncode not in (0, 1):
                lines = [ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
                why = lines[-1] if lines else f"exit {self.proc.returncode}"
                raise UsageError(f"git grep at {self.ref} failed in {self.repo}: {why}; check the ref and the "
                                 "repository, or pass --grep fast (or off)")
            found = [ln for ln in out.decode("utf-8", "replace").split("\n") if ln]
            self._result = GrepResult(command(self.pattern, self.ref, self.roots), self.pattern, len(found),
                                      tuple(found[:MAX_MATCHES]), "git grep")
        return self._result

    def cancel(self) -> None:
        """Stop it (the run ended before its answer was needed)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()


class BlobTexts:
    """The text of every blob the refs of a run grep, held once, with an index of the words in them.

    Shared by the refs (most blobs are on every branch): a pattern is matched once per blob, and only
    in blobs that have a word containing its needle (found in the index's vocabulary, not by
    scanning every file). Latin-1 keeps every byte one character, like git's C regex.
    """

    def __init__(self) -> None:
        self.text: dict[str, tuple[str, bool]] = {}  # blob -> (text, binary)
        self._posting: dict[str, list[str]] | None = None  # word -> blobs
        self._vocab = ""
        self._hits: dict[tuple[str, str], list[tuple[int, str]] | bool] = {}
        self._needles: dict[str, set[str]] = {}
        #: blobs too big for the word index (data files: mostly words found once): searched whole
        self._scanned: list[str] = []

    def add(self, repo: Path, blobs: Sequence[str]) -> None:
        missing = [b for b in dict.fromkeys(blobs) if b not in self.text]
        if not missing:
            return
        data = read_blobs(repo, missing)
        for b in missing:
            raw = data.pop(b, b"")  # (each blob's bytes let go once decoded: not all twice in memory)
            self.text[b] = (raw.decode("latin-1"), b"\0" in raw[:_BINARY_PROBE])
            del raw
        if self._posting is not None:  # keep the index: add the new blobs' words
            for b in missing:
                if len(self.text[b][0]) > _INDEXED_MAX:
                    self._scanned.append(b)
                    continue
                for word in set(_WORD.findall(self.text[b][0])):
                    self._posting.setdefault(word, []).append(b)
            self._vocab = "\n" + "\n".join(self._posting) + "\n"
        self._needles.clear()

    def _index(self) -> dict[str, list[str]]:
        if self._posting is None:
            posting: dict[str, list[str]] = {}
            for blob, (text, _) in self.text.items():
                if len(text) > _INDEXED_MAX:
                    self._scanned.append(blob)
                    continue
                for word in set(_WORD.findall(text)):
                    posting.setdefault(word, []).append(blob)
            self._posting = posting
            self._vocab = "\n" + "\n".join(posting) + "\n"
        return self._posting

    def candidates(self, needle: str) -> set[str]:
        """Blobs with a word that contains ``needle`` (every line the pattern matches has one)."""
        found = self._needles.get(needle)
        if found is not None:
            return found
        posting = self._index()
        vocab = self._vocab
        found = set()
        if not _WORD.fullmatch(needle):  # not a word: every blob that has it
            found = {b for b, (t, _) in self.text.items() if needle in t}
        else:
            pos = vocab.find(needle)
            while pos != -1:
                start = vocab.rfind("\n", 0, pos) + 1
                end = vocab.find("\n", pos)
                found.update(posting[vocab[start:end]])
                pos = vocab.find(needle, end)
            found.update(b for b in self._scanned if needle in self.text[b][0])
        self._needles[needle] = found
        return found

    def forget_matches(self) -> None:
        """Drop the lines found so far (kept for the other refs of one API; a batch's would pile up)."""
        self._hits.clear()

    def matches(self, blob: str, rx: re.Pattern[str], needle: str) -> list[tuple[int, str]] | bool:
        """(line number, line) of each matching line of ``blob``; for a binary blob, whether any matches."""
        key = (rx.pattern, blob)
        hit = self._hits.get(key)
        if hit is not None:
            return hit
        text, binary = self.text[blob]
        if binary:
            result: list[tuple[int, str]] | bool = rx.search(text) is not None  # ``.`` never crosses a newline
        else:
            lines: list[tuple[int, str]] = []
            pos = text.find(needle)
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
                    lines.append((line_no, line))
                pos = text.find(needle, end + 1)
            result = lines
        self._hits[key] = result
        return result


_WORD = re.compile(r"[A-Za-z0-9_]+")
#: a blob longer than this is searched whole for a needle instead of entering the word index
_INDEXED_MAX = 1 << 20


class TreeText:
    """Every file under a ref's test roots, searched like ``git grep`` does (texts shared through ``pool``)."""

    def __init__(self, repo: Path, ref: str, entries: Sequence[TreeEntry], roots: Sequence[str],
                 pool: BlobTexts | None = None) -> None:
        self.ref = ref
        self.roots = tuple(roots)
        self.pool = pool if pool is not None else BlobTexts()
        self.pool.add(repo, [e.blob for e in entries])
        # git prints files in path order
        self._files: list[tuple[str, str]] = [
            (e.path, e.blob) for e in sorted(entries, key=lambda e: e.path.encode("utf-8", "surrogateescape"))]

    def grep(self, pattern: str, needle: str, also: str = "") -> GrepResult:
        """Lines matching ``pattern``; each contains ``needle`` (and ``also``), so only blobs with it
        (and with ``also``) are tried."""
        rx = re.compile(pattern)
        pool = self.pool
        wanted = pool.candidates(needle)
        if also and also != needle:  # every matching line has both words: the blobs with both
            other = pool.candidates(also)
            if len(other) < len(wanted):
                needle = also  # look for the rarer word's places
            wanted = wanted & other
        out: list[str] = []
        count = 0
        for path, blob in self._files:
            if blob not in wanted:
                continue
            found = pool.matches(blob, rx, needle)
            if found is True:
                count += 1
                if len(out) < MAX_MATCHES:
                    out.append(f"Binary file {self.ref}:{path} matches")
                continue
            if not found:
                continue
            for line_no, line in found:
                count += 1
                if len(out) < MAX_MATCHES:
                    shown = line.encode("latin-1").decode("utf-8", "replace")
                    out.append(f"{self.ref}:{path}:{line_no}:{shown}")
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
