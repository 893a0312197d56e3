"""The community's baseline: ``git grep -n -E 'P.*L|L.*P|test_.*P.*L' REF -- test`` and its count.

Run by git (``git``) for a few APIs, or matched in process (``fast``) over the
same blobs with the same pattern and git's own output format when a batch
asks for hundreds: one ``git grep`` with hundreds of patterns takes minutes.
A pattern made of words, ``.*`` and ``|`` (every API name's) means the same to
git's Perl-compatible engine, about twice as fast here, so git runs it with
``-P`` where it has one and is 2.39 or newer (``-E`` otherwise, or on any error); the printed
command stays the ``-E`` one contributors write. Tests check that all of them
give the same lines.
"""

from __future__ import annotations

import functools
import locale
import re
import shlex
import subprocess
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from ..errors import EnvironmentBroken, UsageError
from ..gitblobs import stream_blobs
from ..records.coverage import GrepResult
from .gitobjects import TreeEntry

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
    return " ".join(
        [
            "git grep -n -E",
            shlex.quote(pattern),
            shlex.quote(ref),
            "--",
            *(shlex.quote(r) for r in roots),
        ]
    )


def git_grep(repo: Path, ref: str, pattern: str, roots: Sequence[str]) -> GrepResult:
    """Run the printed command itself (exit 1 means no line matched)."""
    return PendingGrep(repo, ref, pattern, roots).result()


#: a pattern that means the same to POSIX ERE and to PCRE: words joined by ``.*`` and ``|``
_PLAIN = re.compile(r"\w+(?:(?:\.\*|\|)\w+)*", re.ASCII)
#: the git whose ``-P`` was checked to match lines that are not UTF-8 as ``-E`` does (older ones set
#: PCRE's UTF mode only for patterns that are not ASCII, so ``.`` would match such bytes)
PERL_GIT = (2, 39)


@functools.cache
def perl_grep_ok() -> bool:
    """Whether this machine's git is one whose ``-P`` finds the printed ``-E`` command's lines."""
    try:
        out = subprocess.run(
            ["git", "--version"], capture_output=True, text=True, check=False
        ).stdout
    except FileNotFoundError:
        return False
    found = re.search(r"(\d+)\.(\d+)", out)
    return found is not None and (int(found[1]), int(found[2])) >= PERL_GIT


class PendingGrep:
    """The printed command's search, started now (so that it runs while the index loads); ``result``
    waits. A plain pattern runs with ``-P`` (same lines, faster); ``-E`` on any failure of it."""

    def __init__(self, repo: Path, ref: str, pattern: str, roots: Sequence[str]) -> None:
        self.repo, self.ref, self.pattern, self.roots = repo, ref, pattern, tuple(roots)
        self.flag = "-P" if _PLAIN.fullmatch(pattern) and perl_grep_ok() else "-E"
        self.proc = self._start()
        self._result: GrepResult | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        try:
            return subprocess.Popen(
                [
                    "git",
                    "-C",
                    str(self.repo),
                    "grep",
                    "-n",
                    self.flag,
                    self.pattern,
                    self.ref,
                    "--",
                    *self.roots,
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError as exc:
            raise EnvironmentBroken("git is not installed or not on PATH; install git") from exc

    def result(self) -> GrepResult:
        if self._result is None:
            out, err = self.proc.communicate()
            if (
                self.proc.returncode not in (0, 1) and self.flag == "-P"
            ):  # a git without PCRE: as printed
                self.flag = "-E"
                self.proc = self._start()
                out, err = self.proc.communicate()
            if self.proc.returncode not in (0, 1):
                lines = [
                    ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()
                ]
                why = lines[-1] if lines else f"exit {self.proc.returncode}"
                raise UsageError(
                    f"git grep at {self.ref} failed in {self.repo}: {why}; check the ref and the "
                    "repository, or pass --grep fast (or off)"
                )
            found = [ln for ln in out.decode("utf-8", "replace").split("\n") if ln]
            self._result = GrepResult(
                command(self.pattern, self.ref, self.roots),
                self.pattern,
                len(found),
                tuple(found[:MAX_MATCHES]),
                f"git grep {self.flag}",
            )
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
    scanning every file). Latin-1 keeps every byte one character, like git's C regex; a line that is
    not UTF-8 is matched as git does in a UTF-8 locale (``.`` never matches a byte that is not UTF-8).
    Each text is kept compressed (a fifth of its size) and opened when a pattern's candidates need it.

    ``index=False``: no word index, every text kept open and searched whole (as a big one is): for one
    scan of every blob (``grep_many``), which reads each text once and needs neither.
    """

    def __init__(self, index: bool = True) -> None:
        self.index = index
        self.text: dict[
            str, tuple[bytes | str, bool]
        ] = {}  # blob -> (compressed bytes or big text, binary)
        self._posting: dict[str, list[str]] = {}  # word -> blobs
        self._vocab: str | None = None
        self._hits: dict[tuple[str, str], list[tuple[int, str]] | bool] = {}
        self._needles: dict[str, set[str]] = {}
        #: blobs too big for the word index (data files: mostly words found once): kept open, searched whole
        self._scanned: list[str] = []
        #: the texts opened last (a batch's APIs keep asking for the big test files), up to _OPENED_MAX
        self._opened: dict[str, str] = {}
        self._opened_size = 0
        #: bytes of the texts as the tree has them (held compressed, but for the big ones)
        self.size = 0

    def add(self, repo: Path, blobs: Sequence[str]) -> None:
        missing = [b for b in dict.fromkeys(blobs) if b not in self.text]
        if not missing:
            return
        for b, raw in stream_blobs(
            repo, missing
        ):  # one blob's bytes at a time, never the whole tree
            self._keep(
                b, raw or b""
            )  # a blob not in the object store (a sparse clone): like an empty file
        self._vocab = None
        self._needles.clear()

    def _keep(self, blob: str, raw: bytes) -> None:
        self.size += len(raw)
        text = raw.decode("latin-1")
        binary = b"\0" in raw[:_BINARY_PROBE]
        if not self.index or len(text) > _INDEXED_MAX:
            self._scanned.append(blob)
            self.text[blob] = (text, binary)
            return
        for word in set(_WORD.findall(text)):
            self._posting.setdefault(word, []).append(blob)
        self.text[blob] = (zlib.compress(raw, 1), binary)

    def _open(self, blob: str) -> str:
        kept = self.text[blob][0]
        if isinstance(kept, str):
            return kept
        opened = self._opened.pop(blob, None)  # (most recently opened last)
        if opened is None:
            opened = zlib.decompress(kept).decode("latin-1")
            self._opened_size += len(opened)
            while self._opened and self._opened_size > _OPENED_MAX:
                self._opened_size -= len(self._opened.pop(next(iter(self._opened))))
        self._opened[blob] = opened
        return opened

    def read(self, blob: str) -> str:
        """The text of ``blob``, opened without entering the texts kept open for the next pattern (a
        scan of every blob would push out the ones a batch keeps asking for)."""
        kept = self.text[blob][0]
        if isinstance(kept, str):
            return kept
        opened = self._opened.get(blob)
        return opened if opened is not None else zlib.decompress(kept).decode("latin-1")

    def candidates(self, needle: str) -> set[str]:
        """Blobs with a word that contains ``needle`` (every line the pattern matches has one)."""
        found = self._needles.get(needle)
        if found is not None:
            return found
        posting = self._posting
        if self._vocab is None:
            self._vocab = "\n" + "\n".join(posting) + "\n"
        vocab = self._vocab
        found = set()
        if not _WORD.fullmatch(needle):  # not a word: every blob that has it
            found = {b for b in self.text if needle in self._open(b)}
        else:
            pos = vocab.find(needle)
            while pos != -1:
                start = vocab.rfind("\n", 0, pos) + 1
                end = vocab.find("\n", pos)
                found.update(posting[vocab[start:end]])
                pos = vocab.find(needle, end)
            found.update(b for b in self._scanned if needle in self._open(b))
        self._needles[needle] = found
        while len(self._needles) > _NEEDLES_MAX:  # a batch asks for thousands: the oldest let go
            del self._needles[next(iter(self._needles))]
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
        text, binary = self._open(blob), self.text[blob][1]
        if binary:
            # ``.`` never crosses a newline
            result: list[tuple[int, str]] | bool = any(
                _search(rx, ln) for ln in _lines_with(text, needle)
            )
        else:
            lines: list[tuple[int, str]] = []
            line_no, counted_to = 1, 0
            for start, line in _lines_with(text, needle):
                if _search(rx, (start, line)):
                    line_no += text.count("\n", counted_to, start)
                    counted_to = start
                    lines.append((line_no, line))
            result = lines
        self._hits[key] = result
        return result


def _lines_with(text: str, needle: str) -> Iterator[tuple[int, str]]:
    """(start, line) of each line of ``text`` that holds ``needle``."""
    pos = text.find(needle)
    while pos != -1:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        if end == -1:
            end = len(text)
        yield start, text[start:end]
        pos = text.find(needle, end + 1)


def _search(rx: re.Pattern[str], where: tuple[int, str]) -> bool:
    """Whether ``rx`` matches a line (latin-1) as git's regex does in a UTF-8 locale: on a line that is
    not UTF-8, ``.`` does not match the bytes that are not."""
    line = where[1]
    if not rx.search(line):
        return False
    if line.isascii() or not _utf8_locale():
        return True
    try:
        line.encode("latin-1").decode("utf-8")
        return True
    except UnicodeDecodeError:
        return (
            _utf8_strict(rx).search(line.encode("latin-1").decode("utf-8", "surrogateescape"))
            is not None
        )


@functools.cache
def _utf8_locale() -> bool:
    """Whether git, started from here, reads text as UTF-8 (it takes the locale this process has)."""
    return locale.nl_langinfo(locale.CODESET).upper().replace("-", "") == "UTF8"


@functools.lru_cache(maxsize=64)
def _utf8_strict(rx: re.Pattern[str]) -> re.Pattern[str]:
    """``rx`` with each ``.`` matching no escaped (non-UTF-8) byte: for patterns of words, ``.*`` and ``|``;
    another pattern is used as it is."""
    if not _PLAIN.fullmatch(rx.pattern):
        return rx
    return re.compile(rx.pattern.replace(".", "[^\n\udc80-\udcff]"))


_WORD = re.compile(r"[A-Za-z0-9_]+")
#: a blob longer than this is searched whole for a needle instead of entering the word index
_INDEXED_MAX = 1 << 20
#: characters of opened (decompressed) texts kept for the next pattern
_OPENED_MAX = 8 << 20
#: needles whose blobs are kept for the next pattern
_NEEDLES_MAX = 128


#: one file's answer to a pattern: (its path, the lines that match (those listed) or True for a binary
#: file, how many lines match)
_BlobHit = tuple[str, "list[tuple[int, str]] | bool", int]


class TreeText:
    """Every file under a ref's test roots, searched like ``git grep`` does (texts shared through ``pool``)."""

    def __init__(
        self,
        repo: Path,
        ref: str,
        entries: Sequence[TreeEntry],
        roots: Sequence[str],
        pool: BlobTexts | None = None,
    ) -> None:
        self.ref = ref
        self.roots = tuple(roots)
        self.pool = pool if pool is not None else BlobTexts()
        self.pool.add(repo, [e.blob for e in entries])
        # git prints files in path order
        self._files: list[tuple[str, str]] = [
            (e.path, e.blob)
            for e in sorted(entries, key=lambda e: e.path.encode("utf-8", "surrogateescape"))
        ]

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
        found = (
            (path, pool.matches(blob, rx, needle)) for path, blob in self._files if blob in wanted
        )
        return self._result(
            pattern, ((path, hit, hit is True or len(hit)) for path, hit in found if hit)
        )

    def _result(
        self, pattern: str, found: Iterable[_BlobHit], listed: int | None = None
    ) -> GrepResult:
        """git grep's answer from the files that match, in path order: (path, the lines that match (those
        listed) or True for a binary file, how many lines match), with at most ``listed`` lines."""
        listed = MAX_MATCHES if listed is None else listed
        out: list[str] = []
        count = 0
        for path, hit, total in found:
            count += total
            if not isinstance(hit, list):  # a binary file
                if len(out) < listed:
                    out.append(f"Binary file {self.ref}:{path} matches")
                continue
            for line_no, line in hit[: max(0, listed - len(out))]:
                shown = line.encode("latin-1").decode("utf-8", "replace")
                out.append(f"{self.ref}:{path}:{line_no}:{shown}")
        return GrepResult(
            command(pattern, self.ref, self.roots), pattern, count, tuple(out), "in-process"
        )


#: the first characters of a word that ``_Words`` files it under
_HEAD = 3


class _Words:
    """Which of many words each token (a run of ``[A-Za-z0-9_]``) contains, found once per token: a word
    is filed under its first ``_HEAD`` characters, and a token is tried against the words filed under
    the pieces of that length it has."""

    def __init__(self, words: Iterable[str]) -> None:
        by_head: dict[str, list[str]] = {}
        for word in set(words):
            by_head.setdefault(word[:_HEAD], []).append(word)
        self._heads = [
            (size, {h: ws for h, ws in by_head.items() if len(h) == size})
            for size in sorted({len(h) for h in by_head}, reverse=True)
        ]
        self._head_sets = [frozenset(heads) for _, heads in self._heads]
        self.known: dict[str, tuple[str, ...]] = {}

    def of(self, token: str) -> tuple[str, ...]:
        found = self.known.get(token)
        if found is None:
            hits: set[str] = set()
            n = len(token)
            for (size, heads), head_set in zip(self._heads, self._head_sets, strict=True):
                if n < size:
                    continue
                pieces = {token[i : i + size] for i in range(n - size + 1)}
                for head in pieces & head_set:
                    hits.update(word for word in heads[head] if word in token)
            found = self.known[token] = tuple(hits)
        return found


def _lines_by_word(text: str, words: _Words) -> tuple[list[str], dict[str, list[int]]]:
    """The lines of ``text`` (split as git splits them: at ``\\n`` only), and for each of ``words`` the
    lines (0-based, in order) that hold it: every place of a word lies inside one token, so a line
    holds the words of its tokens (only the tokens that hold a word are looked at line by line)."""
    lines = text.split("\n")
    known, of = words.known, words.of
    holding: dict[str, tuple[str, ...]] = {}
    for token in set(_WORD.findall(text)):
        found = known.get(token)
        if found is None:
            found = of(token)
        if found:
            holding[token] = found
    at: dict[str, list[int]] = {}
    if not holding:
        return lines, at
    findall, holds = _WORD.findall, holding.__contains__
    for n, line in enumerate(lines):
        for token in filter(holds, findall(line)):
            for word in holding[token]:
                places = at.get(word)
                if places is None:
                    at[word] = [n]
                elif places[-1] != n:
                    places.append(n)
    return lines, at


def grep_many(
    trees: Sequence[TreeText],
    queries: Sequence[tuple[str, str, str]],
    listed: int | None = None,
) -> list[list[GrepResult]]:
    """``TreeText.grep(pattern, needle, also)`` of every query on every tree (``[query][tree]``), the same
    answers, with each blob of the trees opened and scanned once for the words of all the queries
    instead of once per query: each line's tokens are read once and filed under the words they hold,
    and a query's pattern is tried only on the lines that hold both its words (every line it matches
    does). A query whose words are not plain words is answered by ``grep``.

    ``listed``: the lines each answer lists (default ``MAX_MATCHES``; its count is always exact); 0 keeps
    no line in memory."""
    listed = MAX_MATCHES if listed is None else listed
    results: list[list[GrepResult | None]] = [[None] * len(trees) for _ in queries]
    by_word: dict[str, list[int]] = {}
    for q, (pattern, needle_word, also) in enumerate(queries):
        if _WORD.fullmatch(needle_word) and (not also or _WORD.fullmatch(also)):
            by_word.setdefault(needle_word, []).append(q)
        else:
            results[q] = [tree.grep(pattern, needle_word, also) for tree in trees]
    words = _Words(w for q in queries for w in q[1:] if w and _WORD.fullmatch(w))
    #: per query, each blob that matches: (the lines listed, or True for a binary file; how many match)
    hits: list[dict[str, tuple[list[tuple[int, str]] | bool, int]]] = [{} for _ in queries]
    patterns: dict[str, re.Pattern[str]] = {}
    done: set[str] = set()
    for tree in trees:
        for blob in dict.fromkeys(blob for _, blob in tree._files):
            if blob in done:
                continue
            done.add(blob)
            binary = tree.pool.text[blob][1]
            lines, at = _lines_by_word(tree.pool.read(blob), words)
            for word, places in at.items():
                for q in by_word.get(word, ()):
                    pattern, _, also = queries[q]
                    if also and also != word:
                        other = at.get(also)
                        if other is None:
                            continue
                        tried = sorted(set(places).intersection(other))
                    else:
                        tried = places
                    rx = patterns.get(pattern)
                    if rx is None:
                        rx = patterns[pattern] = re.compile(pattern)
                    if binary:
                        if any(_search(rx, (0, lines[n])) for n in tried):
                            hits[q][blob] = (True, 1)
                        continue
                    matched = [n for n in tried if _search(rx, (0, lines[n]))]
                    if matched:
                        kept = [(n + 1, lines[n]) for n in matched[:listed]]
                        hits[q][blob] = (kept, len(matched))
    for t, tree in enumerate(trees):
        where: dict[str, list[int]] = {}
        for i, (_, blob) in enumerate(tree._files):
            where.setdefault(blob, []).append(i)
        for q, (pattern, _, _) in enumerate(queries):
            if results[q][t] is not None:
                continue
            order = sorted(i for blob in hits[q] for i in where.get(blob, ()))
            found = ((tree._files[i][0], *hits[q][tree._files[i][1]]) for i in order)
            results[q][t] = tree._result(pattern, found, listed)
    return [[r for r in per if r is not None] for per in results]


#: words on nearly every line of a torch test file: a poor needle
_COMMON = frozenset({"torch", "Tensor", "self", "nn", "functional", "test", "assert", "x"})


def needle(parent_word: str, leaf: str) -> str:
    """The word to look for first: both occur in every matching line; prefer the rarer."""
    if not parent_word or parent_word in _COMMON:
        return leaf
    if leaf in _COMMON:
        return parent_word
    return max(parent_word, leaf, key=len)
